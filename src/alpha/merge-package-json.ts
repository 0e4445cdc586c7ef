import type { MergeLabels } from '../scaffold/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A merged value: taken as is, an object merged member by member, or both sides where they disagree. */
type Merged =
  | { kind: 'value'; value: Json }
  | { kind: 'object'; members: Member[] }
  | { kind: 'conflict'; ours: Json | undefined; theirs: Json | undefined };
interface Member {
  key: string;
  node: Merged;
}

/** What {@link mergePackageJson} made. */
export interface PackageJsonMerge {
  /** The merged file; where both sides changed a key differently it holds a conflict block for that key. */
  text: string;
  /** The keys both sides changed differently, as dotted paths (`scripts.build`). */
  conflicts: string[];
}

/** The maps npm keeps sorted by name when it writes package.json. */
const SORTED_BY_NPM = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);

const isObject = (value: Json | undefined): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function equal(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return false;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]));
  const keys = Object.keys(a);
  // Key order is formatting, not content: an object whose keys moved is the same object.
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && equal(a[key], b[key]));
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const value = JSON.parse(text) as Json;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const pathOf = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);

/**
 * A three-way merge of package.json by keys: `base` is what the old kop scaffolded, `ours` the
 * project's, `theirs` what this kop scaffolds. A key only one side changed (added, changed or
 * removed) takes that side's value; objects both changed (scripts, dependencies, ...) are merged
 * key by key, so dependencies and scripts you added stay next to kop's new ones; a key both
 * changed to different values is a conflict, written as a `<<<<<<< ours` / `>>>>>>> kop` block
 * holding the key on each side (each side valid JSON once the other and the markers go).
 * Formatting follows npm's: the key order is yours with kop's new keys after their neighbour in
 * kop's file (dependency maps stay sorted when yours were), and your indentation, line ends and
 * final newline are kept. Undefined when a side is not a JSON object (then a merge by lines is
 * all that can be done).
 */
export function mergePackageJson(
  base: string,
  ours: string,
  theirs: string,
  labels: MergeLabels,
): PackageJsonMerge | undefined {
  const b = base === '' ? {} : parseObject(base);
  const o = parseObject(ours);
  const t = parseObject(theirs);
  if (b === undefined || o === undefined || t === undefined) return undefined;
  const conflicts: string[] = [];
  const merged = mergeValue(b, o, t, '', conflicts) ?? { kind: 'object', members: [] };
  const indent = /^([ \t]+)"/m.exec(ours)?.[1] ?? '  ';
  const newline = ours.includes('\r\n') ? '\r\n' : '\n';
  const lines = render(merged, indent, 0, labels);
  const text = lines.join('\n') + (/\n$/.test(ours) ? '\n' : '');
  return { text: newline === '\n' ? text : text.replace(/\n/g, newline), conflicts };
}

function mergeValue(
  b: Json | undefined,
  o: Json | undefined,
  t: Json | undefined,
  path: string,
  conflicts: string[],
): Merged | undefined {
  const value = (v: Json | undefined): Merged | undefined =>
    v === undefined ? undefined : { kind: 'value', value: v };
  if (equal(o, t)) return value(o);
  if (equal(b, o)) return value(t);
  if (equal(b, t)) return value(o);
  if (isObject(o) && isObject(t)) {
    const members = mergeMembers(isObject(b) ? b : {}, o, t, path, conflicts);
    return { kind: 'object', members };
  }
  conflicts.push(path);
  return { kind: 'conflict', ours: o, theirs: t };
}

function mergeMembers(b: JsonObject, o: JsonObject, t: JsonObject, path: string, conflicts: string[]): Member[] {
  // Your order; a key only kop's file has goes after the key before it there (or first).
  const keys = Object.keys(o);
  const theirKeys = Object.keys(t);
  theirKeys.forEach((key, index) => {
    if (keys.includes(key)) return;
    const before = theirKeys
      .slice(0, index)
      .reverse()
      .find((previous) => keys.includes(previous));
    keys.splice(before === undefined ? 0 : keys.indexOf(before) + 1, 0, key);
  });
  const ourKeys = Object.keys(o);
  const sorted = (list: readonly string[]) =>
    list.every((key, i) => i === 0 || list[i - 1]!.localeCompare(key, 'en') <= 0);
  if (SORTED_BY_NPM.has(path) && sorted(ourKeys)) keys.sort((x, y) => x.localeCompare(y, 'en'));
  const members: Member[] = [];
  for (const key of keys) {
    const node = mergeValue(b[key], o[key], t[key], pathOf(path, key), conflicts);
    if (node !== undefined) members.push({ key, node });
  }
  return members;
}

/** A value as JSON.stringify indents it (as npm writes package.json), its lines after the first indented to `depth`. */
function stringify(value: Json, indent: string, depth: number): string {
  return JSON.stringify(value, null, indent).replace(/\n/g, `\n${indent.repeat(depth)}`);
}

/** The member `"key": value` at `depth`, with a comma when another member follows. */
function memberLine(key: string, value: Json, indent: string, depth: number, comma: boolean): string {
  return `${indent.repeat(depth)}${JSON.stringify(key)}: ${stringify(value, indent, depth)}${comma ? ',' : ''}`;
}

function render(node: Merged, indent: string, depth: number, labels: MergeLabels): string[] {
  if (node.kind === 'value') return [stringify(node.value, indent, depth)];
  if (node.kind === 'conflict') {
    // Only a whole document that is not an object comes here, and mergePackageJson refuses those.
    throw new Error('a conflict outside an object');
  }
  if (node.members.length === 0) return ['{}'];
  const lines = ['{'];
  const inner = depth + 1;
  node.members.forEach(({ key, node: child }, index) => {
    const comma = index < node.members.length - 1;
    if (child.kind === 'value') lines.push(memberLine(key, child.value, indent, inner, comma));
    else if (child.kind === 'object') {
      const [first, ...rest] = render(child, indent, inner, labels);
      lines.push(`${indent.repeat(inner)}${JSON.stringify(key)}: ${first}`, ...rest);
      if (comma) lines[lines.length - 1] += ',';
    } else {
      const side = (value: Json | undefined) =>
        value === undefined ? [] : [memberLine(key, value, indent, inner, comma)];
      let ours = side(child.ours);
      let theirs = side(child.theirs);
      // The last member absent on one side: the member before it would keep a comma that side
      // does not want, so that member goes into the block too, with and without its comma.
      const previous = index > 0 ? node.members[index - 1] : undefined;
      if (!comma && (ours.length === 0 || theirs.length === 0) && previous?.node.kind === 'value') {
        const withComma = lines.pop()!;
        const withoutComma = withComma.replace(/,$/, '');
        ours = ours.length === 0 ? [withoutComma] : [withComma, ...ours];
        theirs = theirs.length === 0 ? [withoutComma] : [withComma, ...theirs];
      }
      lines.push(`<<<<<<< ${labels.ours}`, ...ours, '=======', ...theirs, `>>>>>>> ${labels.theirs}`);
    }
  });
  lines.push(`${indent.repeat(depth)}}`);
  return lines;
}
