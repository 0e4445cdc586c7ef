// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Bundles the compiled manager (dist/src/main.js) and everything it imports into one
// file, bundle/main.mjs, so the container image needs neither node_modules nor the
// TypeScript toolchain (kop's CLI, which the image never runs, depends on TypeScript).
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/src/main.js'],
  outfile: 'bundle/main.mjs',
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  sourcemap: true,
  logLevel: 'warning',
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as kopCreateRequire } from 'node:module'; const require = kopCreateRequire(import.meta.url);" },
});
