import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLinkedProject, KOP_BIN, requireBuilt, type CliProject } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';

/**
 * Issue 24, snags 6, 7 and 16, through the built CLI and the generated project's own `npm test`:
 * - one control plane per test run, shared by the reconciler test and every webhook test file;
 * - a required spec field the user adds breaks the scaffold in one place only, the kind's
 *   valid<Kind>() fixture, and filling it in there makes every test pass again;
 * - kinds without spec (only `data`, only `status`), imported with `kop import crd --own` or
 *   written by hand, get reconcilers, webhooks and tests that type-check, lint, build and pass;
 * - so do the server-side-apply reconcilers of `create api --ssa` for kinds without status, with a
 *   status but no conditions, and without spec.
 * Needs `npm run build` and the control-plane binaries (`kop setup-envtest`).
 */
const WITHOUT_SPEC_CRDS = fileURLToPath(new URL('../schema/cases/without-spec/crd.yaml', import.meta.url));
const TIMEOUT = 400_000;
const exec = promisify(execFile);

/**
 * Every process's id, parent and command name, as `ps -eo pid=,ppid=,comm=` lists them. On Linux read
 * from /proc in this process: ten `ps` processes a second, each reading all of /proc, cost seconds of
 * CPU over an `npm test`.
 */
async function processTable(): Promise<{ pid: number; ppid: number; name: string }[]> {
  if (!existsSync('/proc/self/stat')) {
    const { stdout } = await exec('ps', ['-eo', 'pid=,ppid=,comm=']);
    return stdout.split('\n').flatMap((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
      return match ? [{ pid: Number(match[1]), ppid: Number(match[2]), name: match[3]!.trim() }] : [];
    });
  }
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      return []; // exited meanwhile
    }
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so it ends at the last ')'.
    const close = stat.lastIndexOf(')');
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return [{ pid: Number(entry), ppid, name: stat.slice(stat.indexOf('(') + 1, close) }];
  });
}

/** Runs `npm test` in `cwd` and counts the kube-apiserver processes started below it meanwhile. */
async function npmTestCountingApiServers(cwd: string) {
  const child = execa('npm', ['test'], { cwd, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const seen = new Set<number>();
  let done = false;
  const watching = (async () => {
    while (!done) {
      const children = new Map<number, number[]>();
      const names = new Map<number, string>();
      for (const { pid, ppid, name } of await processTable()) {
        names.set(pid, name);
        children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      }
      // Only this run's processes: the descendants of its npm.
      const queue = child.pid === undefined ? [] : [child.pid];
      while (queue.length > 0) {
        const pid = queue.pop()!;
        if (names.get(pid) === 'kube-apiserver') seen.add(pid);
        queue.push(...(children.get(pid) ?? []));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await child;
  done = true;
  await watching;
  return { result, apiServers: seen.size };
}

describe('scaffolded tests for any kind, on one control plane', () => {
  const projects: CliProject[] = [];
  afterAll(async () => {
    for (const { parent } of projects) await rm(parent, { recursive: true, force: true });
  });
  const tools = (project: string) => {
    const run = (file: string, args: string[]) =>
      execa(file, args, { cwd: project, reject: false, stdin: 'ignore', env: { NO_COLOR: '1', CI: 'true' } });
    const ok = async (file: string, args: string[]) => {
      const result = await run(file, args);
      expect(result.exitCode, `${file} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
      return result;
    };
    return { run, ok, kop: (args: string[]) => ok('node', [KOP_BIN, ...args]) };
  };

  it(
    'runs a reconciler test and two webhook tests on one control plane; a required field is filled in in one place',
    async () => {
      requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
      const created = await initLinkedProject('demo', 'kop-e2e-any-kind-');
      projects.push(created);
      const { project } = created;
      const { ok, kop } = tools(project);
      await kop([
        'create',
        'api',
        '--group',
        'batch',
        '--version',
        'v1',
        '--kind',
        'CronJob',
        '--resource',
        '--controller',
      ]);
      await kop([
        'create',
        'webhook',
        '--group',
        'batch',
        '--version',
        'v1',
        '--kind',
        'CronJob',
        '--defaulting',
        '--programmatic-validation',
      ]);

      const first = await npmTestCountingApiServers(project);
      expect(first.result.exitCode, first.result.stdout + first.result.stderr).toBe(0);
      expect(first.result.stdout).toMatch(/cronjob\.controller\.test\.ts/);
      expect(first.result.stdout).toMatch(/cronjob\.defaulter\.test\.ts/);
      expect(first.result.stdout).toMatch(/cronjob\.validator\.test\.ts/);
      expect(first.apiServers).toBe(1);

      // The user gives the spec a required field: tsc names one place, the kind's fixture.
      const types = path.join(project, 'api/batch/v1/cronjob.types.ts');
      await writeFile(
        types,
        (await readFile(types, 'utf8')).replace(
          'export interface CronJobSpec {',
          'export interface CronJobSpec {\n  /** schedule in Cron format. */\n  schedule: string;',
        ),
      );
      await kop(['generate']);
      const broken = await tsc(['-p', 'tsconfig.json', '--noEmit'], project);
      expect(broken.exitCode).not.toBe(0);
      const errors = broken.stdout.split('\n').filter((line) => /error TS/.test(line));
      expect(errors).toEqual([
        expect.stringMatching(
          /^test\/fixtures\/batch\/v1\/cronjob\.ts\(\d+,\d+\): error TS2741: Property 'schedule' is missing/,
        ),
      ]);

      const fixture = path.join(project, 'test/fixtures/batch/v1/cronjob.ts');
      const before = await readFile(fixture, 'utf8');
      expect(before).toContain('spec: {},');
      await writeFile(fixture, before.replace('spec: {},', "spec: { schedule: '*/5 * * * *' },"));
      const fixed = await tsc(['-p', 'tsconfig.json', '--noEmit'], project);
      expect(fixed.exitCode, fixed.stdout).toBe(0);
      const second = await npmTestCountingApiServers(project);
      expect(second.result.exitCode, second.result.stdout + second.result.stderr).toBe(0);
      expect(second.apiServers).toBe(1);
      await ok('npm', ['run', 'lint']);
    },
    TIMEOUT,
  );

  /**
   * The kinds without spec (imported and hand-written) and the --ssa reconcilers share one project: what each
   * scaffolds is checked on its own, then the project builds, lints and passes all their tests in one run.
   */
  describe('kinds without spec, status or conditions, in one project', () => {
    let project: string;
    beforeAll(async () => {
      const created = await initLinkedProject('settings', 'kop-e2e-any-kind-');
      projects.push(created);
      ({ project } = created);
    }, TIMEOUT);

    it(
      'owns kinds without spec, imported (only data, only status) and hand-written (only data)',
      async () => {
        const { kop } = tools(project);
        await kop(['import', 'crd', '--own', WITHOUT_SPEC_CRDS]);
        await mkdir(path.join(project, 'api/notes/v1'), { recursive: true });
        await writeFile(
          path.join(project, 'api/notes/v1/note.types.ts'),
          [
            '// +groupName=notes.example.com',
            '// +versionName=v1',
            '',
            "import type { ListMeta, ObjectMeta } from 'kop/api';",
            '',
            '/**',
            ' * Note is plain data, as a ConfigMap is.',
            ' * +kubebuilder:object:root=true',
            ' */',
            'export interface Note {',
            '  apiVersion?: string;',
            '  kind?: string;',
            '  metadata?: ObjectMeta;',
            "  /** data is the note's text by key. */",
            '  data: Record<string, string>;',
            '}',
            '',
            '/**',
            ' * NoteList is a list of Note.',
            ' * +kubebuilder:object:root=true',
            ' */',
            'export interface NoteList {',
            '  apiVersion?: string;',
            '  kind?: string;',
            '  metadata?: ListMeta;',
            '  items: Note[];',
            '}',
            '',
          ].join('\n'),
        );
        for (const [group, kind] of [
          ['settings', 'Setting'],
          ['settings', 'Probe'],
          ['notes', 'Note'],
        ] as const) {
          await kop([
            'create',
            'api',
            '--group',
            group,
            '--version',
            'v1',
            '--kind',
            kind,
            '--resource=false',
            '--controller',
          ]);
          await kop([
            'create',
            'webhook',
            '--group',
            group,
            '--version',
            'v1',
            '--kind',
            kind,
            '--defaulting',
            '--programmatic-validation',
          ]);
        }
        // The hand-written kind has a required map: its fixture carries it, so the scaffold compiles as written.
        expect(await readFile(path.join(project, 'test/fixtures/notes/v1/note.ts'), 'utf8')).toContain('data: {},');
        // A reconciler of a kind without status conditions reports none.
        expect(await readFile(path.join(project, 'src/controllers/setting.controller.ts'), 'utf8')).not.toContain(
          'setCondition',
        );
        expect(await readFile(path.join(project, 'src/controllers/probe.controller.ts'), 'utf8')).toContain(
          'setCondition',
        );
      },
      TIMEOUT,
    );

    it(
      'scaffolds server-side-apply reconcilers (--ssa) for kinds without status, without conditions, without spec',
      async () => {
        const { kop } = tools(project);
        // The root of a types file written by hand; `members` are its fields besides apiVersion, kind and metadata.
        const typesOf = (kind: string, members: string[], declarations: string[], statusSubresource: boolean) =>
          [
            "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
            '',
            ...declarations,
            '',
            '/**',
            ` * ${kind} is written by hand.`,
            ' * +kubebuilder:object:root=true',
            ...(statusSubresource ? [' * +kubebuilder:subresource:status'] : []),
            ' */',
            `export interface ${kind} {`,
            '  apiVersion?: string;',
            '  kind?: string;',
            '  metadata?: ObjectMeta;',
            ...members.map((member) => `  ${member}`),
            '}',
            '',
            '/**',
            ` * ${kind}List is a list of ${kind}.`,
            ' * +kubebuilder:object:root=true',
            ' */',
            `export interface ${kind}List {`,
            '  apiVersion?: string;',
            '  kind?: string;',
            '  metadata?: ListMeta;',
            `  items: ${kind}[];`,
            '}',
            '',
            '/** Keeps the import used whatever the kind declares. */',
            `export type ${kind}Condition = Condition;`,
            '',
          ].join('\n');
        const kinds = {
          // No spec, no status: plain data, as a ConfigMap.
          Flag: typesOf('Flag', ['/** data is the flag by key. */', 'data: Record<string, string>;'], [], false),
          // A spec (with a required field) and a status without conditions.
          Gauge: typesOf(
            'Gauge',
            ['spec: GaugeSpec;', 'status?: GaugeStatus;'],
            [
              '/** GaugeSpec is what a Gauge measures. */',
              'export interface GaugeSpec {',
              '  /** target names what is measured. */',
              '  target: string;',
              '}',
              '/** GaugeStatus is what a Gauge saw last. */',
              'export interface GaugeStatus {',
              '  /** +optional */',
              '  phase?: string;',
              '}',
            ],
            true,
          ),
          // Only a status, with conditions: the reconciler reports Ready there.
          Beacon: typesOf(
            'Beacon',
            ['/** +optional */', 'status?: BeaconStatus;'],
            [
              '/** BeaconStatus is what a Beacon reports. */',
              'export interface BeaconStatus {',
              '  /**',
              '   * +listType=map',
              '   * +listMapKey=type',
              '   * +optional',
              '   */',
              '  conditions?: Condition[];',
              '}',
            ],
            true,
          ),
        };
        for (const [kind, types] of Object.entries(kinds)) {
          const names = ['--group', 'signals', '--version', 'v1', '--kind', kind];
          await kop(['create', 'api', ...names, '--resource', '--controller=false', '--ssa']);
          await writeFile(path.join(project, `api/signals/v1/${kind.toLowerCase()}.types.ts`), types);
          // The reconciler, scaffolded for the types as they are now; PROJECT's ssa picks the apply reconciler.
          await kop(['create', 'api', ...names, '--resource=false', '--controller']);
        }
        const reconciler = (kind: string) =>
          readFile(path.join(project, `src/controllers/${kind}.controller.ts`), 'utf8');
        for (const kind of ['flag', 'gauge', 'beacon']) expect(await reconciler(kind)).toContain('client.apply(');
        expect(await reconciler('flag')).not.toContain('setCondition');
        expect(await reconciler('gauge')).not.toContain('setCondition');
        expect(await reconciler('beacon')).toContain('statusApplyConfigurationForBeacon');
        // The required spec field is filled in in the kind's fixture.
        expect(await readFile(path.join(project, 'test/fixtures/signals/v1/gauge.ts'), 'utf8')).toContain(
          "spec: { target: '' },",
        );
      },
      TIMEOUT,
    );

    it(
      'both build, type-check under --strict, lint and pass every scaffolded test on one control plane',
      async () => {
        const { ok, kop } = tools(project);
        // `npm run build`: its prebuild `kop generate`, then tsc -p tsconfig.build.json (by the run's one compiler).
        await kop(['generate']);
        const built = await tsc(['-p', 'tsconfig.build.json'], project);
        expect(built.exitCode, built.stdout).toBe(0);
        const checked = await tsc(['-p', 'tsconfig.json', '--strict', '--noEmit'], project);
        expect(checked.exitCode, checked.stdout).toBe(0);
        await ok('npm', ['run', 'lint']);
        const test = await npmTestCountingApiServers(project);
        expect(test.result.exitCode, test.result.stdout + test.result.stderr).toBe(0);
        for (const file of ['setting', 'probe', 'note']) {
          expect(test.result.stdout).toContain(`${file}.controller.test.ts`);
          expect(test.result.stdout).toContain(`${file}.defaulter.test.ts`);
          expect(test.result.stdout).toContain(`${file}.validator.test.ts`);
        }
        for (const file of ['flag', 'gauge', 'beacon'])
          expect(test.result.stdout).toContain(`${file}.controller.test.ts`);
        expect(test.apiServers).toBe(1);
      },
      TIMEOUT,
    );
  });
});
