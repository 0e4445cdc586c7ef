/**
 * A deep copy of JSON data (what the apiserver sends and the cache holds): arrays and plain
 * objects are copied member by member; strings, numbers, booleans and null are shared. Anything
 * else a caller put there (a Date, a Map, a class instance) is copied by structuredClone. For
 * JSON data the result equals structuredClone's, several times faster for the objects a
 * reconcile reads from the cache; unlike structuredClone it does not follow cycles, which JSON
 * data cannot have.
 */
export function deepCopy<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = copy((value as Record<string, unknown>)[key]);
    // JSON.parse makes `__proto__` an ordinary key (a ConfigMap may have one); an assignment would
    // set the copy's prototype instead, so that key is defined as the own property it is.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out;
}
