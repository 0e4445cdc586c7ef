// The RedisCluster operator of bench/operator-vs-controller-runtime.mjs written with Node's built-ins
// and nothing else: no kop, no client library, no YAML parser, no metrics library. It does the
// writes kop's scaffolded reconciler and bench/controller-runtime-operator do (read from its own
// cache, finalizer added with an update, removed on deletion, a Ready condition with the observed
// generation written through /status when it changed), one worker, one list and one watch, and
// serves /healthz, /readyz and a /metrics endpoint. What it leaves out (rate limiting, relists on
// error, leader election, logging, metrics beyond a counter) only makes it smaller, so its memory
// is a floor for a Node operator doing this work: the bench reads the RSS aims against it.
// Flags as the other two take them: --kubeconfig, --metrics-bind-address, --health-probe-bind-address.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Agent, request } from 'node:https';

const GROUP_VERSION = 'cache.example.com/v1alpha1';
const COLLECTION = `/apis/${GROUP_VERSION}/redisclusters`;
const FINALIZER = 'cache.example.com/finalizer';

const flags = {};
for (let i = 2; i < process.argv.length; i += 2) flags[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];

/**
 * The current context's server and credentials. kop/testing's kubeconfigs hold one cluster and one
 * user with inline data; reading just those keys spares the operator a YAML parser.
 */
function readKubeconfig(path) {
  const fields = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*(server|certificate-authority-data|client-certificate-data|client-key-data|token):\s*(\S+)/.exec(
      line,
    );
    if (match && fields[match[1]] === undefined) fields[match[1]] = match[2].replace(/^["']|["']$/g, '');
  }
  const decode = (data) => (data === undefined ? undefined : Buffer.from(data, 'base64'));
  return {
    server: new URL(fields.server),
    ca: decode(fields['certificate-authority-data']),
    cert: decode(fields['client-certificate-data']),
    key: decode(fields['client-key-data']),
    token: fields.token,
  };
}

const config = readKubeconfig(flags.kubeconfig);
const agent = new Agent({ keepAlive: true, ca: config.ca, cert: config.cert, key: config.key });
const headers = { accept: 'application/json', ...(config.token ? { authorization: `Bearer ${config.token}` } : {}) };

/** Starts a request to the apiserver; `onResponse` gets the response stream. */
function send(method, path, body, onResponse) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const req = request(
    {
      agent,
      host: config.server.hostname,
      port: config.server.port,
      method,
      path,
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    },
    onResponse,
  );
  return req.end(payload);
}

/** One request, its JSON answer; a status of 300 or more rejects with that status. */
function api(method, path, body) {
  return new Promise((resolve, reject) => {
    send(method, path, body, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        res.statusCode < 300
          ? resolve(JSON.parse(text))
          : reject(Object.assign(new Error(`${method} ${path}: ${res.statusCode}`), { status: res.statusCode })),
      );
    }).on('error', reject);
  });
}

// ---- the cache: one list, then one watch from its resourceVersion ------------------------------
const cache = new Map();
const keyOf = (object) => `${object.metadata.namespace}/${object.metadata.name}`;
function store(object) {
  delete object.metadata.managedFields;
  cache.set(keyOf(object), object);
}

async function listAndWatch() {
  const list = await api('GET', COLLECTION);
  for (const item of list.items) {
    store(item);
    enqueue(keyOf(item));
  }
  watchFrom(list.metadata.resourceVersion);
}

function watchFrom(resourceVersion) {
  let last = resourceVersion;
  send('GET', `${COLLECTION}?watch=1&allowWatchBookmarks=true&resourceVersion=${last}`, undefined, (res) => {
    let pending = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      pending += chunk;
      let end;
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (line.length === 0) continue;
        const event = JSON.parse(line);
        if (event.type === 'ERROR') continue; // an expired resourceVersion: the end of the stream relists
        last = event.object.metadata.resourceVersion;
        if (event.type === 'BOOKMARK') continue;
        if (event.type === 'DELETED') cache.delete(keyOf(event.object));
        else store(event.object);
        enqueue(keyOf(event.object));
      }
    });
    // The apiserver ends a watch after some minutes: go on from the last version seen.
    res.on('end', () => (res.statusCode === 200 ? watchFrom(last) : listAndWatch()));
  }).on('error', () => setTimeout(() => watchFrom(last), 1000));
}

// ---- the work queue: each key once, never two reconciles of one key at a time, one worker ------
const queued = new Set();
let working;
let reconciles = 0;
function enqueue(key) {
  queued.add(key);
  if (working === undefined) work();
}
async function work() {
  while (queued.size > 0) {
    const [key] = queued;
    queued.delete(key);
    working = key;
    try {
      await reconcile(key);
    } catch {
      // A conflict or a failed request: retry after a short pause (an informer event may requeue it first).
      setTimeout(() => enqueue(key), 10);
    }
    reconciles++;
  }
  working = undefined;
}

// ---- the reconciler ------------------------------------------------------------------------------
async function reconcile(key) {
  const cached = cache.get(key);
  if (cached === undefined) return;
  let object = JSON.parse(JSON.stringify(cached));
  const path = `/apis/${GROUP_VERSION}/namespaces/${object.metadata.namespace}/redisclusters/${object.metadata.name}`;
  const finalizers = object.metadata.finalizers ?? [];
  if (object.metadata.deletionTimestamp !== undefined) {
    if (finalizers.includes(FINALIZER)) {
      object.metadata.finalizers = finalizers.filter((f) => f !== FINALIZER);
      await api('PUT', path, object);
    }
    return;
  }
  if (!finalizers.includes(FINALIZER)) {
    object.metadata.finalizers = [...finalizers, FINALIZER];
    object = await api('PUT', path, object);
  }
  const generation = object.metadata.generation;
  const wanted = {
    type: 'Ready',
    status: 'True',
    reason: 'Reconciled',
    message: `RedisCluster is reconciled at generation ${generation}`,
    observedGeneration: generation,
  };
  const conditions = object.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === 'Ready');
  if (
    current !== undefined &&
    current.status === wanted.status &&
    current.reason === wanted.reason &&
    current.message === wanted.message &&
    current.observedGeneration === wanted.observedGeneration
  )
    return;
  const lastTransitionTime =
    current?.status === wanted.status ? current.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  object.status = {
    ...object.status,
    conditions: [...conditions.filter((c) => c.type !== 'Ready'), { ...wanted, lastTransitionTime }],
  };
  await api('PUT', `${path}/status`, object);
}

// ---- probes and metrics --------------------------------------------------------------------------
let synced = false;
const listen = (address, handle) => {
  const at = address.lastIndexOf(':');
  return createServer(handle).listen(Number(address.slice(at + 1)), address.slice(0, at) || undefined);
};
const servers = [
  listen(flags['health-probe-bind-address'], (req, res) => {
    const ok = req.url === '/healthz' || (req.url === '/readyz' && synced);
    res.writeHead(ok ? 200 : 503).end(ok ? 'ok' : 'not ready');
  }),
  listen(flags['metrics-bind-address'], (req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      .end(`# TYPE reconcile_total counter\nreconcile_total ${reconciles}\n`),
  ),
];

process.on('SIGTERM', () => {
  for (const server of servers) server.close();
  agent.destroy();
  process.exit(0);
});

listAndWatch().then(
  () => (synced = true),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
