import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InvalidConfigurationError, NoConfigurationError, Transport, clientConfigFromString, loadClientConfig } from '../../../src/runtime/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const root = mkdtempSync(path.join(tmpdir(), 'kop-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** Writes a kubeconfig with one context per entry; the first is current unless `current` says otherwise. */
function kubeconfig(entries: { name: string; server: string; token?: string; namespace?: string }[], current?: string): string {
  const file = path.join(root, `kubeconfig-${++n}`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server } })),
      users: entries.map((e) => ({ name: e.name, user: e.token ? { token: e.token } : {} })),
      contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: e.name, namespace: e.namespace } })),
      'current-context': current ?? entries[0]?.name ?? '',
    }),
  );
  return file;
}

/** A home directory, with `withConfig` copied to .kube/config when given. */
function home(withConfig?: string): string {
  const dir = path.join(root, `home-${++n}`);
  mkdirSync(path.join(dir, '.kube'), { recursive: true });
  if (withConfig) copyFileSync(withConfig, path.join(dir, '.kube', 'config'));
  return dir;
}

function serviceAccount(token: string, namespace: string): string {
  const dir = path.join(root, `sa-${++n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'token'), token);
  writeFileSync(path.join(dir, 'namespace'), namespace);
  writeFileSync(path.join(dir, 'ca.crt'), '');
  return dir;
}

const inClusterEnv = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

describe('loadClientConfig: loading order', () => {
  const explicit = kubeconfig([{ name: 'explicit', server: 'https://explicit.example:6443' }]);
  const envA = kubeconfig([{ name: 'a', server: 'https://a.example' }, { name: 'shared', server: 'https://shared-from-a.example' }], 'shared');
  const envB = kubeconfig([{ name: 'shared', server: 'https://shared-from-b.example' }, { name: 'b', server: 'https://b.example', namespace: 'team-b' }], 'b');
  const homeDir = home(kubeconfig([{ name: 'home', server: 'https://home.example' }]));
  const sa = serviceAccount('sa-token', 'operators');

  const cases: { name: string; given: Parameters<typeof loadClientConfig>[0]; want: { server: string; source: string; namespace?: string } }[] = [
    {
      name: 'an explicit kubeconfig wins over everything',
      given: { kubeconfig: explicit, env: { KUBECONFIG: envA, ...inClusterEnv }, homeDir, serviceAccountDir: sa },
      want: { server: 'https://explicit.example:6443', source: 'explicit-kubeconfig' },
    },
    {
      name: 'an explicit server alone',
      given: { server: 'https://flag.example', env: { KUBECONFIG: envA }, homeDir },
      want: { server: 'https://flag.example', source: 'explicit-server' },
    },
    {
      name: 'an explicit server overrides the kubeconfig server',
      given: { kubeconfig: explicit, server: 'https://override.example/' },
      want: { server: 'https://override.example', source: 'explicit-kubeconfig' },
    },
    {
      name: 'KUBECONFIG before ~/.kube/config; several files merge, first one wins per name and for current-context',
      given: { env: { KUBECONFIG: [path.join(root, 'missing'), envA, envB].join(path.delimiter), ...inClusterEnv }, homeDir, serviceAccountDir: sa },
      want: { server: 'https://shared-from-a.example', source: 'KUBECONFIG' },
    },
    {
      name: 'a context from a later KUBECONFIG file can be selected',
      given: { env: { KUBECONFIG: [envA, envB].join(path.delimiter) }, context: 'b' },
      want: { server: 'https://b.example', source: 'KUBECONFIG', namespace: 'team-b' },
    },
    {
      name: '~/.kube/config before in-cluster',
      given: { env: { ...inClusterEnv }, homeDir, serviceAccountDir: sa },
      want: { server: 'https://home.example', source: 'home-kubeconfig' },
    },
    {
      name: 'in-cluster last',
      given: { env: { ...inClusterEnv }, homeDir: home(), serviceAccountDir: sa },
      want: { server: 'https://10.0.0.1:443', source: 'in-cluster', namespace: 'operators' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const config = loadClientConfig(c.given);
      expect({ server: config.server, source: config.source, namespace: config.namespace }).toEqual({ namespace: undefined, ...c.want });
    });
  }

  it('in-cluster authenticates with the mounted token', async () => {
    const config = loadClientConfig({ env: { ...inClusterEnv, KUBERNETES_SERVICE_HOST: 'fd00::1' }, homeDir: home(), serviceAccountDir: serviceAccount('secret-token', 'x') });
    expect(config.server).toBe('https://[fd00::1]:443');
    const transport = new Transport(config);
    expect((await transport.authHeaders()).authorization).toBe('Bearer secret-token');
    transport.close();
  });

  it('a static token becomes a bearer header', async () => {
    const transport = new Transport(loadClientConfig({ kubeconfig: kubeconfig([{ name: 't', server: 'https://t.example', token: 'abc' }]) }));
    expect(await transport.authHeaders()).toEqual({ authorization: 'Bearer abc' });
    transport.close();
  });

  it('fails clearly when nothing applies, never falling back to localhost:8080', () => {
    let err: unknown;
    try {
      loadClientConfig({ env: { KUBECONFIG: path.join(root, 'nope') }, homeDir: home(), serviceAccountDir: path.join(root, 'no-sa') });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NoConfigurationError);
    const message = (err as Error).message;
    expect(message).toContain('KUBECONFIG=');
    expect(message).toContain('.kube/config: no such file');
    expect(message).toContain('KUBERNETES_SERVICE_HOST');
    expect(message).not.toContain('localhost:8080');
  });

  it('names a missing explicit file and an unknown context', () => {
    expect(() => loadClientConfig({ kubeconfig: path.join(root, 'absent') })).toThrow(InvalidConfigurationError);
    expect(() => loadClientConfig({ kubeconfig: explicit, context: 'nope' })).toThrow(/context "nope" not found/);
  });

  it('re-reads a rotated service-account token (after the refresh period, or at once after a 401)', async () => {
    const sa = serviceAccount('first', 'x');
    const transport = new Transport(loadClientConfig({ env: { ...inClusterEnv }, homeDir: home(), serviceAccountDir: sa }));
    expect(transport.hasDynamicCredentials).toBe(true);
    expect((await transport.authHeaders()).authorization).toBe('Bearer first');
    writeFileSync(path.join(sa, 'token'), 'second\n');
    expect((await transport.authHeaders()).authorization).toBe('Bearer first');
    transport.invalidateCredentials();
    expect((await transport.authHeaders()).authorization).toBe('Bearer second');
    transport.close();
    const uncached = new Transport(loadClientConfig({ env: { ...inClusterEnv }, homeDir: home(), serviceAccountDir: sa }), { credentialRefreshMs: 0 });
    writeFileSync(path.join(sa, 'token'), 'third');
    expect((await uncached.authHeaders()).authorization).toBe('Bearer third');
    uncached.close();
  });

  it('resolves relative certificate, key and token-file paths against the kubeconfig directory', () => {
    const dir = path.join(root, `relative-${++n}`);
    mkdirSync(path.join(dir, 'pki'), { recursive: true });
    const file = path.join(dir, 'config');
    writeFileSync(
      file,
      stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://c.example/', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'api.internal' } }],
        users: [{ name: 'u', user: { 'client-certificate': 'pki/client.crt', 'client-key': '/abs/client.key', tokenFile: 'token' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'ns' } }],
        'current-context': 'ctx',
      }),
    );
    const config = loadClientConfig({ kubeconfig: file });
    expect(config).toMatchObject({
      server: 'https://c.example',
      context: 'ctx',
      namespace: 'ns',
      cluster: { name: 'c', caFile: path.join(dir, 'pki/ca.crt'), tlsServerName: 'api.internal', skipTLSVerify: false },
      user: { name: 'u', certFile: path.join(dir, 'pki/client.crt'), keyFile: '/abs/client.key', tokenFile: path.join(dir, 'token') },
    });
  });

  it('names the malformed entry of a kubeconfig', () => {
    const bad = (doc: object): (() => unknown) => () => clientConfigFromString(JSON.stringify(doc));
    expect(bad({ clusters: [{ name: 'c', cluster: {} }] })).toThrow(/clusters\[0\]\.cluster\.server is missing/);
    expect(bad({ users: [{ user: {} }] })).toThrow(/users\[0\]\.name is missing/);
    expect(bad({ contexts: [{ name: 'x', context: { user: 'u' } }] })).toThrow(/contexts\[0\]\.context\.cluster is missing/);
    expect(() => clientConfigFromString('clusters: [')).toThrow(InvalidConfigurationError);
  });
});

// What a user's operator loads: kop/runtime without @kubernetes/client-node (about 65 MB of
// memory), which only exec plugins and auth providers need. A module hook makes loading
// client-node fail in a child process running the built runtime.
describe.skipIf(!existsSync(path.join(ROOT, 'dist/runtime/index.js')))('loading @kubernetes/client-node on demand only', () => {
  const hook = `data:text/javascript,${encodeURIComponent(
    `export async function load(url, context, next) { if (url.includes('/@kubernetes/client-node/')) throw new Error('client-node loaded: ' + url); return next(url, context); }`,
  )}`;
  const run = (script: string): string =>
    execFileSync(process.execPath, ['--input-type=module', '-e', `import { register } from 'node:module'; register(${JSON.stringify(hook)}); ${script}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const runtime = JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/runtime/index.js')).href);

  it('is not needed for tokens, certificates, token files, or a manager', () => {
    const sa = serviceAccount('sa-token', 'ns');
    const tokenConfig = kubeconfig([{ name: 't', server: 'https://t.example', token: 'abc' }]);
    const out = run(`
      const { Manager, RestClient, Transport, loadClientConfig } = await import(${runtime});
      const inCluster = new Transport(loadClientConfig({ env: ${JSON.stringify(inClusterEnv)}, homeDir: ${JSON.stringify(home())}, serviceAccountDir: ${JSON.stringify(sa)} }));
      const token = new Transport(loadClientConfig({ kubeconfig: ${JSON.stringify(tokenConfig)} }));
      const manager = new Manager({ rest: new RestClient(loadClientConfig({ kubeconfig: ${JSON.stringify(tokenConfig)} })), metricsBindAddress: '0', healthProbeBindAddress: '0' });
      console.log((await inCluster.authHeaders()).authorization, (await token.authHeaders()).authorization, typeof manager.start);
      process.exit(0);
    `);
    expect(out.trim()).toBe('Bearer sa-token Bearer abc function');
  });

  it('is loaded when an exec plugin needs it (and so fails under the hook)', () => {
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', '0'], interactiveMode: 'Never' };
    const doc = { clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }], users: [{ name: 'u', user: { exec } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' };
    expect(() =>
      run(`
        const { Transport, clientConfigFromString } = await import(${runtime});
        await new Transport(clientConfigFromString(${JSON.stringify(JSON.stringify(doc))})).authHeaders();
      `),
    ).toThrow(/client-node loaded/);
  });
});
