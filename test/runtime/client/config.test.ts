import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { loadClientConfig } from '../../../src/runtime/client/index.js';
import {
  InvalidConfigurationError,
  NoConfigurationError,
  clientConfigFromString,
} from '../../../src/runtime/client/config/client-config.js';
import { Transport } from '../../../src/runtime/client/rest/transport.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const root = mkdtempSync(path.join(tmpdir(), 'kop-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** Writes a kubeconfig with one context per entry; the first is current unless `current` says otherwise. */
function kubeconfig(
  entries: { name: string; server: string; token?: string; namespace?: string }[],
  current?: string,
): string {
  const file = path.join(root, `kubeconfig-${++n}`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server } })),
      users: entries.map((e) => ({ name: e.name, user: e.token ? { token: e.token } : {} })),
      contexts: entries.map((e) => ({
        name: e.name,
        context: { cluster: e.name, user: e.name, namespace: e.namespace },
      })),
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
  const envA = kubeconfig(
    [
      { name: 'a', server: 'https://a.example' },
      { name: 'shared', server: 'https://shared-from-a.example' },
    ],
    'shared',
  );
  const envB = kubeconfig(
    [
      { name: 'shared', server: 'https://shared-from-b.example' },
      { name: 'b', server: 'https://b.example', namespace: 'team-b' },
    ],
    'b',
  );
  const homeDir = home(kubeconfig([{ name: 'home', server: 'https://home.example' }]));
  const sa = serviceAccount('sa-token', 'operators');

  const cases: {
    name: string;
    given: Parameters<typeof loadClientConfig>[0];
    want: { server: string; source: string; namespace?: string };
  }[] = [
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
      given: {
        env: { KUBECONFIG: [path.join(root, 'missing'), envA, envB].join(path.delimiter), ...inClusterEnv },
        homeDir,
        serviceAccountDir: sa,
      },
      want: { server: 'https://shared-from-a.example', source: 'KUBECONFIG' },
    },
    {
      name: 'a context from a later KUBECONFIG file can be selected',
      given: { env: { KUBECONFIG: [envA, envB].join(path.delimiter) }, context: 'b' },
      want: { server: 'https://b.example', source: 'KUBECONFIG', namespace: 'team-b' },
    },
    {
      name: 'in-cluster before ~/.kube/config, as controller-runtime GetConfig',
      given: { env: { ...inClusterEnv }, homeDir, serviceAccountDir: sa },
      want: { server: 'https://10.0.0.1:443', source: 'in-cluster', namespace: 'operators' },
    },
    {
      name: '~/.kube/config last',
      given: { env: {}, homeDir, serviceAccountDir: sa },
      want: { server: 'https://home.example', source: 'home-kubeconfig' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const config = loadClientConfig(c.given);
      expect({ server: config.server, source: config.source, namespace: config.namespace }).toEqual({
        namespace: undefined,
        ...c.want,
      });
    });
  }

  it('in-cluster authenticates with the mounted token', async () => {
    const config = loadClientConfig({
      env: { ...inClusterEnv, KUBERNETES_SERVICE_HOST: 'fd00::1' },
      homeDir: home(),
      serviceAccountDir: serviceAccount('secret-token', 'x'),
    });
    expect(config.server).toBe('https://[fd00::1]:443');
    const transport = new Transport(config);
    expect((await transport.authHeaders()).authorization).toBe('Bearer secret-token');
    transport.close();
  });

  it('a static token becomes a bearer header', async () => {
    const transport = new Transport(
      loadClientConfig({ kubeconfig: kubeconfig([{ name: 't', server: 'https://t.example', token: 'abc' }]) }),
    );
    expect(await transport.authHeaders()).toEqual({ authorization: 'Bearer abc' });
    // Fixed credentials are there without awaiting (the RestClient's fast path).
    expect(transport.staticAuthHeaders).toEqual({ authorization: 'Bearer abc' });
    transport.close();
  });

  it('fails clearly when nothing applies, never falling back to localhost:8080', () => {
    let err: unknown;
    try {
      loadClientConfig({
        env: { KUBECONFIG: path.join(root, 'nope') },
        homeDir: home(),
        serviceAccountDir: path.join(root, 'no-sa'),
      });
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
    const transport = new Transport(
      loadClientConfig({ env: { ...inClusterEnv }, homeDir: home(), serviceAccountDir: sa }),
    );
    expect(transport.hasDynamicCredentials).toBe(true);
    // A rotating token is never handed out as fixed.
    expect(transport.staticAuthHeaders).toBeUndefined();
    expect((await transport.authHeaders()).authorization).toBe('Bearer first');
    writeFileSync(path.join(sa, 'token'), 'second\n');
    expect((await transport.authHeaders()).authorization).toBe('Bearer first');
    transport.invalidateCredentials();
    expect((await transport.authHeaders()).authorization).toBe('Bearer second');
    transport.close();
    const uncached = new Transport(
      loadClientConfig({ env: { ...inClusterEnv }, homeDir: home(), serviceAccountDir: sa }),
      { credentialRefreshMs: 0 },
    );
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
        clusters: [
          {
            name: 'c',
            cluster: {
              server: 'https://c.example/',
              'certificate-authority': 'pki/ca.crt',
              'tls-server-name': 'api.internal',
            },
          },
        ],
        users: [
          {
            name: 'u',
            user: { 'client-certificate': 'pki/client.crt', 'client-key': '/abs/client.key', tokenFile: 'token' },
          },
        ],
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
      user: {
        name: 'u',
        certFile: path.join(dir, 'pki/client.crt'),
        keyFile: '/abs/client.key',
        tokenFile: path.join(dir, 'token'),
      },
    });
  });

  it("keeps client-node's `token-file` as a path against the kubeconfig directory, re-read when used", async () => {
    const dir = path.join(root, `token-file-${++n}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'token'), 'from-file\n');
    const file = path.join(dir, 'config');
    writeFileSync(
      file,
      stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }],
        users: [{ name: 'u', user: { 'token-file': 'token' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'ctx',
      }),
    );
    const config = loadClientConfig({ kubeconfig: file });
    expect(config.user.tokenFile).toBe(path.join(dir, 'token'));
    expect(config.user.token).toBeFalsy();
    const transport = new Transport(config);
    expect((await transport.authHeaders()).authorization).toBe('Bearer from-file');
    transport.close();
  });

  it('names the malformed entry of a kubeconfig', () => {
    const bad =
      (doc: object): (() => unknown) =>
      () =>
        clientConfigFromString(JSON.stringify(doc));
    expect(bad({ clusters: [{ name: 'c', cluster: {} }] })).toThrow(/clusters\[0\]\.cluster\.server is missing/);
    expect(bad({ users: [{ user: {} }] })).toThrow(/users\[0\]\.name is missing/);
    expect(bad({ contexts: [{ name: 'x', context: { user: 'u' } }] })).toThrow(
      /contexts\[0\]\.context\.cluster is missing/,
    );
    expect(bad({ clusters: [null] })).toThrow(/clusters\[0\] is not a mapping/);
    expect(() => clientConfigFromString('clusters: [')).toThrow(InvalidConfigurationError);
  });

  it('reads YAML as client-go does: merge keys apply, timestamps and octal-looking values stay as written', () => {
    const config = clientConfigFromString(
      [
        'clusters:',
        '- name: c',
        '  cluster: &base',
        '    server: https://c.example',
        '- name: d',
        '  cluster:',
        '    <<: *base',
        '    insecure-skip-tls-verify: true',
        'users:',
        '- name: u',
        '  user:',
        '    token: 2024-01-01T00:00:00Z',
        'contexts:',
        '- name: x',
        '  context: {cluster: d, user: u}',
        'current-context: x',
      ].join('\n'),
    );
    expect(config.server).toBe('https://c.example');
    expect(config.cluster.skipTLSVerify).toBe(true);
    expect(config.user.token).toBe('2024-01-01T00:00:00Z');
  });
});

/** An exec credential plugin (this Node binary running `script`) in a kubeconfig user. */
function execUser(script: string): object {
  return {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: ['-e', script],
      interactiveMode: 'Never',
    },
  };
}

/** A kubeconfig (as text) whose only context uses `user`. */
function kubeconfigWithUser(user: object): string {
  return JSON.stringify({
    clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
}

describe('exec plugins (kop) and token-file auth providers (client-node FileAuth)', () => {
  it('runs an exec plugin again after invalidation even when its credential has not expired', async () => {
    const counter = path.join(root, `exec-runs-${++n}`);
    writeFileSync(counter, '');
    const script = `const fs = require('node:fs'); fs.appendFileSync(${JSON.stringify(counter)}, 'x'); const runs = fs.readFileSync(${JSON.stringify(counter)}, 'utf8').length;
      console.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'run-' + runs, expirationTimestamp: '2999-01-01T00:00:00Z' } }));`;
    const transport = new Transport(clientConfigFromString(kubeconfigWithUser(execUser(script))), {
      credentialRefreshMs: 0,
    });
    expect(transport.hasDynamicCredentials).toBe(true);
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    transport.invalidateCredentials();
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-2');
    transport.close();
  });

  it('reads an auth provider token file, without its trailing newline', async () => {
    const file = path.join(root, `provider-token-${++n}`);
    writeFileSync(file, 'provider-token\n');
    const transport = new Transport(
      clientConfigFromString(kubeconfigWithUser({ 'auth-provider': { name: 'file', config: { tokenFile: file } } })),
    );
    expect((await transport.authHeaders()).authorization).toBe('Bearer provider-token');
    transport.close();
  });
});

// What a user's operator loads: kop/runtime without @kubernetes/client-node's index (about 65 MB
// of memory), which only auth providers such as oidc need; of client-node it loads the small
// modules it uses (kubeconfig entry parsing; FileAuth for a token-file auth provider; exec plugins
// are run by kop itself). A module hook
// in a child process running the built runtime logs each client-node module loaded and makes
// loading any other fail.
describe.skipIf(!existsSync(path.join(ROOT, 'dist/runtime/index.js')))(
  'loading @kubernetes/client-node modules on demand only',
  () => {
    const hook = `data:text/javascript,${encodeURIComponent(
      `import { appendFileSync } from 'node:fs';
     let options;
     export function initialize(data) { options = data; }
     export async function load(url, context, next) {
       const at = url.indexOf('/@kubernetes/client-node/');
       if (at >= 0) {
         const module = url.slice(at + '/@kubernetes/client-node/'.length);
         if (!options.allowed.includes(module)) throw new Error('client-node loaded: ' + module);
         appendFileSync(options.log, module + '\\n');
       }
       return next(url, context);
     }`,
    )}`;
    /** Runs `script` under the hook; returns its output and the client-node modules it loaded. */
    const run = (script: string, allowed: string[]): { out: string; loaded: string[] } => {
      const log = path.join(root, `loaded-${++n}`);
      writeFileSync(log, '');
      const data = JSON.stringify({ log, allowed });
      const out = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { register } from 'node:module'; register(${JSON.stringify(hook)}, { data: ${data} }); ${script}`,
        ],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      return { out, loaded: [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].sort() };
    };
    const runtime = JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/runtime/index.js')).href);
    const runtimeClient = JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/runtime/client/index.js')).href);
    // Transport is internal (RestClient's credentials); its built module is what the manager loads.
    const transportModule = JSON.stringify(
      pathToFileURL(path.join(ROOT, 'dist/runtime/client/rest/transport.js')).href,
    );
    const small = ['dist/config_types.js', 'dist/file_auth.js'];

    it('loads only the kubeconfig entry parser for tokens, certificates, token files, or a manager', () => {
      const sa = serviceAccount('sa-token', 'ns');
      const tokenConfig = kubeconfig([{ name: 't', server: 'https://t.example', token: 'abc' }]);
      const { out, loaded } = run(
        `
      const { Manager } = await import(${runtime});
      const { RestClient, loadClientConfig } = await import(${runtimeClient});
      const { Transport } = await import(${transportModule});
      const inCluster = new Transport(loadClientConfig({ env: ${JSON.stringify(inClusterEnv)}, homeDir: ${JSON.stringify(home())}, serviceAccountDir: ${JSON.stringify(sa)} }));
      const token = new Transport(loadClientConfig({ kubeconfig: ${JSON.stringify(tokenConfig)} }));
      const manager = new Manager({ rest: new RestClient(loadClientConfig({ kubeconfig: ${JSON.stringify(tokenConfig)} })), metricsBindAddress: '0', healthProbeBindAddress: '0' });
      console.log((await inCluster.authHeaders()).authorization, (await token.authHeaders()).authorization, typeof manager.start);
      process.exit(0);
    `,
        ['dist/config_types.js'],
      );
      expect(out.trim()).toBe('Bearer sa-token Bearer abc function');
      expect(loaded).toEqual(['dist/config_types.js']);
    });

    it('runs an exec plugin with no client-node module beyond the entry parser', () => {
      const credential = {
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: 'exec-token' },
      };
      const doc = kubeconfigWithUser(execUser(`console.log(${JSON.stringify(JSON.stringify(credential))})`));
      const { out, loaded } = run(
        `
      const { clientConfigFromString } = await import(${runtimeClient});
      const { Transport } = await import(${transportModule});
      console.log((await new Transport(clientConfigFromString(${JSON.stringify(doc)})).authHeaders()).authorization);
    `,
        ['dist/config_types.js'],
      );
      expect(out.trim()).toBe('Bearer exec-token');
      expect(loaded).toEqual(['dist/config_types.js']);
    });

    it('loads the index for an auth provider such as oidc (and so fails under the hook)', () => {
      const doc = kubeconfigWithUser({
        'auth-provider': {
          name: 'oidc',
          config: { 'client-id': 'kop', 'id-token': 'x', 'idp-issuer-url': 'https://issuer.invalid' },
        },
      });
      expect(() =>
        run(
          `
        const { clientConfigFromString } = await import(${runtimeClient});
      const { Transport } = await import(${transportModule});
        await new Transport(clientConfigFromString(${JSON.stringify(doc)})).authHeaders();
      `,
          small,
        ),
      ).toThrow(/client-node loaded: dist\/index\.js/);
    });
  },
);

describe('loadClientConfig: TLS verification', () => {
  const insecure = (extra: string): string => {
    const file = path.join(root, `insecure-${++n}`);
    writeFileSync(
      file,
      `apiVersion: v1\nclusters:\n- name: c\n  cluster:\n    server: https://c.example\n    insecure-skip-tls-verify: true\n${extra}contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\nusers:\n- name: u\n  user: {}\n`,
    );
    return file;
  };

  it('refuses insecure-skip-tls-verify together with a certificate authority, as client-go does', () => {
    expect(() => loadClientConfig({ kubeconfig: insecure('    certificate-authority-data: Zm9v\n'), env: {} })).toThrow(
      /insecure-skip-tls-verify together with a certificate authority/,
    );
    expect(() =>
      loadClientConfig({ kubeconfig: insecure('    certificate-authority: /etc/ca.crt\n'), env: {} }),
    ).toThrow(/remove one of them/);
  });

  it('warns once per process when verification is off', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }): void =>
      void (warning.code === 'KOP_INSECURE_TLS' && warnings.push(warning.message));
    process.on('warning', onWarning);
    try {
      // A fresh copy of the module: whether this worker warned already is not this test's business.
      vi.resetModules();
      const fresh = await import('../../../src/runtime/client/config/client-config.js');
      fresh.loadClientConfig({ kubeconfig: insecure(''), env: {} });
      fresh.loadClientConfig({ kubeconfig: insecure(''), env: {} });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([
        'cluster "c" is used with insecure-skip-tls-verify: the apiserver\'s certificate is not checked',
      ]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
