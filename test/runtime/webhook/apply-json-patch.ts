/**
 * A small RFC 6902 applier (add, remove, replace), written apart from the diff under test so a
 * patch is checked by what it does, not by how it looks. Strict as the apiserver's: a path that
 * does not exist, an index out of range, a bad escape all throw.
 */
export function applyJsonPatch(
  document: unknown,
  operations: readonly { op: string; path: string; value?: unknown }[],
): unknown {
  let root = structuredClone(document);
  for (const operation of operations) {
    if (operation.path === '') {
      if (operation.op === 'remove') throw new Error('cannot remove the root');
      root = structuredClone(operation.value);
      continue;
    }
    if (!operation.path.startsWith('/')) throw new Error(`path ${operation.path} does not start with /`);
    const tokens = operation.path
      .slice(1)
      .split('/')
      .map((token) => {
        if (/~[^01]|~$/.test(token)) throw new Error(`bad escape in ${operation.path}`);
        return token.replace(/~1/g, '/').replace(/~0/g, '~');
      });
    const last = tokens.pop()!;
    let parent: unknown = root;
    for (const token of tokens) {
      parent = child(parent, token, operation.path);
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : arrayIndex(last, operation.path);
      if (operation.op === 'add') {
        if (index > parent.length) throw new Error(`index ${index} out of range in ${operation.path}`);
        parent.splice(index, 0, structuredClone(operation.value));
      } else {
        if (index >= parent.length) throw new Error(`index ${index} out of range in ${operation.path}`);
        if (operation.op === 'remove') parent.splice(index, 1);
        else if (operation.op === 'replace') parent[index] = structuredClone(operation.value);
        else throw new Error(`unsupported op ${operation.op}`);
      }
    } else if (typeof parent === 'object' && parent !== null) {
      const object = parent as Record<string, unknown>;
      const exists = Object.prototype.hasOwnProperty.call(object, last);
      if (operation.op === 'add') object[last] = structuredClone(operation.value);
      else if (!exists) throw new Error(`${operation.path} does not exist`);
      else if (operation.op === 'remove') delete object[last];
      else if (operation.op === 'replace') object[last] = structuredClone(operation.value);
      else throw new Error(`unsupported op ${operation.op}`);
    } else throw new Error(`parent of ${operation.path} is not a container`);
  }
  return root;
}

function child(parent: unknown, token: string, path: string): unknown {
  if (Array.isArray(parent)) {
    const index = arrayIndex(token, path);
    if (index >= parent.length) throw new Error(`index out of range in ${path}`);
    return parent[index];
  }
  if (typeof parent === 'object' && parent !== null && Object.prototype.hasOwnProperty.call(parent, token))
    return (parent as Record<string, unknown>)[token];
  throw new Error(`${path}: ${token} does not exist`);
}

function arrayIndex(token: string, path: string): number {
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new Error(`bad array index ${token} in ${path}`);
  return Number(token);
}
