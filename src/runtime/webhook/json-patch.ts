/** One RFC 6902 operation, as a mutating webhook answers them (only these three are ever produced). */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** Escapes one key for a JSON Pointer (RFC 6901): `~` as `~0`, then `/` as `~1`. */
export function escapePointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The RFC 6902 patch that turns `from` into `to`, both plain JSON values (what JSON.parse makes).
 * Objects are compared key by key; arrays element by element over their common length, then
 * extra elements are added at the end or removed from the end (highest index first, so each
 * index is still valid when its operation runs). A value whose type changes is replaced whole.
 */
export function createJsonPatch(from: unknown, to: unknown): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  diff(from, to, '', operations);
  return operations;
}

function diff(from: unknown, to: unknown, path: string, out: JsonPatchOperation[]): void {
  if (from === to) return;
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diff(from[i], to[i], `${path}/${i}`, out);
    for (let i = from.length - 1; i >= to.length; i--) out.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = from.length; i < to.length; i++) out.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
    return;
  }
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.prototype.hasOwnProperty.call(to, key))
        out.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const key of Object.keys(to)) {
      const child = `${path}/${escapePointerToken(key)}`;
      if (Object.prototype.hasOwnProperty.call(from, key)) diff(from[key], to[key], child, out);
      else out.push({ op: 'add', path: child, value: to[key] });
    }
    return;
  }
  if (!jsonEqual(from, to)) out.push({ op: 'replace', path, value: to });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}
