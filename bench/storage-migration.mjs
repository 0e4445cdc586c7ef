// Storage-version migration of OBJECTS (10,000) custom objects on a real control plane (issue 25;
// aim: at most 1.0x the anchor's time). Two identical kinds are filled while v1 is their storage
// version, then both move storage to v2: one is migrated by kop/runtime's migrateStorageVersion
// (what `kop migrate storage` runs), the other by the anchor, a plain paginated loop of GET + PUT
// per object (what a hand-written script does). Printed side by side: wall time, the requests the
// apiserver counted (its apiserver_request_total, by verb), and etcd's own word that every object
// is stored at v2 afterwards. kop is measured at its default (one object at a time, like the
// anchor) and, on a third kind, with 4 at once. One round, in that order.
// Needs `npm run build` and the binaries (`node bin/kop.js setup-envtest`).
import os from 'node:os';
import { RestClient, loadClientConfig, migrateStorageVersion } from '../dist/runtime/client/index.js';
import { startControlPlane } from '../dist/testing/index.js';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const PAGE = 500;
const NS = 'default';
const now = () => Number(process.hrtime.bigint()) / 1e6;

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
};
const crd = (group, storage) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
    versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === storage, schema })),
  },
});

/** Creates OBJECTS gadgets at v1, 16 at a time. */
async function fill(rest, group) {
  let next = 0;
  const worker = async () => {
    while (next < OBJECTS) {
      const i = next++;
      await rest.post(`/apis/${group}/v1/namespaces/${NS}/gadgets`, {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name: `g-${String(i).padStart(6, '0')}` },
        spec: { size: i, tags: ['a', 'b', String(i)] },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function moveStorage(rest, group) {
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`;
  const current = await rest.get(path);
  await rest.put(path, { ...current, spec: crd(group, 'v2').spec });
}

/** The anchor: list a page, then GET and PUT each object of it, one at a time; a 409 re-reads. */
async function plainLoop(rest, group) {
  let token;
  do {
    const page = await rest.get(`/apis/${group}/v2/gadgets`, { limit: PAGE, continue: token });
    for (const item of page.items) {
      const path = `/apis/${group}/v2/namespaces/${item.metadata.namespace}/gadgets/${item.metadata.name}`;
      for (;;) {
        const object = await rest.get(path);
        try {
          await rest.put(path, object);
          break;
        } catch (err) {
          if (err?.code !== 409) throw err;
        }
      }
    }
    token = page.metadata.continue || undefined;
  } while (token);
}

/** apiserver_request_total summed by verb, for one group's gadgets and for CRDs. */
async function requestCounts(rest, group) {
  const text = await rest.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' });
  const counts = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const ours =
      (labels.group === group && labels.resource === 'gadgets') ||
      (labels.resource === 'customresourcedefinitions' && labels.verb !== 'WATCH' && labels.verb !== 'LIST');
    if (!ours) continue;
    const key = labels.resource === 'customresourcedefinitions' ? `CRD ${labels.verb}` : labels.verb;
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

const diff = (after, before) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => v > 0),
  );

/** How many gadgets of a group etcd holds at each apiVersion. */
async function storedVersions(plane, group) {
  const prefix = `/registry/${group}/gadgets/`;
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const res = await fetch(`${plane.etcdUrl}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({
      key: Buffer.from(prefix).toString('base64'),
      range_end: Buffer.from(end).toString('base64'),
    }),
  });
  const counts = {};
  for (const kv of (await res.json()).kvs ?? []) {
    const { apiVersion } = JSON.parse(Buffer.from(kv.value, 'base64').toString());
    counts[apiVersion] = (counts[apiVersion] ?? 0) + 1;
  }
  return counts;
}

const plane = await startControlPlane();
const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
try {
  const runs = [
    { name: 'GET + PUT loop (anchor)', group: 'anchor.bench.kop.dev', run: (g) => plainLoop(rest, g) },
    {
      name: 'kop migrateStorageVersion',
      group: 'kop.bench.kop.dev',
      run: (g) => migrateStorageVersion(rest, `gadgets.${g}`),
    },
    {
      name: 'kop, concurrency 4',
      group: 'kop4.bench.kop.dev',
      run: (g) => migrateStorageVersion(rest, `gadgets.${g}`, { concurrency: 4 }),
    },
  ];
  await plane.installCRDs(runs.map((r) => crd(r.group, 'v1')));
  const filled = now();
  for (const r of runs) await fill(rest, r.group);
  console.log(`filled ${runs.length} x ${OBJECTS} objects at v1 in ${((now() - filled) / 1000).toFixed(1)} s`);
  for (const r of runs) await moveStorage(rest, r.group);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  for (const r of runs) {
    const before = await requestCounts(rest, r.group);
    const start = now();
    await r.run(r.group);
    r.ms = now() - start;
    r.requests = diff(await requestCounts(rest, r.group), before);
    r.stored = await storedVersions(plane, r.group);
  }
  const anchor = runs[0];
  console.log(`\nStorage-version migration of ${OBJECTS} objects (v1 -> v2), one control plane`);
  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  console.log(`date: ${new Date().toISOString()}\n`);
  console.log('run                          time s   ratio   apiserver requests                      stored after');
  for (const r of runs) {
    const requests = Object.entries(r.requests)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    console.log(
      `${r.name.padEnd(28)} ${(r.ms / 1000).toFixed(1).padStart(6)}  ${(r.ms / anchor.ms).toFixed(2).padStart(5)}x   ${requests.padEnd(40)} ${JSON.stringify(r.stored)}`,
    );
  }
} finally {
  rest.close();
  await plane.stop();
}
