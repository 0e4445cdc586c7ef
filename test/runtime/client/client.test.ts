import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isInvalid, isNotFound } from '../../../src/runtime/index.js';
import {
  RestClient,
  isForbidden,
  isGone,
  loadClientConfig,
  retryOnConflict,
} from '../../../src/runtime/client/index.js';
import {
  appsV1DeploymentType,
  coreV1ConfigMapType,
  coreV1NamespaceType,
  coreV1SecretType,
} from '../../../src/runtime/builtin/index.js';
import { clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';
import { DiscoveryClient } from '../../../src/runtime/client/discovery/discovery-client.js';
import { DynamicClient } from '../../../src/runtime/client/dynamic/dynamic-client.js';
import { NoMatchError, RestMapper } from '../../../src/runtime/client/discovery/rest-mapper.js';
import { isBadRequest } from '../../../src/runtime/client/errors/api-error.js';
import { ResourceClient, ScalableResourceClient } from '../../../src/runtime/client/resource/resource-client.js';
import { type ResourceType, type WatchEvent } from '../../../src/runtime/client/resource/options.js';
import { generateClients } from '../../../src/clientgen/generate-clients.js';
import { loadApiModel, type ApiModel } from '../../../src/schema/model.js';
import { buildCrds, formatCrd } from '../../../src/schema/crd.js';
import type { RedisCluster } from '../../clientgen/fixtures/project/api/cache/v1alpha1/rediscluster.types.js';
import { leaseTestControlPlane, restFor, type LeasedControlPlane } from '../controller/helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const repo = path.resolve(here, '../../..');
const fixtureProject = path.join(repo, 'test/clientgen/fixtures/project');
const temps: string[] = [];

/** A RedisCluster resource client in one namespace, over the descriptor `kop generate client` emits for the fixture. */
let redisClusterClient: (rest: RestClient) => { inNamespace(ns: string): ScalableResourceClient<RedisCluster> };

/**
 * Generates the fixture project's RedisCluster descriptor and imports it, with its `kop/runtime`
 * and types imports pointed at this checkout's sources, so these tests drive the generated code.
 */
async function loadGeneratedType(model: ApiModel): Promise<ResourceType<RedisCluster>> {
  const file = generateClients(model).find((f) => f.path.endsWith('/rediscluster.client.ts'))!;
  const source = file.content
    .replace(`from 'kop/runtime'`, `from ${JSON.stringify(path.join(repo, 'src/runtime/index.ts'))}`)
    .replace(
      `from './rediscluster.types.js'`,
      `from ${JSON.stringify(path.join(fixtureProject, 'api/cache/v1alpha1/rediscluster.types.ts'))}`,
    );
  const dir = mkdtempSync(path.join(tmpdir(), 'kop-generated-client-'));
  temps.push(dir);
  const target = path.join(dir, 'rediscluster.client.ts');
  writeFileSync(target, source);
  const mod = (await import(target)) as { redisClusterType: ResourceType<RedisCluster> };
  return mod.redisClusterType;
}

let plane: LeasedControlPlane;
let rest: RestClient;

beforeAll(async () => {
  // Types, CRDs and client all come from the fixture project's API model, as `kop generate` makes them.
  const model = await loadApiModel(fixtureProject);
  const crdDir = mkdtempSync(path.join(tmpdir(), 'kop-client-crds-'));
  temps.push(crdDir);
  for (const generated of buildCrds(model))
    writeFileSync(path.join(crdDir, generated.fileName), formatCrd(generated.crd));
  // Secrets bypass the shared plane's watch cache, so reads from a compacted revision reach etcd and get 410.
  plane = await leaseTestControlPlane();
  // The plane's reset after this file deletes the CRDs again.
  await plane.installCRDs([crdDir]);
  rest = restFor(plane);
  const redisClusterType = await loadGeneratedType(model);
  redisClusterClient = (client) => ({ inNamespace: (ns) => new ScalableResourceClient(client, redisClusterType, ns) });
});

afterAll(async () => {
  rest?.close();
  await plane?.release();
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

let nsCounter = 0;
async function freshNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${++nsCounter}`;
  await new ResourceClient(rest, coreV1NamespaceType).create({ metadata: { name } });
  return name;
}

function redis(name: string, replicas = 1): RedisCluster {
  return { metadata: { name, labels: { app: 'redis' } }, spec: { image: 'redis:7', replicas } };
}

describe('generated typed client: CRUD, status and scale on RedisCluster', () => {
  it('creates, gets, updates, patches, scales and deletes', async () => {
    const ns = await freshNamespace('crud');
    const rc = redisClusterClient(rest).inNamespace(ns);

    const created = await rc.create(redis('alpha', 3));
    expect(created.apiVersion).toBe('cache.example.com/v1alpha1');
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.spec?.replicas).toBe(3);

    const got = await rc.get('alpha');
    expect(got.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

    got.spec = { ...got.spec!, maxMemory: '1Gi' };
    const updated = await rc.update(got);
    expect(updated.spec?.maxMemory).toBe('1Gi');
    expect(updated.metadata?.generation).toBe(2);

    const merged = await rc.patch('alpha', { type: 'merge', patch: { metadata: { labels: { tier: 'cache' } } } });
    expect(merged.metadata?.labels).toEqual({ app: 'redis', tier: 'cache' });

    const jsonPatched = await rc.patch('alpha', {
      type: 'json',
      operations: [
        { op: 'test', path: '/spec/image', value: 'redis:7' },
        { op: 'replace', path: '/spec/image', value: 'redis:7.2' },
      ],
    });
    expect(jsonPatched.spec?.image).toBe('redis:7.2');

    const withStatus = await rc.updateStatus({
      ...jsonPatched,
      status: { replicas: 2, selector: 'app=redis', phase: 'Running' },
    });
    expect(withStatus.status?.phase).toBe('Running');

    const statusPatched = await rc.patchStatus('alpha', { type: 'merge', patch: { status: { phase: 'Scaling' } } });
    expect(statusPatched.status).toMatchObject({ phase: 'Scaling', replicas: 2 });

    const scale = await rc.getScale('alpha');
    expect(scale.spec?.replicas).toBe(3);
    expect(scale.status).toEqual({ replicas: 2, selector: 'app=redis' });
    const scaled = await rc.updateScale('alpha', { ...scale, spec: { replicas: 5 } });
    expect(scaled.spec?.replicas).toBe(5);
    expect((await rc.get('alpha')).spec?.replicas).toBe(5);

    await rc.delete('alpha');
    await expect(rc.get('alpha')).rejects.toSatisfy(isNotFound);
  });

  it('updateStatus does not change spec, and update does not change status', async () => {
    const ns = await freshNamespace('status');
    const rc = redisClusterClient(rest).inNamespace(ns);
    const created = await rc.create(redis('beta', 1));

    const afterStatus = await rc.updateStatus({
      ...created,
      spec: { image: 'changed', replicas: 9 },
      status: { phase: 'Ready', replicas: 1 },
    });
    expect(afterStatus.spec).toEqual({ image: 'redis:7', replicas: 1 });
    expect(afterStatus.status?.phase).toBe('Ready');

    const afterUpdate = await rc.update({
      ...afterStatus,
      spec: { image: 'redis:8', replicas: 1 },
      status: { phase: 'Broken' },
    });
    expect(afterUpdate.spec?.image).toBe('redis:8');
    expect(afterUpdate.status?.phase).toBe('Ready');
  });

  it('deletes with preconditions and deletes collections', async () => {
    const ns = await freshNamespace('delete');
    const rc = redisClusterClient(rest).inNamespace(ns);
    const obj = await rc.create(redis('gamma'));
    const err = await rc.delete('gamma', { preconditions: { uid: 'not-the-uid' } }).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    await rc.delete('gamma', {
      preconditions: { uid: obj.metadata!.uid, resourceVersion: obj.metadata!.resourceVersion },
      propagationPolicy: 'Foreground',
    });
    // Foreground deletion parks the object behind a finalizer for the garbage collector (not run by the test control plane).
    const parked = await rc.get('gamma');
    expect(parked.metadata?.deletionTimestamp).toBeTruthy();
    expect(parked.metadata?.finalizers).toEqual(['foregroundDeletion']);

    for (const name of ['d1', 'd2', 'd3'])
      await rc.create({ ...redis(name), metadata: { name, labels: { batch: name === 'd3' ? 'keep' : 'drop' } } });
    await rc.deleteCollection({ labelSelector: { batch: 'drop' } });
    expect((await rc.list({ labelSelector: 'batch' })).items.map((i) => i.metadata?.name)).toEqual(['d3']);
  });
});

describe('built-in typed clients', () => {
  it('Deployments: scale subresource and strategic merge patch, typed with kop/api', async () => {
    const ns = await freshNamespace('deploy');
    const deploys = new ScalableResourceClient(rest, appsV1DeploymentType, ns);
    const created = await deploys.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'app', image: 'nginx:1' },
              { name: 'sidecar', image: 'busybox' },
            ],
          },
        },
      },
    });
    expect(created.spec?.template.spec?.containers).toHaveLength(2);

    const scale = await deploys.getScale('web');
    expect(scale.spec?.replicas).toBe(1);
    await deploys.updateScale('web', { ...scale, spec: { replicas: 3 } });
    expect((await deploys.get('web')).spec?.replicas).toBe(3);

    // Strategic merge patches merge containers by name instead of replacing the list.
    const patched = await deploys.patch('web', {
      type: 'strategic-merge',
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } } },
    });
    expect(patched.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'app=nginx:2',
      'sidecar=busybox',
    ]);
  });
});

describe('list: selectors and pagination', () => {
  it('pages 250 objects 100 at a time and filters by label and field', async () => {
    const ns = await freshNamespace('paging');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    await Promise.all(
      Array.from({ length: 250 }, (_, i) =>
        cms.create({
          metadata: {
            name: `cm-${String(i).padStart(3, '0')}`,
            labels: { parity: i % 2 === 0 ? 'even' : 'odd', bucket: String(i % 5) },
          },
          data: { i: String(i) },
        }),
      ),
    );

    const sizes: number[] = [];
    let token: string | undefined;
    do {
      const page = await cms.list({ limit: 100, continue: token });
      sizes.push(page.items.length);
      token = page.metadata.continue || undefined;
    } while (token);
    expect(sizes).toEqual([100, 100, 50]);

    const names: string[] = [];
    for await (const cm of cms.listAll({ limit: 100 })) names.push(cm.metadata!.name!);
    expect(names).toHaveLength(250);
    expect(new Set(names).size).toBe(250);

    // A list at an exact resourceVersion pages too: only the first page carries it, since the
    // apiserver refuses a resourceVersion beside a continue token.
    const snapshot = (await cms.list({ limit: 1 })).metadata.resourceVersion!;
    let atSnapshot = 0;
    for await (const cm of cms.listAll({ limit: 100, resourceVersion: snapshot, resourceVersionMatch: 'Exact' })) {
      expect(Number(cm.metadata!.resourceVersion)).toBeLessThanOrEqual(Number(snapshot));
      atSnapshot++;
    }
    expect(atSnapshot).toBe(250);

    expect((await cms.list({ labelSelector: 'parity=even' })).items).toHaveLength(125);
    expect((await cms.list({ labelSelector: { parity: 'odd', bucket: '1' } })).items).toHaveLength(25);
    expect((await cms.list({ labelSelector: 'bucket in (0,1),parity!=odd' })).items).toHaveLength(50);
    const one = await cms.list({ fieldSelector: { 'metadata.name': 'cm-042' } });
    expect(one.items.map((c) => c.data?.i)).toEqual(['42']);

    // Across all namespaces from the un-scoped client.
    const everywhere = await new ResourceClient(rest, coreV1ConfigMapType).list({
      labelSelector: 'parity=even',
      fieldSelector: `metadata.namespace=${ns}`,
      limit: 10,
    });
    expect(everywhere.items).toHaveLength(10);
    expect(everywhere.metadata.continue).toBeTruthy();
  });
});

describe('watch', () => {
  it('sees ADDED, MODIFIED, DELETED in order from a resourceVersion', async () => {
    const ns = await freshNamespace('watch');
    const rc = redisClusterClient(rest).inNamespace(ns);
    const start = await rc.list();
    const ac = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const ev of rc.watch({ resourceVersion: start.metadata.resourceVersion, signal: ac.signal })) {
        if (ev.type === 'BOOKMARK') continue;
        seen.push(`${ev.type}:${ev.object.metadata?.name}:${ev.object.spec?.replicas}`);
        if (ev.type === 'DELETED') ac.abort();
      }
    })();
    const obj = await rc.create(redis('w', 1));
    await rc.update({ ...obj, spec: { ...obj.spec!, replicas: 2 } });
    await rc.delete('w');
    await done;
    expect(seen).toEqual(['ADDED:w:1', 'MODIFIED:w:2', 'DELETED:w:2']);
  });

  it('sends a BOOKMARK when asked', async () => {
    const ns = await freshNamespace('bookmark');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    const list = await cms.list();
    await cms.create({ metadata: { name: 'one' } });
    const two = await cms.create({ metadata: { name: 'two' } });
    const events: string[] = [];
    let bookmark: WatchEvent<unknown> | undefined;
    // A watch-list: the current objects as ADDED, then a BOOKMARK marking the end of the initial state.
    // NotOlderThan the last create, so the initial state is sure to hold both objects.
    for await (const ev of cms.watch({
      allowWatchBookmarks: true,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: two.metadata?.resourceVersion,
    })) {
      events.push(ev.type === 'BOOKMARK' ? 'BOOKMARK' : `${ev.type}:${ev.object.metadata?.name}`);
      if (ev.type === 'BOOKMARK') {
        bookmark = ev;
        break;
      }
    }
    expect(events).toEqual(['ADDED:one', 'ADDED:two', 'BOOKMARK']);
    expect(bookmark?.type === 'BOOKMARK' && bookmark.object.metadata).toMatchObject({
      annotations: { 'k8s.io/initial-events-end': 'true' },
    });
    expect(Number(bookmark?.type === 'BOOKMARK' ? bookmark.object.metadata.resourceVersion : 0)).toBeGreaterThan(
      Number(list.metadata.resourceVersion),
    );
  });

  it('watches across namespaces and ends cleanly on break', async () => {
    const ns = await freshNamespace('watchall');
    const list = await new ResourceClient(rest, coreV1ConfigMapType).list({ limit: 1 });
    const watch = new ResourceClient(rest, coreV1ConfigMapType).watch({
      resourceVersion: list.metadata.resourceVersion,
      fieldSelector: `metadata.namespace=${ns}`,
    });
    await new ResourceClient(rest, coreV1ConfigMapType, ns).create({ metadata: { name: 'x' } });
    for await (const ev of watch) {
      expect(ev.type).toBe('ADDED');
      break;
    }
  });
});

describe('optimistic concurrency', () => {
  it('update with a stale resourceVersion fails with a conflict', async () => {
    const ns = await freshNamespace('stale');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    const v1 = await cms.create({ metadata: { name: 'c' }, data: { a: '1' } });
    await cms.update({ ...v1, data: { a: '2' } });
    const err = await cms.update({ ...v1, data: { a: '3' } }).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((err as ApiError).code).toBe(409);
    expect((err as ApiError).reason).toBe('Conflict');
  });

  it('retryOnConflict with two racing writers ends with both changes applied', async () => {
    const ns = await freshNamespace('race');
    const cms = new ResourceClient(rest, coreV1ConfigMapType, ns);
    await cms.create({ metadata: { name: 'shared' }, data: {} });
    let conflicts = 0;
    // Both writers read before either writes, so one of them must hit a conflict and retry.
    let reads = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((r) => (bothRead = r));
    const writer = (key: string): Promise<void> =>
      retryOnConflict(async (attempt) => {
        if (attempt > 0) conflicts++;
        const cm = await cms.get('shared');
        if (attempt === 0 && ++reads === 2) bothRead();
        if (attempt === 0) await barrier;
        await cms.update({ ...cm, data: { ...cm.data, [key]: 'done' } });
      });
    await Promise.all([writer('first'), writer('second')]);
    expect((await cms.get('shared')).data).toEqual({ first: 'done', second: 'done' });
    expect(conflicts).toBeGreaterThanOrEqual(1);
  });

  it('server-side apply by two field managers conflicts unless forced', async () => {
    const ns = await freshNamespace('ssa');
    const rc = redisClusterClient(rest).inNamespace(ns);
    const mine = await rc.apply(
      { metadata: { name: 'applied' }, spec: { image: 'redis:7', replicas: 1 } },
      { fieldManager: 'alice' },
    );
    expect(mine.spec?.replicas).toBe(1);
    const err = await rc
      .apply({ metadata: { name: 'applied' }, spec: { image: 'redis:7', replicas: 4 } }, { fieldManager: 'bob' })
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((err as ApiError).causes.map((c) => c.field)).toContain('.spec.replicas');
    const forced = await rc.patch('applied', {
      type: 'apply',
      patch: { metadata: { name: 'applied' }, spec: { image: 'redis:7', replicas: 4 } },
      fieldManager: 'bob',
      force: true,
    });
    expect(forced.spec?.replicas).toBe(4);
    const managers = (forced.metadata as { managedFields?: { manager: string }[] }).managedFields?.map(
      (m) => m.manager,
    );
    expect(managers).toEqual(expect.arrayContaining(['alice', 'bob']));
  });
});

describe('field validation and warnings', () => {
  it('reports unknown fields as warnings (Warn) or refuses them (Strict)', async () => {
    const ns = await freshNamespace('warn');
    const warnings: string[] = [];
    const warned = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), {
      onWarning: (w) => warnings.push(w),
    });
    try {
      const spec = { image: 'redis', bogus: 1 } as RedisCluster['spec'];
      const rc = redisClusterClient(warned).inNamespace(ns);
      await rc.create({ metadata: { name: 'lenient' }, spec }, { fieldValidation: 'Warn' });
      expect(warnings).toEqual(['unknown field "spec.bogus"']);
      const strict = await rc
        .create({ metadata: { name: 'strict' }, spec }, { fieldValidation: 'Strict' })
        .catch((e: unknown) => e);
      expect(isBadRequest(strict)).toBe(true);
      expect((strict as ApiError).message).toContain('unknown field "spec.bogus"');
    } finally {
      warned.close();
    }
  });
});

describe('error helpers classify real responses', () => {
  it('404, 409, 422, 403 and 410', async () => {
    const ns = await freshNamespace('errors');
    const rc = redisClusterClient(rest).inNamespace(ns);

    const notFound = await rc.get('nope').catch((e: unknown) => e);
    expect(isNotFound(notFound)).toBe(true);
    expect((notFound as ApiError).code).toBe(404);

    await rc.create(redis('dup'));
    const exists = await rc.create(redis('dup')).catch((e: unknown) => e);
    expect(isAlreadyExists(exists)).toBe(true);
    expect(isConflict(exists)).toBe(false);
    expect((exists as ApiError).code).toBe(409);

    const invalid = await rc
      .create({ metadata: { name: 'bad' }, spec: { image: 'redis', replicas: -1 } })
      .catch((e: unknown) => e);
    expect(isInvalid(invalid)).toBe(true);
    expect((invalid as ApiError).code).toBe(422);
    expect((invalid as ApiError).causes.map((c) => c.field)).toContain('spec.replicas');

    const bob = await plane.addUser({ name: 'bob', groups: ['nobody'] });
    const bobRest = new RestClient(loadClientConfig({ kubeconfig: bob.kubeconfigPath }));
    const forbidden = await redisClusterClient(bobRest)
      .inNamespace(ns)
      .list()
      .catch((e: unknown) => e);
    bobRest.close();
    expect(isForbidden(forbidden)).toBe(true);
    expect((forbidden as ApiError).code).toBe(403);

    const sec = new ResourceClient(rest, coreV1SecretType, ns);
    for (let i = 0; i < 3; i++) await sec.create({ metadata: { name: `s-${i}` } });
    const firstPage = await sec.list({ limit: 1 });
    for (let i = 3; i < 6; i++) await sec.create({ metadata: { name: `s-${i}` } });
    await plane.compactEtcd();
    const goneList = await sec.list({ limit: 1, continue: firstPage.metadata.continue }).catch((e: unknown) => e);
    expect(isGone(goneList)).toBe(true);
    expect((goneList as ApiError).code).toBe(410);
    const goneWatch = await (async () => {
      for await (const ev of sec.watch({ resourceVersion: firstPage.metadata.resourceVersion })) void ev;
    })().catch((e: unknown) => e);
    expect(isGone(goneWatch)).toBe(true);
    expect((goneWatch as ApiError).reason).toBe('Expired');
  });
});

describe('dynamic and discovery clients', () => {
  it('find and read RedisCluster objects by kind', async () => {
    const ns = await freshNamespace('dynamic');
    await redisClusterClient(rest).inNamespace(ns).create(redis('dyn', 2));

    const discovery = new DiscoveryClient(rest);
    const version = await discovery.serverVersion();
    expect(version.gitVersion).toMatch(/^v1\./);
    const groups = await discovery.serverGroups();
    expect(groups.find((g) => g.name === 'cache.example.com')?.preferredVersion).toBe('v1alpha1');
    const resources = await discovery.serverResourcesForGroupVersion('cache.example.com', 'v1alpha1');
    expect(resources.find((r) => r.kind === 'RedisCluster')).toMatchObject({
      resource: 'redisclusters',
      namespaced: true,
      subresources: expect.arrayContaining(['status', 'scale']),
    });

    const dynamic = new DynamicClient(rest);
    const client = await dynamic.forKind({ group: 'cache.example.com', kind: 'RedisCluster' });
    expect(client.type).toMatchObject({ resource: 'redisclusters', namespaced: true, version: 'v1alpha1' });
    const obj = await client.inNamespace(ns).get('dyn');
    expect((obj.spec as { replicas: number }).replicas).toBe(2);
    const all = await client.list({ labelSelector: 'app=redis' });
    expect(all.items.some((i) => i.metadata?.name === 'dyn' && i.metadata.namespace === ns)).toBe(true);

    const byName = await dynamic.mapper.resourceFor({ group: 'cache.example.com', resource: 'rc' });
    expect(byName.kind).toBe('RedisCluster');
    const deployments = await dynamic.mapper.mapping({ group: 'apps', kind: 'Deployment' });
    expect(deployments).toMatchObject({ resource: 'deployments', version: 'v1', namespaced: true });
    const nsMapping = await dynamic.mapper.mapping({ group: '', kind: 'Namespace' });
    expect(nsMapping.namespaced).toBe(false);

    const cm = dynamic.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'ConfigMap').inNamespace(ns);
    const created = await cm.create({ metadata: { name: 'u' }, data: { k: 'v' } });
    expect(created.kind).toBe('ConfigMap');
  });

  it('the REST mapper refreshes on a miss, so a CRD installed later is found', async () => {
    const mapper = new RestMapper(new DiscoveryClient(rest));
    await expect(mapper.mapping({ group: 'late.example.com', kind: 'Widget' })).rejects.toBeInstanceOf(NoMatchError);
    await plane.installCRDs({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.late.example.com' },
      spec: {
        group: 'late.example.com',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        scope: 'Cluster',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const mapping = await mapper.mapping({ group: 'late.example.com', kind: 'Widget' });
    expect(mapping).toMatchObject({ resource: 'widgets', namespaced: false });
  });
});

describe('authentication', () => {
  it('uses the client certificate from an exec plugin, running the plugin once for many requests', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kop-exec-'));
    temps.push(dir);
    const counter = path.join(dir, 'runs');
    const plugin = path.join(dir, 'plugin.cjs');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { clientCertificateData: plane.admin.certData, clientKeyData: plane.admin.keyData },
    };
    writeFileSync(
      plugin,
      `require('node:fs').appendFileSync(${JSON.stringify(counter)}, 'x');\nprocess.stdout.write(${JSON.stringify(JSON.stringify(credential))});\n`,
    );
    const cluster = plane.kubeconfig.clusters[0]!.cluster;
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'plane', cluster }],
      users: [
        {
          name: 'exec-user',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: [plugin],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'exec', context: { cluster: 'plane', user: 'exec-user' } }],
      'current-context': 'exec',
    };
    const execRest = new RestClient(clientConfigFromString(JSON.stringify(kubeconfig)));
    try {
      for (let i = 0; i < 10; i++)
        expect((await new ResourceClient(execRest, coreV1NamespaceType).get('default')).metadata?.name).toBe('default');
    } finally {
      execRest.close();
    }
    expect(readFileSync(counter, 'utf8')).toBe('x');
  });
});
