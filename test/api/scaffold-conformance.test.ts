import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { runInit } from '../../src/init/run-init.js';
import { GENERATOR_ANNOTATION } from '../../src/schema/crd.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

/**
 * The acceptance path, checked against controller-gen: `kop create api` in a fresh
 * project, fields added as a user would (int32 with Minimum and default, an enum, a pattern,
 * a Quantity, a map, a list of structs with listType=map, a CEL rule, core types, the scale
 * subresource), `kop generate manifests`; the CRD must equal what controller-gen v0.21.0
 * emits for the Go equivalent in fixtures/scaffold-conformance (same doc comments).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GO_FIXTURE = fileURLToPath(new URL('./fixtures/scaffold-conformance', import.meta.url));
const CONTROLLER_GEN_VERSION = 'v0.21.0';

const haveGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function controllerGen(): string {
  if (process.env.CONTROLLER_GEN) return process.env.CONTROLLER_GEN;
  const dir = path.join(
    process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
    'kop',
    'tools',
    `controller-gen-${CONTROLLER_GEN_VERSION}`,
  );
  try {
    execFileSync(path.join(dir, 'controller-gen'), ['--version'], { stdio: 'ignore' });
  } catch {
    execFileSync('go', ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`], {
      env: { ...process.env, GOBIN: dir },
      stdio: 'ignore',
    });
  }
  return path.join(dir, 'controller-gen');
}

/** The edits a user makes to the scaffolded file; each `from` must be in the scaffold as written. */
const USER_EDITS: Array<{ from: string; to: string }> = [
  {
    from: "import type { Condition, ListMeta, ObjectMeta } from 'kop/api';",
    to: "import type { Condition, ListMeta, ObjectMeta, PodTemplateSpec, Quantity, ResourceRequirements, Toleration, int32 } from 'kop/api';",
  },
  {
    from: '/** RedisClusterSpec is the state of a RedisCluster that its users ask for. */\n',
    to: [
      '/**',
      ' * RedisClusterSpec is the state of a RedisCluster that its users ask for.',
      ` * +kubebuilder:validation:XValidation:rule="self.mode == 'cluster' || !has(self.shards)",message="shards need cluster mode"`,
      ' */',
      '',
    ].join('\n'),
  },
  {
    from: '  foo?: string;\n',
    to: [
      '  foo?: string;',
      '  /**',
      '   * replicas is the number of Redis nodes.',
      '   * +kubebuilder:validation:Minimum=1',
      '   * +kubebuilder:default=3',
      '   */',
      '  replicas?: int32;',
      '  /** mode selects how keys are distributed. */',
      '  mode: RedisMode;',
      '  /**',
      '   * version of Redis to run, e.g. 7.2.',
      '   * +kubebuilder:validation:Pattern=`^\\d+\\.\\d+(\\.\\d+)?$`',
      '   */',
      '  version: string;',
      '  /** memory is the memory limit of each node. */',
      '  memory?: Quantity;',
      '  /** podLabels are added to every pod. */',
      '  podLabels?: Record<string, string>;',
      '  /**',
      '   * shards lists the shards of the key space.',
      '   * +listType=map',
      '   * +listMapKey=name',
      '   */',
      '  shards?: Shard[];',
      '  /** resources of each Redis container. */',
      '  resources?: ResourceRequirements;',
      '  /** template customises the pods. */',
      '  template?: PodTemplateSpec;',
      '  /** tolerations of the pods. */',
      '  tolerations?: Toleration[];',
      '',
    ].join('\n'),
  },
  {
    from: '  conditions?: Condition[];\n',
    to: [
      '  conditions?: Condition[];',
      '  /** replicas is the number of nodes running. */',
      '  replicas?: int32;',
      '  /** selector of the pods, for the scale subresource. */',
      '  selector?: string;',
      '',
    ].join('\n'),
  },
  {
    from: ' * +kubebuilder:subresource:status\n',
    to: ' * +kubebuilder:subresource:status\n * +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector\n',
  },
];

const EXTRA_TYPES = [
  '',
  '/** RedisMode says how the cluster distributes keys. */',
  "export type RedisMode = 'standalone' | 'cluster' | 'sentinel';",
  '',
  '/** Shard is one shard of the key space. */',
  'export interface Shard {',
  '  /** name of the shard. */',
  '  name: string;',
  '  /**',
  '   * weight of the shard when placing keys.',
  '   * +kubebuilder:validation:Minimum=0',
  '   * +kubebuilder:validation:Maximum=100',
  '   */',
  '  weight?: int32;',
  '}',
  '',
].join('\n');

/** A CRD without the generators' version annotations (controller-gen's and kop's), which differ by design. */
function withoutGeneratorAnnotations(crd: { metadata: { annotations?: Record<string, string> } }): unknown {
  const annotations = { ...crd.metadata.annotations };
  delete annotations['controller-gen.kubebuilder.io/version'];
  delete annotations[GENERATOR_ANNOTATION];
  const metadata: Record<string, unknown> = { ...crd.metadata };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  else metadata.annotations = annotations;
  return { ...crd, metadata };
}

describe.skipIf(!haveGo)('scaffolded API conformance with controller-gen (needs Go)', () => {
  it('create api + user fields -> generate manifests equals controller-gen on the Go equivalent', async () => {
    const { dir, cleanup } = await tempDir('demo');
    const goDir = await mkdtemp(path.join(os.tmpdir(), 'kop-scaffold-conformance-'));
    try {
      const context = testContext({ cwd: dir });
      await runInit(
        {
          projectName: 'demo',
          domain: 'example.com',
          owner: 'Demo',
          license: 'none',
          kopSource: 'file:../kop',
          skipInstall: true,
        },
        context,
      );
      await runCreateApi({ group: 'cache', version: 'v1alpha1', kind: 'RedisCluster' }, testContext({ cwd: dir }));
      const typesFile = path.join(dir, 'api/cache/v1alpha1/rediscluster.types.ts');
      let types = await readFile(typesFile, 'utf8');
      for (const edit of USER_EDITS) {
        expect(types, `the scaffold no longer contains ${JSON.stringify(edit.from)}`).toContain(edit.from);
        types = types.replace(edit.from, () => edit.to);
      }
      await writeFile(typesFile, types + EXTRA_TYPES);
      await runGenerate(
        {
          check: false,
          generators: [
            {
              name: 'manifests',
              description: 'CRDs and RBAC',
              load: () => import('../../src/generate/generate-manifests.js'),
            },
          ],
        },
        testContext({ cwd: dir }),
      );
      const kop = parseYaml(
        await readFile(path.join(dir, 'config/crd/bases/cache.example.com_redisclusters.yaml'), 'utf8'),
      );

      await mkdir(path.join(goDir, 'api', 'v1alpha1'), { recursive: true });
      for (const file of ['go.mod', 'go.sum'])
        await copyFile(path.join(ROOT, 'hack', 'core-types', file), path.join(goDir, file));
      for (const file of await readdir(GO_FIXTURE))
        await copyFile(path.join(GO_FIXTURE, file), path.join(goDir, 'api', 'v1alpha1', file));
      execFileSync(controllerGen(), ['crd', 'paths=./...', 'output:crd:dir=out'], { cwd: goDir, stdio: 'pipe' });
      const goCrd = parseYaml(await readFile(path.join(goDir, 'out', 'cache.example.com_redisclusters.yaml'), 'utf8'));

      expect(withoutGeneratorAnnotations(kop)).toEqual(withoutGeneratorAnnotations(goCrd));
    } finally {
      await cleanup();
      await rm(goDir, { recursive: true, force: true });
    }
  }, 600_000);
});
