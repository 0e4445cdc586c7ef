import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { KOP_BIN, KOP_ROOT, requireBuilt } from '../helpers/cli-project.js';

/**
 * What `kop --help` loads, so a heavy static import in a command module (or commander pulling in
 * node:child_process again) shows up here rather than as a slower cold start. Needs `npm run build`.
 * The resolve hook writes synchronously: from Node 22 hooks run on a thread of their own, whose
 * asynchronous stderr writes a quickly exiting process can lose.
 */
const RECORD_LOADS = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('import { writeSync } from "node:fs"; export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith("file:")) writeSync(2, "ESM " + r.url + "\\\\n"); return r; }'));
process.on('exit', () => { for (const m of process.moduleLoadList) process.stderr.write('BUILTIN ' + m + '\\n'); });
`;

describe('kop --help cold start', () => {
  it('loads only the CLI, its foundations (base/), command modules and their flag tables, commander, and no node:child_process', async () => {
    requireBuilt();
    const run = await execa(
      'node',
      ['--import', `data:text/javascript,${encodeURIComponent(RECORD_LOADS)}`, KOP_BIN, '--help'],
      { reject: false },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Usage: kop');
    const root = new URL(`file://${KOP_ROOT}`).href;
    const ours = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('ESM '))
      .map((line) => line.slice(4).replace(root, ''))
      .filter((file) => file !== 'bin/kop.js');
    expect(ours.length).toBeGreaterThan(0);
    // Besides base/, cli/ and commands/: the flag tables the commands declare their options from, and the
    // small modules those tables read (flag machinery, where a kind comes from, the plugin names).
    const flagTables = [
      'dist/create-api/create-api-flags.js',
      'dist/create-webhook/create-webhook-flags.js',
      'dist/init/init-flags.js',
      'dist/plugins/deploy-image/deploy-image-flags.js',
      'dist/project/command-flags.js',
      'dist/project/resource-origin.js',
      'dist/plugins/registry.js',
    ];
    for (const file of ours.filter((f) => !flagTables.includes(f)))
      expect(file).toMatch(/^dist\/(base|cli|commands)\/[a-z-]+\.js$/);
    const builtins = run.stderr.split('\n').filter((line) => line.startsWith('BUILTIN '));
    expect(builtins.length).toBeGreaterThan(0);
    expect(builtins.filter((line) => line.includes('child_process'))).toEqual([]);
  });
});
