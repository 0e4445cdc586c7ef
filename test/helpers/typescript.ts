import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

/**
 * The TypeScript compiler API for the tests that build programs, loaded with `require`: typescript
 * is CommonJS, and an ESM import of it makes Node compile its 9 MB once more to detect its module
 * format and scan it for named exports, about 700 ms of CPU on top of the require's 330 (2-core VM,
 * 2026-11-28), in every worker thread of the unit project that imports it. For its types, `import type TS from 'typescript'`.
 */
export const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
