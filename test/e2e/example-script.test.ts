import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { KOP_ROOT, requireBuilt } from '../helpers/cli-project.js';

/**
 * The README's first command ends in `npm run example`: examples/redis-operator made into a
 * project with the CLI and run by `kop dev --samples` on the embedded control plane. It comes
 * up, applies both samples (one per version, through the webhooks) and reconciles them, and
 * SIGINT stops it leaving neither processes nor its temp folder behind.
 */
describe('npm run example', () => {
  it('runs the example operator on the embedded control plane, reconciling its samples', async () => {
    requireBuilt(['dist/cli/main.js']);
    const child = execa('node', [path.join(KOP_ROOT, 'hack/example.mjs')], {
      cwd: KOP_ROOT,
      reject: false,
      all: true,
      env: { NO_COLOR: '1' },
    });
    let output = '';
    child.all!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 120_000;
    const reconciled = () =>
      /"name":"cache".*"operation":"created"/.test(output) && /"name":"sessions".*"operation":"created"/.test(output);
    while (!reconciled() && Date.now() < deadline && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reconciled(), output).toBe(true);
    expect(output).toMatch(
      /samples applied: rediscluster\.cache\.example\.com\/cache created, rediscluster\.cache\.example\.com\/sessions created/,
    );
    const project = /example project: (\S+)/.exec(output)![1]!;

    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, output).toBe(0);
    expect(existsSync(project)).toBe(false);
    const left = await execa('pgrep', ['-f', project], { reject: false });
    expect(left.stdout).toBe('');
  }, 180_000);
});
