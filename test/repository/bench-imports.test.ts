import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The benchmarks are plain scripts over dist/: nothing compiles them, so a name the runtime stops
// exporting only shows when someone runs the bench (a dynamic import's missing name is even
// silently undefined). This reads what each one takes from kop's entry points and checks the
// sources still export it.
const benchDir = fileURLToPath(new URL('../../bench/', import.meta.url));
const entryPoints: Record<string, () => Promise<Record<string, unknown>>> = {
  '../dist/runtime/index.js': () => import('../../src/runtime/index.js'),
  '../dist/runtime/builtin/index.js': () => import('../../src/runtime/builtin/index.js'),
  '../dist/runtime/client/index.js': () => import('../../src/runtime/client/index.js'),
  '../dist/runtime/cache/index.js': () => import('../../src/runtime/cache/index.js'),
  '../dist/runtime/queue/index.js': () => import('../../src/runtime/queue/index.js'),
  '../dist/runtime/controller/index.js': () => import('../../src/runtime/controller/index.js'),
  '../dist/runtime/manager/index.js': () => import('../../src/runtime/manager/index.js'),
  '../dist/runtime/webhook/index.js': () => import('../../src/runtime/webhook/index.js'),
  '../dist/testing/index.js': () => import('../../src/testing/index.js'),
};

/** Names a script takes from each kop entry point, by static import or destructured dynamic import. */
function importedNames(source: string): Map<string, string[]> {
  const byModule = new Map<string, string[]>();
  const patterns = [
    /import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g,
    /const\s*\{([^}]*)\}\s*=\s*await\s+import\('([^']+)'\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      const names = match[1]
        .split(',')
        .map((part) =>
          part
            .trim()
            .split(/\s+as\s+|\s*:\s*/)[0]!
            .trim(),
        )
        .filter(Boolean);
      byModule.set(match[2]!, [...(byModule.get(match[2]!) ?? []), ...names]);
    }
  }
  return byModule;
}

describe('benchmarks import only what kop exports', () => {
  it('reads static and destructured dynamic imports', () => {
    const names = importedNames(
      "import { a, b as c } from '../dist/runtime/index.js';\nconst { d, e: f } = await import('../dist/runtime/index.js');\nconst { g } = await import('../dist/testing/index.js');",
    );
    expect(Object.fromEntries(names)).toEqual({
      '../dist/runtime/index.js': ['a', 'b', 'd', 'e'],
      '../dist/testing/index.js': ['g'],
    });
  });

  const scripts = readdirSync(benchDir).filter((file) => file.endsWith('.mjs'));
  it.each(scripts)('%s', async (script) => {
    const source = readFileSync(path.join(benchDir, script), 'utf8');
    for (const [specifier, names] of importedNames(source)) {
      const load = entryPoints[specifier];
      // A bench uses kop through its public entry points only, as an operator would.
      if (specifier.startsWith('../dist/'))
        expect(load, `${script} imports ${specifier}, which is not a public entry point`).toBeDefined();
      if (!load) continue; // node: builtins and other packages
      const exported = await load();
      const missing = names.filter((name) => !(name in exported));
      expect(missing, `${script} imports from ${specifier}`).toEqual([]);
    }
  });
});
