import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * `kop create api --ssa` as a user runs it, through the built CLI: `init` → `create api --ssa`
 * (a namespaced and a cluster-scoped kind) and a plain kind → `generate` (apply configurations
 * for the --ssa kinds only) → `tsc --strict` → `npm test`, which runs the scaffolded reconcilers
 * against a real apiserver (kop/testing) and checks that managedFields name their field manager,
 * plus a test written here that shows what server-side apply buys: a label and a condition set by
 * others survive the reconciler's writes. Needs `npm run build` and `kop setup-envtest` first.
 */
const TIMEOUT = 300_000;

/** A user's test: others' fields survive the reconciler's applies; list-map items merge by key. */
const SEMANTICS_TEST = `import { randomUUID } from 'node:crypto';
import { isConflict, isNotFound, Manager, silentLogger, type Client, type ReconcileContext } from 'kop/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyConfigurationForNavigator, statusApplyConfigurationForNavigator } from '../../api/crew/v1/navigator.apply.js';
import { navigatorType } from '../../api/crew/v1/navigator.client.js';
import { NavigatorReconciler } from '../../src/controllers/navigator.controller.js';

describe('server-side apply keeps what others own', () => {
  const manager = new Manager({ kubeconfig: inject('kubeconfigPath'), metricsBindAddress: '0', healthProbeBindAddress: '0', logger: silentLogger });
  const client = manager.apiReader;
  beforeAll(() => {
    new NavigatorReconciler().setupWithManager(manager);
    manager.start().catch((error: unknown) => {
      throw error;
    });
  });
  afterAll(async () => {
    await manager.stop();
    manager.rest.close();
  });

  it('keeps a label and a condition set by another manager, and merges list-map items by key', async () => {
    const key = { namespace: 'default', name: 'shared' };
    // A user applies the object with a label and two stops (a list map keyed by name).
    await client.apply(
      navigatorType,
      applyConfigurationForNavigator(key.name, key.namespace, {
        metadata: { labels: { team: 'blue' } },
        spec: { foo: 'bar', stops: [{ name: 'lisbon', days: 2 }, { name: 'porto', days: 1 }] },
      }),
      { fieldManager: 'user' },
    );
    // Another controller owns its own condition.
    await client.status().apply(
      navigatorType,
      statusApplyConfigurationForNavigator(key.name, key.namespace, {
        conditions: [{ type: 'Charted', status: 'True', reason: 'Mapped', message: 'by the cartographer', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      }),
      { fieldManager: 'cartographer' },
    );
    const ready = await eventually(async () => {
      const current = await client.get(navigatorType, key);
      return current.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? current : undefined;
    });
    expect(ready.metadata?.labels).toEqual({ team: 'blue' });
    expect(ready.metadata?.finalizers).toEqual([NavigatorReconciler.finalizer]);
    expect(ready.status?.conditions?.map((c) => c.type).sort()).toEqual(['Charted', 'Ready']);
    const managers = (ready.metadata?.managedFields ?? []).map((f) => \`\${f.manager}/\${f.operation}/\${f.subresource ?? ''}\`).sort();
    expect(managers).toEqual(['cartographer/Apply/status', 'navigator-controller/Apply/', 'navigator-controller/Apply/status', 'user/Apply/']);

    // A second manager adds a stop; the user's stops stay, merged by their key.
    const merged = await client.apply(
      navigatorType,
      applyConfigurationForNavigator(key.name, key.namespace, { spec: { stops: [{ name: 'vigo', days: 3 }] } }),
      { fieldManager: 'planner' },
    );
    expect(merged.spec.stops?.map((s) => s.name)).toEqual(['lisbon', 'porto', 'vigo']);

    // The user's next apply leaves porto out: only porto goes, the planner's vigo stays.
    const pruned = await client.apply(
      navigatorType,
      applyConfigurationForNavigator(key.name, key.namespace, { metadata: { labels: { team: 'blue' } }, spec: { foo: 'bar', stops: [{ name: 'lisbon', days: 2 }] } }),
      { fieldManager: 'user' },
    );
    expect(pruned.spec.stops?.map((s) => s.name)).toEqual(['lisbon', 'vigo']);
    await client.delete(navigatorType, key);
    await eventually(() => client.get(navigatorType, key).then(() => false, () => true));
  });

  it('does not bring back an object that a stale cache still shows', async () => {
    const ghost = { namespace: 'default', name: 'ghost' };
    // Without a uid, an apply of a missing object creates it:
    const created = await client.apply(navigatorType, applyConfigurationForNavigator('created-by-apply', 'default', { spec: { foo: 'x' } }), { fieldManager: 'user' });
    expect(created.metadata?.uid).toBeDefined();
    // With one, it is refused; the reconciler's finalizer apply carries the uid it read.
    const refused = await client
      .apply(navigatorType, applyConfigurationForNavigator(ghost.name, ghost.namespace, { metadata: { uid: randomUUID(), finalizers: ['x.example.com/f'] } }), { fieldManager: 'user' })
      .catch((error: unknown) => error);
    expect(isConflict(refused)).toBe(true);

    // A reconcile whose cache still holds an object that no longer exists (no deletionTimestamp yet).
    const stale = Object.create(client, {
      get: { value: async () => ({ apiVersion: 'crew.example.com/v1', kind: 'Navigator', metadata: { ...ghost, uid: randomUUID(), generation: 1 }, spec: {} }) },
    }) as Client;
    const context = { client: stale, logger: silentLogger, signal: new AbortController().signal, controller: 'navigator' } as unknown as ReconcileContext;
    await expect(new NavigatorReconciler().reconcile(ghost, context)).resolves.toBeUndefined();
    const after = await client.get(navigatorType, ghost).catch((error: unknown) => error);
    expect(isNotFound(after)).toBe(true);
  });
});

async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(\`condition not met within \${timeoutMs} ms\`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
`;

describe('kop create api --ssa end to end', () => {
  let parent: string;
  let project: string;
  const run = (file: string, args: string[]) =>
    execa(file, args, { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const kop = (args: string[]) => run('node', [KOP_BIN, ...args]);
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('crew', 'kop-e2e-ssa-'));
  }, TIMEOUT);
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'scaffolds, generates apply configurations, type-checks, and its reconcilers apply against the apiserver',
    async () => {
      const refused = await kop([
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Navigator',
        '--ssa',
        '--resource=false',
        '--controller',
      ]);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toContain('--ssa is recorded with the API types, so it needs --resource');
      expect(existsSync(path.join(project, 'api/crew'))).toBe(false);

      for (const args of [
        // Kubebuilder's spelling, as its testdata script writes it.
        [
          'create',
          'api',
          '--group',
          'crew',
          '--version',
          'v1',
          '--kind',
          'Navigator',
          '--resource',
          '--controller',
          '--ssa',
        ],
        [
          'create',
          'api',
          '--group',
          'crew',
          '--version',
          'v1',
          '--kind',
          'Chart',
          '--namespaced=false',
          '--resource',
          '--controller',
          '--ssa=true',
        ],
        [
          'create',
          'api',
          '--group',
          'crew',
          '--version',
          'v1',
          '--kind',
          'Captain',
          '--resource',
          '--controller',
          '--ssa=false',
        ],
      ]) {
        const created = await kop(args);
        expect(created.exitCode, created.stderr).toBe(0);
      }
      const recorded = (
        parseYaml(await read('PROJECT')) as { resources: { kind: string; api: Record<string, unknown> }[] }
      ).resources;
      expect(Object.fromEntries(recorded.map((r) => [r.kind, r.api.ssa ?? false]))).toEqual({
        Captain: false,
        Chart: true,
        Navigator: true,
      });

      // A list map in the spec, as a user adds one: items keyed by name.
      const typesFile = 'api/crew/v1/navigator.types.ts';
      await writeFile(
        path.join(project, typesFile),
        (await read(typesFile))
          .replace(
            "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
            "import type { Condition, ListMeta, ObjectMeta, int32 } from 'kop/api';",
          )
          .replace(
            '  foo?: string;\n',
            '  foo?: string;\n  /**\n   * Ports of call, one per name.\n   * +listType=map\n   * +listMapKey=name\n   * +optional\n   */\n  stops?: Stop[];\n',
          ) +
          '\n/** A port of call. */\nexport interface Stop {\n  name: string;\n  /** +optional */\n  days?: int32;\n}\n',
      );

      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr + generate.stdout).toBe(0);
      expect(generate.stdout).toContain('CREATE api/crew/v1/navigator.apply.ts');
      expect(generate.stdout).toContain('CREATE api/crew/v1/chart.apply.ts');
      expect(existsSync(path.join(project, 'api/crew/v1/captain.apply.ts'))).toBe(false);
      const applyFile = await read('api/crew/v1/navigator.apply.ts');
      expect(applyFile).toContain('stops?: Array<StopApplyConfiguration & { name: string }>;');
      expect(applyFile).toContain("conditions?: Array<DeepPartial<Condition> & Required<Pick<Condition, 'type'>>>;");
      const check = await kop(['generate', '--check']);
      expect(check.exitCode, check.stderr).toBe(0);

      await writeFile(path.join(project, 'test/controllers/ssa-semantics.test.ts'), SEMANTICS_TEST);
      const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
      // `npm run build` is `kop generate` (its prebuild: run above, and --check says nothing is stale)
      // and then `tsc -p tsconfig.build.json`: that compile, in the run's one TypeScript compiler
      // (test/helpers/typecheck.ts), which writes dist/ as tsc does and reuses the files the
      // type check above parsed.
      const scripts = (JSON.parse(await read('package.json')) as { scripts: Record<string, string> }).scripts;
      expect([scripts.prebuild, scripts.build]).toEqual(['kop generate', 'tsc -p tsconfig.build.json']);
      const build = await tsc(['-p', 'tsconfig.build.json'], project);
      expect(build.exitCode, build.stdout).toBe(0);

      // `npm test` as a user runs it: the scaffolded reconciler tests (with the managedFields
      // check of the --ssa template) and the semantics test above, against the real apiserver.
      const test = await run('npm', ['test']);
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/navigator\.controller\.test\.ts/);
      expect(test.stdout).toMatch(/chart\.controller\.test\.ts/);
      expect(test.stdout).toMatch(/captain\.controller\.test\.ts/);
      expect(test.stdout).toMatch(/ssa-semantics\.test\.ts/);
      expect(test.stdout).not.toMatch(/skipped/);
    },
    TIMEOUT,
  );
});
