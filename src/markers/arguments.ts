/**
 * Reading marker arguments, as controller-gen reads them: `+name=value` with one value, or
 * `+name:key=value,key2=value2` with named ones. Strings may be quoted ("..." or `...`), lists
 * are `a;b;c` or `{a,b,c}`, and untyped values are guessed (numbers, booleans, strings, lists,
 * maps). Shared by every vocabulary (CRD, rbac, webhook).
 */
import type { JSONValue } from '../base/index.js';

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

/** The named arguments a marker takes: each one's type, and whether it may be left out. */
export type ArgumentSpecs = Readonly<Record<string, { type: ArgumentType; optional?: boolean }>>;

/**
 * Reads `key=value,key2=value2` (the text after `+name:`) against `specs`. Unknown,
 * repeated, unparsable and missing required arguments go to `fail` with a short problem.
 */
export function parseNamedArguments(
  text: string,
  specs: ArgumentSpecs,
  fail: (problem: string) => never,
): Record<string, JSONValue> {
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
  return (
    text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith('`') && text.endsWith('`')))
  );
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
  return parts
    .filter((p, i) => p.trim() !== '' || i < parts.length - 1 || parts.length === 1)
    .filter((p) => p.trim() !== '');
}
