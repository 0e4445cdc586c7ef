/**
 * What `npm publish` would ship, from `npm pack --dry-run --json`: the CLI (bin/), the compiled
 * code with its types (dist/), the templates, the envtest build modules, README and package.json;
 * never kop's TypeScript sources, tests, benchmarks, the book or the example. The size bound keeps
 * an accidental addition (a cache, a build output) from slipping into the package: measured on
 * 2026-11-27, 1.03 MB packed and 4.08 MB unpacked in 839 files; the bounds leave about a third more.
 * An e2e test because it runs npm (the unit project forbids it).
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface PackResult {
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

describe('the published package', () => {
  it('ships the CLI, the compiled code, the templates and the README, and nothing else', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: repo,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [pack] = JSON.parse(stdout) as PackResult[];
    const files = pack!.files.map((file) => file.path);

    const allowed = /^(bin\/|dist\/|templates\/|envtest\/|README\.md$|LICENSE$|package\.json$)/;
    expect(files.filter((file) => !allowed.test(file))).toEqual([]);
    // TypeScript sources only as declarations; templates are .hbs, so a plain .ts is a leak.
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => /^(src|test|docs|bench|examples|hack)\//.test(file))).toEqual([]);

    expect(files).toContain('bin/kop.js');
    expect(files).toContain('README.md');
    expect(files).toContain('templates/init/package.json.hbs');
    // Every entry point package.json exports is in the package, with its types.
    const manifest = (await import(path.join(repo, 'package.json'), { with: { type: 'json' } })) as {
      default: { exports: Record<string, string | { types: string; default: string }> };
    };
    for (const [subpath, target] of Object.entries(manifest.default.exports)) {
      const targets = typeof target === 'string' ? [target] : [target.types, target.default];
      for (const file of targets) expect(files, `${subpath}: ${file}`).toContain(file.replace(/^\.\//, ''));
    }

    expect(pack!.size).toBeLessThan(1_400_000);
    expect(pack!.unpackedSize).toBeLessThan(5_500_000);
    expect(pack!.entryCount).toBeLessThan(1_150);
  });
});
