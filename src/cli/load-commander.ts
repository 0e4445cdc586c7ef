import Module, { createRequire } from 'node:module';

type Commander = typeof import('commander');

/** Node's CommonJS loader entry point: public in practice (used by many tools), absent from @types/node. */
interface CommonJsLoader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
}

/** Builtins commander requires up front but uses only to run executable subcommands, which kop has none of. */
const DEFERRED_BUILTINS = new Set(['node:child_process', 'child_process']);

/**
 * Loads commander the way that keeps `kop --help` fast (both measured with bench/help-startup.mjs):
 * - through require(): commander is CommonJS, and importing it as ESM adds its esm.mjs wrapper
 *   and Node's scan of its exports;
 * - with node:child_process handed over as a stand-in that loads the real module on first use:
 *   loading child_process costs about as much as the rest of commander.
 */
export function loadCommander(): Commander {
  const loader = Module as unknown as CommonJsLoader;
  // Called below with .call(this, ...): the original loader keeps its `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const load = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    if (DEFERRED_BUILTINS.has(request)) return deferredModule(() => load.call(this, request, parent, isMain) as object);
    return load.call(this, request, parent, isMain);
  };
  try {
    return createRequire(import.meta.url)('commander') as Commander;
  } finally {
    loader._load = load;
  }
}

/** An object that stands for the module `loadModule` returns, loading it on the first property access. */
export function deferredModule<T extends object>(loadModule: () => T): T {
  let loaded: T | undefined;
  const target = () => (loaded ??= loadModule());
  return new Proxy({} as T, {
    get: (_stub, key) => Reflect.get(target(), key),
    has: (_stub, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_stub, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may only report a non-configurable property that its stub has too.
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
