import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLinkedProject, KOP_BIN, KOP_ROOT, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * Conversion of a kind whose spec has a required field (issue 24 snag 7, issue 25 part 2), through
 * the built CLI: two versions, `create webhook --conversion`, `generate`, then the project's own
 * `npm test`: the round-trip test (generated objects, no control plane) and the conversion test
 * through a real apiserver both pass, and the scaffold passes `tsc --strict`. Then the hub gains a
 * field the spoke has not, the conversion is left as scaffolded, and the round-trip test fails
 * naming the path lost. Needs `npm run build` and `kop setup-envtest` first.
 */
const TIMEOUT = 300_000;

/** The scaffolded spec, with a required field and a bounded one. */
const SPEC = `export interface RedisClusterSpec {
  /**
   * image to run.
   * +kubebuilder:validation:MinLength=1
   */
  image: string;
  /**
   * replicas of the cluster.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=9
   * +optional
   */
  replicas?: int32;
}`;

describe('conversion round trip end to end', () => {
  let parent: string;
  let project: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  const edit = async (file: string, change: (text: string) => string) => {
    const full = path.join(project, file);
    const before = await readFile(full, 'utf8');
    const after = change(before);
    expect(after, `${file} unchanged`).not.toBe(before);
    await writeFile(full, after);
  };
  const withSpec = (text: string) =>
    text
      .replace(/export interface RedisClusterSpec \{[^]*?\n\}/, SPEC)
      .replace(
        "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
        "import type { Condition, int32, ListMeta, ObjectMeta } from 'kop/api';",
      );

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('demo', 'kop-e2e-conversion-'));
  }, TIMEOUT);
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'scaffolds conversion for a spec with required fields; its round-trip and apiserver tests pass, and a lossy change fails with the path',
    async () => {
      for (const version of ['v1', 'v1alpha1']) {
        const created = await kop([
          'create',
          'api',
          '--group',
          'cache',
          '--version',
          version,
          '--kind',
          'RedisCluster',
          '--no-controller',
          '--yes',
        ]);
        expect(created.exitCode, created.stderr).toBe(0);
        await edit(`api/cache/${version}/rediscluster.types.ts`, withSpec);
      }
      const webhook = await kop([
        'create',
        'webhook',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'RedisCluster',
        '--conversion',
        '--spoke',
        'v1alpha1',
      ]);
      expect(webhook.exitCode, webhook.stderr).toBe(0);
      expect(webhook.stdout).toMatch(/CREATE test\/conversions\/cache\/v1alpha1\/rediscluster\.round-trip\.test\.ts/);

      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);

      // The project's own tests as a user runs them: the round trip (unit) and the apiserver test (webhooks).
      const test = await run('npm', ['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/rediscluster\.round-trip\.test\.ts/);
      expect(test.stdout).toMatch(/rediscluster\.conversion\.test\.ts/);
      expect(test.stdout).not.toMatch(/skipped/);

      // v1 gains spec.mode; v1alpha1 has no place for it and the conversion is as scaffolded: lossy.
      await edit('api/cache/v1/rediscluster.types.ts', (text) =>
        text.replace(
          '  replicas?: int32;\n}',
          "  replicas?: int32;\n  /** +optional */\n  mode?: 'standalone' | 'cluster';\n}",
        ),
      );
      expect((await kop(['generate'])).exitCode).toBe(0);
      const started = Date.now();
      const lossy = await run(path.join(KOP_ROOT, 'node_modules/.bin/vitest'), ['run', 'test/conversions']);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(lossy.exitCode).toBe(1);
      expect(lossy.stdout + lossy.stderr).toMatch(
        /RedisCluster v1 → v1alpha1 → v1: spec\.mode was lost: it was "(standalone|cluster)"/,
      );
      expect(lossy.stdout + lossy.stderr).toMatch(/object \(v1\):/);
    },
    TIMEOUT,
  );
});
