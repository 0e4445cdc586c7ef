import { createRequire } from 'node:module';

/**
 * ts-morph, loaded on first use (commands that read no TypeScript, and `kop --help`, never pay for
 * it) with `require` rather than `import()`: ts-morph is CommonJS, and an ESM import of it makes
 * Node scan it for named exports first, which cost 740 ms of CPU against the require's 440 (2-core
 * VM, 2026-11-28). Later calls return the loaded module.
 */
export function loadTsMorph(): typeof import('ts-morph') {
  return createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
}
