import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InvalidConfigurationError, NoConfigurationError, Transport, loadClientConfig } from '../../../src/runtime/index.js';

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
});
