// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Bundles the compiled manager (dist/src/main.js) and everything it imports into bundle/, so
// the container image needs neither node_modules nor the TypeScript toolchain (kop's CLI, which
// the image never runs, depends on TypeScript). bundle/main.mjs is the entry point; what the
// manager imports only on demand (for example @kubernetes/client-node's whole library, which
// only the oidc, azure and gcp auth providers need) goes into files of its own, loaded when
// used: in main.mjs, V8 would keep its 16 MB of source in memory in every operator.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('bundle', { recursive: true, force: true });
await build({
  entryPoints: ['dist/src/main.js'],
  outdir: 'bundle',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  sourcemap: true,
  logLevel: 'warning',
  // Some dependencies are CommonJS and call require(); give each ES module of the bundle one.
  banner: {
    js: "import { createRequire as kopCreateRequire } from 'node:module'; const require = kopCreateRequire(import.meta.url);",
  },
});
