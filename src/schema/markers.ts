/**
 * Marker comments (`+name`, `+name=value`, `+name:key=value,key2=value2`), parsed the way
 * controller-gen parses them so Go API types port to TypeScript by changing syntax only.
 * Every marker keeps the file and line it was written on, for error messages.
 */
import { MarkerSyntaxError, UnknownMarkerError, type SourceLocation } from './errors.js';
import type { JSONValue } from './json-schema.js';

/** Where a marker may appear. */
export type MarkerTarget = 'package' | 'type' | 'field';

/** How an argument's text is read. */
export type ArgumentType =
  | 'string'
  | 'int'
  | 'number'
  | 'bool'
  /** `a;b;c` or `{a,b,c}` of strings */
  | 'stringList'
  /** `a;b;c` or `{a,b,c}` of guessed values (numbers, booleans, strings) */
  | 'anyList'
  /** a guessed value: number, boolean, quoted or bare string, `{a,b}` list, `{k: v}` map */
  | 'any'
  /** strict JSON (`+default=`) */
  | 'json';

/** One marker kop knows. */
export interface MarkerDefinition {
  name: string;
  targets: readonly MarkerTarget[];
  /** The type of the single value after `=`; absent for flags and for markers with named arguments. */
  value?: ArgumentType;
  /** Named arguments after `name:`; `optional` ones may be left out. */
  args?: ArgumentSpecs;
  /** True when the marker may appear several times on one declaration. */
  repeatable?: boolean;
  /** Markers of other tools that kop accepts and ignores (they carry no schema meaning). */
  ignored?: boolean;
}

/** A parsed marker occurrence. */
export interface Marker {
  name: string;
  /** The single value (`+name=value`); `true` for a flag. */
  value: JSONValue;
  /** Named arguments (`+name:key=value`). */
  args: Record<string, JSONValue>;
  /** The marker text as written, without the leading `+`. */
  raw: string;
  location: SourceLocation;
}

const NUMBER_MARKERS = ['Minimum', 'Maximum', 'MultipleOf'] as const;
const INT_MARKERS = ['MinLength', 'MaxLength', 'MinItems', 'MaxItems', 'MinProperties', 'MaxProperties'] as const;
const BOOL_MARKERS = ['ExclusiveMinimum', 'ExclusiveMaximum', 'UniqueItems', 'XPreserveUnknownFields', 'XEmbeddedResource', 'XIntOrString'] as const;

const XVALIDATION_ARGS = {
  rule: { type: 'string' },
  message: { type: 'string', optional: true },
  messageExpression: { type: 'string', optional: true },
  reason: { type: 'string', optional: true },
  fieldPath: { type: 'string', optional: true },
  optionalOldSelf: { type: 'bool', optional: true },
} as const;

function validationMarkers(prefix: string): MarkerDefinition[] {
  const both: MarkerTarget[] = ['type', 'field'];
  return [
    ...NUMBER_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'number' as const })),
    ...INT_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'int' as const })),
    ...BOOL_MARKERS.map((n) => ({ name: `${prefix}${n}`, targets: both, value: 'bool' as const })),
    { name: `${prefix}Pattern`, targets: both, value: 'string' },
    { name: `${prefix}Format`, targets: both, value: 'string' },
    { name: `${prefix}Type`, targets: both, value: 'string' },
    { name: `${prefix}Enum`, targets: both, value: 'anyList' },
    { name: `${prefix}XValidation`, targets: both, args: XVALIDATION_ARGS, repeatable: true },
  ];
}

/** The whole vocabulary: controller-gen's CRD markers plus the few kop reads for kinds and packages. */
export const MARKER_DEFINITIONS: readonly MarkerDefinition[] = [
  // package level
  { name: 'groupName', targets: ['package'], value: 'string' },
  { name: 'versionName', targets: ['package'], value: 'string' },
  { name: 'kubebuilder:skip', targets: ['package'] },
  { name: 'kubebuilder:object:generate', targets: ['package', 'type'], value: 'bool', ignored: true },
  { name: 'kubebuilder:validation:Optional', targets: ['package', 'field'] },
  { name: 'kubebuilder:validation:Required', targets: ['package', 'field'] },
  // field presence
  { name: 'optional', targets: ['field'] },
  { name: 'required', targets: ['field'] },
  { name: 'k8s:optional', targets: ['field'] },
  { name: 'k8s:required', targets: ['field'] },
  { name: 'nullable', targets: ['field'] },
  // validation
  ...validationMarkers('kubebuilder:validation:'),
  ...validationMarkers('kubebuilder:validation:items:'),
  { name: 'kubebuilder:validation:ExactlyOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:AtMostOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:AtLeastOneOf', targets: ['type'], value: 'stringList', repeatable: true },
  { name: 'kubebuilder:validation:Schemaless', targets: ['field'] },
  { name: 'kubebuilder:validation:EmbeddedResource', targets: ['field'] },
  { name: 'kubebuilder:pruning:PreserveUnknownFields', targets: ['type', 'field'] },
  { name: 'k8s:immutable', targets: ['field'] },
  { name: 'k8s:enum', targets: ['type'] },
  // defaults, docs
  { name: 'kubebuilder:default', targets: ['field'], value: 'any' },
  { name: 'default', targets: ['field'], value: 'json' },
  { name: 'kubebuilder:example', targets: ['field'], value: 'any' },
  { name: 'kubebuilder:title', targets: ['type', 'field'], value: 'string' },
  { name: 'kubebuilder:externalDocs', targets: ['type', 'field'], args: { url: { type: 'string' }, description: { type: 'string', optional: true } } },
  // topology
  { name: 'listType', targets: ['type', 'field'], value: 'string' },
  { name: 'listMapKey', targets: ['type', 'field'], value: 'string', repeatable: true },
  { name: 'mapType', targets: ['type', 'field'], value: 'string' },
  { name: 'structType', targets: ['type', 'field'], value: 'string' },
  // the kind
  { name: 'kubebuilder:object:root', targets: ['type'], value: 'bool' },
  {
    name: 'kubebuilder:resource',
    targets: ['type'],
    args: {
      path: { type: 'string', optional: true },
      singular: { type: 'string', optional: true },
      shortName: { type: 'stringList', optional: true },
      categories: { type: 'stringList', optional: true },
      scope: { type: 'string', optional: true },
    },
  },
  { name: 'kubebuilder:subresource:status', targets: ['type'] },
  {
    name: 'kubebuilder:subresource:scale',
    targets: ['type'],
    args: { specpath: { type: 'string' }, statuspath: { type: 'string' }, selectorpath: { type: 'string', optional: true } },
  },
  {
    name: 'kubebuilder:printcolumn',
    targets: ['type'],
    repeatable: true,
    args: {
      name: { type: 'string' },
      type: { type: 'string' },
      JSONPath: { type: 'string' },
      description: { type: 'string', optional: true },
      format: { type: 'string', optional: true },
      priority: { type: 'int', optional: true },
    },
  },
  { name: 'kubebuilder:storageversion', targets: ['type'] },
  { name: 'kubebuilder:deprecatedversion', targets: ['type'], args: { warning: { type: 'string', optional: true } } },
  { name: 'kubebuilder:unservedversion', targets: ['type'] },
  { name: 'kubebuilder:skipversion', targets: ['type'] },
  { name: 'kubebuilder:selectablefield', targets: ['type'], repeatable: true, args: { JSONPath: { type: 'string' } } },
  {
    name: 'kubebuilder:metadata',
    targets: ['type'],
    args: { annotations: { type: 'stringList', optional: true }, labels: { type: 'stringList', optional: true } },
  },
];

const DEFINITIONS_BY_NAME = new Map(MARKER_DEFINITIONS.map((d) => [d.name, d]));

/** The definition of a marker name, if kop knows it. */
export function markerDefinition(name: string): MarkerDefinition | undefined {
  return DEFINITIONS_BY_NAME.get(name);
}

/** True for a comment line that is a marker: `+` directly followed by a letter. */
export function isMarkerLine(text: string): boolean {
  return /^\+[A-Za-z]/.test(text.trim());
}

/**
 * Parses one marker line (the comment text, starting with `+`). The longest known name
 * that the text starts with wins, as in controller-gen, so `kubebuilder:validation:items:Minimum`
 * is not mistaken for a `kubebuilder:validation` marker with arguments.
 */
export function parseMarker(text: string, location: SourceLocation): Marker {
  const raw = text.trim().slice(1);
  const head = raw.split('=', 1)[0]!;
  let definition: MarkerDefinition | undefined;
  for (let end = head.length; end > 0; end = head.lastIndexOf(':', end - 1)) {
    const candidate = head.slice(0, end);
    const found = DEFINITIONS_BY_NAME.get(candidate);
    if (found && (found.args !== undefined || end === head.length)) {
      definition = found;
      break;
    }
    if (end <= 0) break;
  }
  if (!definition) {
    const nearest = nearestMarkerName(head);
    throw new UnknownMarkerError(
      location,
      `+${head}`,
      'kop does not know this marker',
      nearest
        ? `did you mean +${nearest}? kop never ignores a marker silently`
        : `check the spelling against the markers in the README (controller-gen's vocabulary); kop never ignores a marker silently`,
    );
  }
  const rest = raw.slice(definition.name.length);
  const marker: Marker = { name: definition.name, value: true, args: {}, raw, location };
  const fail = (problem: string): never => {
    throw new MarkerSyntaxError(location, `+${definition!.name}`, problem, `write it as ${usage(definition!)}`);
  };
  if (definition.args) {
    if (rest === '') {
      const missing = Object.entries(definition.args).filter(([, a]) => !a.optional);
      if (missing.length > 0) fail(`missing argument ${missing.map(([k]) => k).join(', ')}`);
      return marker;
    }
    if (!rest.startsWith(':')) fail(`expected ":" after the marker name`);
    marker.args = parseNamedArguments(rest.slice(1), definition.args, fail);
    return marker;
  }
  if (rest === '') {
    if (definition.value !== undefined && definition.value !== 'bool') fail('missing value');
    return marker;
  }
  if (!rest.startsWith('=')) fail(`unexpected "${rest}"`);
  if (definition.value === undefined) fail('this marker is a flag and takes no value');
  try {
    marker.value = parseArgument(rest.slice(1), definition.value!);
  } catch (error) {
    fail((error as Error).message);
  }
  return marker;
}

/** The named arguments a marker takes: each one's type, and whether it may be left out. */
export type ArgumentSpecs = Readonly<Record<string, { type: ArgumentType; optional?: boolean }>>;

/**
 * Reads `key=value,key2=value2` (the text after `+name:`) against `specs`. Unknown,
 * repeated, unparsable and missing required arguments go to `fail` with a short problem.
 */
export function parseNamedArguments(text: string, specs: ArgumentSpecs, fail: (problem: string) => never): Record<string, JSONValue> {
  const args: Record<string, JSONValue> = {};
  for (const part of splitTopLevel(text, ',')) {
    const eq = part.indexOf('=');
    if (eq < 0) fail(`argument "${part}" has no "="`);
    const key = part.slice(0, eq).trim();
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (!spec) fail(`unknown argument "${key}" (known: ${Object.keys(specs).join(', ')})`);
    if (Object.hasOwn(args, key)) fail(`argument ${key} is given twice`);
    try {
      args[key] = parseArgument(part.slice(eq + 1), spec!.type);
    } catch (error) {
      fail(`argument ${key}: ${(error as Error).message}`);
    }
  }
  const missing = Object.keys(specs).filter((key) => !specs[key]!.optional && !Object.hasOwn(args, key));
  if (missing.length > 0) fail(`missing argument ${missing.join(', ')}`);
  return args;
}

/** `key=<type>,[optional=<type>]`: how to write a marker's named arguments, for hints. */
export function argumentsUsage(specs: ArgumentSpecs): string {
  return Object.entries(specs)
    .map(([k, a]) => `${a.optional ? '[' : ''}${k}=<${a.type}>${a.optional ? ']' : ''}`)
    .join(',');
}

function usage(definition: MarkerDefinition): string {
  if (definition.args) {
    return `+${definition.name}:${argumentsUsage(definition.args)}`;
  }
  if (definition.value) return `+${definition.name}=<${definition.value}>`;
  return `+${definition.name}`;
}

/** Reads one argument's text as `type`. Throws an Error with a short reason. */
export function parseArgument(text: string, type: ArgumentType): JSONValue {
  const trimmed = text.trim();
  switch (type) {
    case 'string':
      return isQuoted(trimmed) ? unquote(trimmed) : trimmed;
    case 'int': {
      if (!/^[+-]?\d+$/.test(trimmed)) throw new Error(`"${trimmed}" is not an integer`);
      return Number(trimmed);
    }
    case 'number': {
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n)) throw new Error(`"${trimmed}" is not a number`);
      return n;
    }
    case 'bool': {
      if (trimmed === 'true') return true;
      if (trimmed === 'false') return false;
      throw new Error(`"${trimmed}" is not true or false`);
    }
    case 'stringList':
      return listItems(trimmed).map((item) => (isQuoted(item) ? unquote(item) : item));
    case 'anyList':
      return listItems(trimmed).map(guessValue);
    case 'any':
      return guessValue(trimmed);
    case 'json':
      try {
        return JSON.parse(trimmed) as JSONValue;
      } catch {
        throw new Error(`"${trimmed}" is not JSON (strings need double quotes: +default="value")`);
      }
  }
}

function listItems(text: string): string[] {
  if (text.startsWith('{') && text.endsWith('}')) return splitTopLevel(text.slice(1, -1), ',').map((s) => s.trim());
  return splitTopLevel(text, ';').map((s) => s.trim());
}

/** Guesses a value's type from its text, as controller-gen does for `interface{}` arguments. */
export function guessValue(text: string): JSONValue {
  const t = text.trim();
  if (isQuoted(t)) return unquote(t);
  if (t.startsWith('{') && t.endsWith('}')) {
    const inner = t.slice(1, -1).trim();
    // `{}` is an empty object; to-openapi reads it as an empty list on arrays.
    if (inner === '') return {};
    const entries = splitTopLevel(inner, ',');
    if (entries.every((entry) => findTopLevel(entry, ':') >= 0)) {
      const map: Record<string, JSONValue> = {};
      for (const entry of entries) {
        const colon = findTopLevel(entry, ':');
        const key = entry.slice(0, colon).trim();
        map[isQuoted(key) ? unquote(key) : key] = guessValue(entry.slice(colon + 1));
      }
      return map;
    }
    return entries.map(guessValue);
  }
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  return t;
}

function isQuoted(text: string): boolean {
  return text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith('`') && text.endsWith('`')));
}

function unquote(text: string): string {
  if (text.startsWith('`')) return text.slice(1, -1);
  try {
    return JSON.parse(text) as string;
  } catch {
    throw new Error(`bad escape in ${text}`);
  }
}

/** Index of `needle` outside quotes and braces, or -1. */
function findTopLevel(text: string, needle: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (depth === 0 && c === needle) return i;
  }
  return -1;
}

/** Splits at `separator` outside quotes and braces. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let rest = text;
  for (let at = findTopLevel(rest, separator); at >= 0; at = findTopLevel(rest, separator)) {
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  parts.push(rest);
  return parts.filter((p, i) => p.trim() !== '' || i < parts.length - 1 || parts.length === 1).filter((p) => p.trim() !== '');
}

/** All markers named `name` in a list. */
export function markersNamed(markers: readonly Marker[], name: string): Marker[] {
  return markers.filter((m) => m.name === name);
}

/** The first marker named `name`, if any. */
export function findMarker(markers: readonly Marker[], name: string): Marker | undefined {
  return markers.find((m) => m.name === name);
}

/**
 * The known marker name closest to a misspelt one (`kubebuilder:validation:Maximun` gives
 * `kubebuilder:validation:Maximum`), when it is close enough to be the one meant: case-insensitive
 * edit distance at most a third of the name's last segment, and at most 3.
 */
export function nearestMarkerName(misspelt: string): string | undefined {
  const wanted = misspelt.toLowerCase();
  const lastSegment = wanted.slice(wanted.lastIndexOf(':') + 1);
  const limit = Math.min(3, Math.max(1, Math.floor(lastSegment.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of DEFINITIONS_BY_NAME.keys()) {
    const distance = editDistance(wanted, name.toLowerCase(), limit);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, current[j]!);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
