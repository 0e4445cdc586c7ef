/**
 * Checks that a name, namespace or resource can be one segment of an API path, and returns it
 * percent-encoded. "." and ".." are refused because URL resolution would remove them together
 * with the segment before (`configmaps/..` would address the namespace itself), and "/" and "%"
 * because the apiserver never accepts them in a name; client-go refuses the same values.
 */
export function pathSegment(value: string, what: string): string {
  if (value === '.' || value === '..')
    throw new TypeError(`${what} ${JSON.stringify(value)} is not allowed: it may not be "." or ".."`);
  const bad = /[/%]/.exec(value);
  if (bad) throw new TypeError(`${what} ${JSON.stringify(value)} is not allowed: it may not contain "${bad[0]}"`);
  return encodeURIComponent(value);
}
