/**
 * The walk of issue 25 on a real control plane, through the built CLI: a generated project's
 * Widget goes v1alpha1 → v1beta1 → v1 → v1alpha1 dropped. Each new version comes from `kop create
 * api --conversion`; the reader's own edits (the types, the conversion functions, moving the hub
 * with the storage version) are written here. Objects are created at every step, `kop migrate
 * storage` rewrites them at v1 before v1alpha1 goes, and every object reads back whole at v1.
 *
 * The cluster's side is kop/testing's: the CRDs are installed with their conversion patch pointed at
 * the project's own manager (built as `npm run build` builds it, then `node dist/src/main.js` with the serving
 * certificate the control plane made), as cert-manager and the in-cluster Service would.
 * Needs `npm run build` and the control-plane binaries.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { findControlPlaneBinaries, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { formatProjectFile, parseProjectFile } from '../../src/project/project-file.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';
import { storedApiVersions } from '../runtime/migration/helpers.js';

const TIMEOUT = 900_000;
const GROUP = 'shop.example.com';
const CRD = `config/crd/bases/${GROUP}_widgets.yaml`;
const NAMESPACE = 'walk';

/** v1alpha1 called the replica count `size`; v1beta1 and v1 call it `replicas`. */
const FIELD: Record<string, string> = { v1alpha1: 'size', v1beta1: 'replicas', v1: 'replicas' };

const spec = (version: string) => `export interface WidgetSpec {
  /** image to run. */
  image: string;
  /** +optional */
  ${FIELD[version]}?: int32;
}`;

/** The reader's conversion of one spoke: the count renamed where the two versions name it differently. */
const conversion = (hub: string, spoke: string) => `import type { Manager } from 'kop/runtime';
import type { PartialObject } from 'kop/runtime/webhook';
import { widgetType as hubType } from '../../../../api/shop/${hub}/widget.client.js';
import type { Widget as Hub } from '../../../../api/shop/${hub}/widget.types.js';
import { widgetType as spokeType } from '../../../../api/shop/${spoke}/widget.client.js';
import type { Widget as Spoke } from '../../../../api/shop/${spoke}/widget.types.js';

function rename(spec: object | undefined, from: string, to: string): object | undefined {
  if (spec === undefined || from === to) return spec;
  const { [from]: value, ...rest } = spec as Record<string, unknown>;
  return value === undefined ? rest : { ...rest, [to]: value };
}

export function convertTo(spoke: PartialObject<Spoke>): PartialObject<Hub> {
  const spec = rename(spoke.spec, '${FIELD[spoke]}', '${FIELD[hub]}');
  return { ...spoke, apiVersion: '${GROUP}/${hub}', ...(spec ? { spec } : {}) } as PartialObject<Hub>;
}

export function convertFrom(hub: PartialObject<Hub>): PartialObject<Spoke> {
  const spec = rename(hub.spec, '${FIELD[hub]}', '${FIELD[spoke]}');
  return { ...hub, apiVersion: '${GROUP}/${spoke}', ...(spec ? { spec } : {}) } as PartialObject<Spoke>;
}

export function setupWidget${spoke[0]!.toUpperCase()}${spoke.slice(1)}Conversion(manager: Manager): void {
  manager.conversion(hubType).spoke(spokeType, { convertTo, convertFrom }).complete();
}
`;

interface Widget {
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

describe('the API lifecycle walk: v1alpha1 → v1beta1 → v1 → drop v1alpha1', () => {
  let parent: string;
  let project: string;
  let plane: ControlPlane | undefined;
  let rest: RestClient;
  let manager: ResultPromise | undefined;
  /** Every object created, by name: its replica count and image. */
  const made = new Map<string, { image: string; replicas: number }>();

  const run = (file: string, args: string[]) =>
    execa(file, args, {
      cwd: project,
      reject: false,
      env: {
        NO_COLOR: '1',
        CI: 'true',
        ...(plane ? { KUBECONFIG: plane.kubeconfigPath, KUBECTL: findControlPlaneBinaries().kubectl! } : {}),
      },
    });
  const kop = async (args: string[]) => {
    const result = await run('node', [KOP_BIN, ...args]);
    expect(result.exitCode, `kop ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result;
  };
  const edit = async (file: string, change: (text: string) => string) => {
    const full = path.join(project, file);
    const before = await readFile(full, 'utf8');
    const after = change(before);
    expect(after, `${file} unchanged`).not.toBe(before);
    await writeFile(full, after);
  };
  const types = (version: string) => `api/shop/${version}/widget.types.ts`;
  const writeTypes = (version: string) =>
    edit(types(version), (text) =>
      text
        .replace(/export interface WidgetSpec \{[^]*?\n\}/, spec(version))
        .replace(
          "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
          "import type { Condition, int32, ListMeta, ObjectMeta } from 'kop/api';",
        ),
    );
  const STORAGE = ' * +kubebuilder:storageversion\n';
  const ROOT = ' * +kubebuilder:object:root=true\n';

  /**
   * Moves the hub with the storage version, as the reader does today: the conversion of the old
   * hub (PROJECT's webhooks.conversion, the spoke files and their registrations) goes, the
   * storage marker moves, `kop create webhook --conversion` scaffolds the spokes of the new hub,
   * and the reader writes their functions.
   */
  const moveHub = async (from: string, to: string, spokes: string[]) => {
    const file = path.join(project, 'PROJECT');
    const recorded = parseProjectFile(await readFile(file, 'utf8'));
    const oldHub = recorded.resources.find((r) => r.version === from)!;
    for (const spoke of oldHub.webhooks?.spoke ?? []) {
      for (const stale of [
        `src/webhooks/shop/${spoke}/widget.conversion.ts`,
        `test/webhooks/shop/${spoke}/widget.conversion.test.ts`,
        `test/conversions/shop/${spoke}/widget.round-trip.test.ts`,
      ])
        await rm(path.join(project, stale), { force: true });
    }
    delete oldHub.webhooks;
    await writeFile(file, formatProjectFile(recorded));
    await edit('src/webhooks/setup.ts', (text) =>
      text
        .split('\n')
        .filter((line) => !/Widget\w*Conversion\b/.test(line))
        .join('\n'),
    );
    await edit(types(from), (text) => text.replace(STORAGE, ''));
    await edit(types(to), (text) => text.replace(ROOT, ROOT + STORAGE));
    await kop([
      'create',
      'webhook',
      '--group',
      'shop',
      '--version',
      to,
      '--kind',
      'Widget',
      '--conversion',
      '--spoke',
      spokes.join(','),
    ]);
    for (const spoke of spokes)
      await writeFile(path.join(project, `src/webhooks/shop/${spoke}/widget.conversion.ts`), conversion(to, spoke));
  };

  /**
   * `kop generate`, the manager rebuilt and restarted, and the CRD installed with its conversion pointed at it.
   * The build is `npm run build`'s (its prebuild is the `kop generate` above, then `tsc -p tsconfig.build.json`),
   * compiled by the run's one TypeScript compiler (test/helpers/typecheck.ts), which writes dist/ as tsc does:
   * five builds of one project share its declarations instead of parsing them in five tsc processes.
   */
  const deploy = async () => {
    await kop(['generate']);
    const build = await tsc(['-p', 'tsconfig.build.json'], project);
    expect(build.exitCode, build.stdout).toBe(0);
    await stopManager();
    const webhook = plane!.webhook!;
    manager = execa(
      'node',
      [
        'dist/src/main.js',
        '--kubeconfig',
        plane!.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        '--webhook-port',
        String(webhook.port),
        '--webhook-cert-path',
        webhook.certDir,
      ],
      { cwd: project, reject: false, all: true },
    );
    await plane!.reloadWebhooks();
    await plane!.installCRDs(path.join(project, CRD));
    // The apiserver serves the new versions once its CRD handler has seen the update.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  };
  const stopManager = async () => {
    if (manager === undefined) return;
    manager.kill('SIGTERM');
    await manager;
    manager = undefined;
  };

  /** Creates `count` widgets at `version`, retrying while the manager's conversion webhook starts. */
  const createWidgets = async (version: string, count: number) => {
    for (let i = 0; i < count; i++) {
      // Named by the step, so widgets made at one version in two steps do not collide.
      const name = `step${made.size + 1}-${version}`;
      const wanted = { image: `registry.example.com/${name}:1.${i}`, replicas: i + 1 };
      const body = {
        apiVersion: `${GROUP}/${version}`,
        kind: 'Widget',
        metadata: { name },
        spec: { image: wanted.image, [FIELD[version]!]: wanted.replicas },
      };
      for (let attempt = 0; ; attempt++) {
        try {
          await rest.post(`/apis/${GROUP}/${version}/namespaces/${NAMESPACE}/widgets`, body);
          break;
        } catch (error) {
          if (attempt > 60) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      made.set(name, wanted);
    }
  };
  /** Every widget read at `version`, by name, as { image, replicas }; each must be one that was made. */
  const readAll = async (version: string) => {
    const list = await rest.get<{ items: Widget[] }>(`/apis/${GROUP}/${version}/namespaces/${NAMESPACE}/widgets`);
    return new Map(
      list.items.map((item) => [item.metadata.name, { image: item.spec.image, replicas: item.spec[FIELD[version]!] }]),
    );
  };
  const expectAllAt = async (version: string) => {
    expect(await readAll(version)).toEqual(made);
  };

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/runtime/webhook/index.js', 'dist/testing/index.js']);
    ({ parent, project } = await initLinkedProject('walk', 'kop-e2e-walk-'));
    await mkdir(path.join(project, 'config/crd/patches'), { recursive: true });
    await mkdir(path.join(project, 'config/webhook'), { recursive: true });
    plane = await startControlPlane({
      webhooks: {
        paths: [path.join(project, 'config/webhook')],
        conversionPatches: [path.join(project, 'config/crd/patches')],
      },
    });
    rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    await rest.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  }, TIMEOUT);
  afterAll(async () => {
    await stopManager();
    rest?.close();
    await plane?.stop();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'walks every version with objects created at each step, migrates, drops v1alpha1, and loses nothing',
    async () => {
      // v1alpha1: the first version, stored as it is.
      await kop([
        'create',
        'api',
        '--group',
        'shop',
        '--version',
        'v1alpha1',
        '--kind',
        'Widget',
        '--no-controller',
        '--yes',
      ]);
      await writeTypes('v1alpha1');
      await kop(['generate']);
      await plane!.installCRDs(path.join(project, CRD));
      await createWidgets('v1alpha1', 4);
      await expectAllAt('v1alpha1');

      // v1beta1, converting through v1alpha1 (the storage version) as create api scaffolds it.
      const beta = await kop([
        'create',
        'api',
        '--group',
        'shop',
        '--version',
        'v1beta1',
        '--kind',
        'Widget',
        '--no-controller',
        '--conversion',
        '--yes',
      ]);
      expect(beta.stdout).toContain('CREATE src/webhooks/shop/v1beta1/widget.conversion.ts');
      expect(beta.stdout).toContain('Widget v1beta1 converts to and from v1alpha1, the hub');
      await writeTypes('v1beta1');
      await writeFile(
        path.join(project, 'src/webhooks/shop/v1beta1/widget.conversion.ts'),
        conversion('v1alpha1', 'v1beta1'),
      );
      await deploy();
      await createWidgets('v1beta1', 4);
      await expectAllAt('v1beta1');
      await expectAllAt('v1alpha1');
      // Storage (and so the hub) moves to v1beta1; objects written now are stored there.
      await moveHub('v1alpha1', 'v1beta1', ['v1alpha1']);
      await deploy();
      await createWidgets('v1alpha1', 2);
      await expectAllAt('v1beta1');

      // v1, with v1beta1's schema: create api adds it as another spoke of the hub v1beta1.
      const v1 = await kop([
        'create',
        'api',
        '--group',
        'shop',
        '--version',
        'v1',
        '--kind',
        'Widget',
        '--no-controller',
        '--conversion',
        '--yes',
      ]);
      expect(v1.stdout).toContain('Widget v1 converts to and from v1beta1, the hub');
      await writeTypes('v1');
      await writeFile(path.join(project, 'src/webhooks/shop/v1/widget.conversion.ts'), conversion('v1beta1', 'v1'));
      await deploy();
      await createWidgets('v1', 3);
      await moveHub('v1beta1', 'v1', ['v1alpha1', 'v1beta1']);
      await deploy();
      await createWidgets('v1beta1', 2);
      for (const version of ['v1alpha1', 'v1beta1', 'v1']) await expectAllAt(version);
      const storedBefore = new Set((await storedApiVersions(plane!, GROUP, 'widgets')).values());
      expect(storedBefore).toEqual(new Set([`${GROUP}/v1alpha1`, `${GROUP}/v1beta1`, `${GROUP}/v1`]));

      // Every object rewritten at v1, then v1alpha1 and v1beta1 pruned from status.storedVersions.
      const migrate = await kop(['migrate', 'storage']);
      expect(migrate.stdout).toContain(`widgets.${GROUP}: every object is stored at v1`);
      const stored = await storedApiVersions(plane!, GROUP, 'widgets');
      expect(stored.size).toBe(made.size);
      expect(new Set(stored.values())).toEqual(new Set([`${GROUP}/v1`]));

      // v1alpha1 leaves the types, the conversion, PROJECT and the CRD.
      await rm(path.join(project, 'api/shop/v1alpha1'), { recursive: true });
      await rm(path.join(project, 'src/webhooks/shop/v1alpha1'), { recursive: true });
      await rm(path.join(project, 'test/webhooks/shop/v1alpha1'), { recursive: true, force: true });
      await rm(path.join(project, 'test/conversions/shop/v1alpha1'), { recursive: true, force: true });
      await edit('src/webhooks/setup.ts', (text) =>
        text
          .split('\n')
          .filter((line) => !line.includes('V1alpha1Conversion'))
          .join('\n'),
      );
      const file = path.join(project, 'PROJECT');
      const recorded = parseProjectFile(await readFile(file, 'utf8'));
      recorded.resources = recorded.resources.filter((r) => r.version !== 'v1alpha1');
      const hub = recorded.resources.find((r) => r.version === 'v1')!;
      hub.webhooks = { ...hub.webhooks, spoke: ['v1beta1'] };
      await writeFile(file, formatProjectFile(recorded));
      await deploy();
      const crd = await rest.get<{ spec: { versions: { name: string }[] }; status: { storedVersions: string[] } }>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`,
      );
      expect(crd.spec.versions.map((v) => v.name)).toEqual(['v1', 'v1beta1']);
      expect(crd.status.storedVersions).toEqual(['v1']);

      // None lost: every object made at any step reads back whole at v1 (and at v1beta1).
      expect(made.size).toBe(15);
      await expectAllAt('v1');
      await expectAllAt('v1beta1');
    },
    TIMEOUT,
  );
});
