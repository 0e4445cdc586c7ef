import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { loadClientConfig } from '../../../src/runtime/client/index.js';
import {
  ExecCredentialProvider,
  ExecPluginError,
  parseExecCredential,
} from '../../../src/runtime/client/config/exec-credential.js';
import { InvalidConfigurationError, clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';
import { Transport } from '../../../src/runtime/client/rest/transport.js';
import { type KubeconfigExecConfig } from '../../../src/runtime/client/config/kubeconfig.js';

const root = mkdtempSync(path.join(tmpdir(), 'kop-exec-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

/**
 * A credential plugin as a real script, steered by the variables of its `env` entries (so the
 * tests also show that those reach it): it counts its runs in RUNS_FILE, writes what it was
 * given (its environment, KUBERNETES_EXEC_INFO) to DUMP_FILE, waits SLEEP_MS, then prints what
 * PLUGIN_MODE says.
 */
const pluginScript = path.join(root, 'plugin.mjs');
writeFileSync(
  pluginScript,
  `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const env = process.env;
let runs = 1;
if (env.RUNS_FILE) { appendFileSync(env.RUNS_FILE, 'x'); runs = readFileSync(env.RUNS_FILE, 'utf8').length; }
if (env.DUMP_FILE) writeFileSync(env.DUMP_FILE, JSON.stringify({ env, argv: process.argv.slice(2) }));
if (env.SLEEP_MS) await new Promise((resolve) => setTimeout(resolve, Number(env.SLEEP_MS)));
const apiVersion = env.PRINT_API_VERSION ?? JSON.parse(env.KUBERNETES_EXEC_INFO).apiVersion;
const print = (status, extra = {}) => console.log(JSON.stringify({ apiVersion, kind: 'ExecCredential', ...extra, status }));
const expirationTimestamp = env.EXPIRES_IN_MS ? new Date(Date.now() + Number(env.EXPIRES_IN_MS)).toISOString() : undefined;
switch (env.PLUGIN_MODE ?? 'token') {
  case 'token': print({ token: 'run-' + runs, expirationTimestamp }); break;
  case 'fail': process.stderr.write('login required: ' + 'x'.repeat(Number(env.STDERR_PAD ?? 0)) + ' run kop-login first\\n'); process.exit(3);
  case 'garbage': console.log('Please log in at https://example.invalid'); break;
  case 'nothing': break;
  case 'cert-only': print({ clientCertificateData: '-----BEGIN CERTIFICATE-----' }); break;
  case 'key-only': print({ clientKeyData: '-----BEGIN PRIVATE KEY-----' }); break;
  case 'bad-cert': print({ clientCertificateData: 'not a certificate', clientKeyData: 'not a key' }); break;
  case 'empty-status': print({}); break;
  case 'no-status': console.log(JSON.stringify({ apiVersion, kind: 'ExecCredential' })); break;
  case 'wrong-kind': console.log(JSON.stringify({ apiVersion, kind: 'Credential', status: { token: 't' } })); break;
  case 'bad-expiry': print({ token: 't', expirationTimestamp: 'tomorrow' }); break;
}
`,
);

let n = 0;
function tempFile(name: string): string {
  return path.join(root, `${name}-${++n}`);
}

/** An exec entry running the plugin script with these variables. */
function plugin(
  vars: Record<string, string> = {},
  overrides: Partial<KubeconfigExecConfig> = {},
): KubeconfigExecConfig {
  return {
    apiVersion: V1,
    command: process.execPath,
    args: [pluginScript],
    env: Object.entries(vars).map(([name, value]) => ({ name, value })),
    interactiveMode: 'Never',
    ...overrides,
  };
}

/** A kubeconfig (as text) whose current context's user is `user` on `cluster`. */
function kubeconfigText(user: object, cluster: object = { server: 'https://c.example' }): string {
  return JSON.stringify({
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
}

function transportFor(exec: KubeconfigExecConfig): Transport {
  return new Transport(clientConfigFromString(kubeconfigText({ exec })));
}

function runsOf(file: string): number {
  return readFileSync(file, 'utf8').length;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('exec credential plugins: what the plugin is given', () => {
  it('passes the exec env to the plugin on top of a copy of the process environment, and leaves process.env alone', async () => {
    const before = { ...process.env };
    const dump = tempFile('dump');
    const transport = transportFor(
      plugin(
        { DUMP_FILE: dump, KOP_PLUGIN_GREETING: 'hello', PATH: '/plugin/path' },
        { args: [pluginScript, '--flag', 'a b;c'] },
      ),
    );
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    transport.close();
    const seen = JSON.parse(readFileSync(dump, 'utf8')) as { env: Record<string, string>; argv: string[] };
    expect(seen.env.KOP_PLUGIN_GREETING).toBe('hello');
    // An exec env entry replaces a variable of the same name, for the plugin only.
    expect(seen.env.PATH).toBe('/plugin/path');
    expect(seen.env.HOME).toBe(process.env.HOME);
    // Arguments arrive as given: no shell splits or interprets them.
    expect(seen.argv).toEqual(['--flag', 'a b;c']);
    expect(process.env.KOP_PLUGIN_GREETING).toBeUndefined();
    expect(process.env.KUBERNETES_EXEC_INFO).toBeUndefined();
    expect(process.env).toEqual(before);
  });

  it('sends KUBERNETES_EXEC_INFO without the cluster unless provideClusterInfo is true', async () => {
    const dump = tempFile('dump');
    const transport = transportFor(plugin({ DUMP_FILE: dump }));
    await transport.authHeaders();
    transport.close();
    const { env } = JSON.parse(readFileSync(dump, 'utf8')) as { env: Record<string, string> };
    expect(JSON.parse(env.KUBERNETES_EXEC_INFO!)).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('describes the cluster, with its exec extension as config, when provideClusterInfo is true', async () => {
    const dump = tempFile('dump');
    const caFile = tempFile('ca');
    writeFileSync(caFile, 'CA PEM');
    const config = clientConfigFromString(
      kubeconfigText(
        {
          exec: plugin(
            { DUMP_FILE: dump },
            { provideClusterInfo: true, apiVersion: V1BETA1, interactiveMode: undefined },
          ),
        },
        {
          server: 'https://c.example:6443',
          'certificate-authority': caFile,
          'tls-server-name': 'api.internal',
          'proxy-url': 'http://proxy.example:3128',
          extensions: [
            { name: 'client.authentication.k8s.io/exec', extension: { audience: 'kop', nested: { list: [1, 2] } } },
            { name: 'other', extension: { ignored: true } },
          ],
        },
      ),
    );
    expect(config.cluster.extensions).toEqual({
      'client.authentication.k8s.io/exec': { audience: 'kop', nested: { list: [1, 2] } },
      other: { ignored: true },
    });
    // The Transport refuses proxy-url, so the provider is driven on its own here.
    const provider = new ExecCredentialProvider({
      user: 'u',
      exec: config.user.exec!,
      cluster: config.cluster,
      stdinIsTerminal: () => false,
    });
    expect(provider.interactiveMode).toBe('IfAvailable');
    expect(await provider.credential()).toEqual({ token: 'run-1' });
    const { env } = JSON.parse(readFileSync(dump, 'utf8')) as { env: Record<string, string> };
    expect(JSON.parse(env.KUBERNETES_EXEC_INFO!)).toEqual({
      apiVersion: V1BETA1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: 'https://c.example:6443',
          'tls-server-name': 'api.internal',
          'certificate-authority-data': Buffer.from('CA PEM').toString('base64'),
          'proxy-url': 'http://proxy.example:3128',
          config: { audience: 'kop', nested: { list: [1, 2] } },
        },
      },
    });
  });

  it('is interactive only with a terminal and a mode other than Never; Always without a terminal is an error', async () => {
    const interactiveOf = async (mode: string, terminal: boolean): Promise<unknown> => {
      const dump = tempFile('dump');
      const provider = new ExecCredentialProvider({
        user: 'u',
        exec: plugin({ DUMP_FILE: dump }, { interactiveMode: mode }),
        stdinIsTerminal: () => terminal,
      });
      await provider.credential();
      return (
        JSON.parse(JSON.parse(readFileSync(dump, 'utf8')).env.KUBERNETES_EXEC_INFO) as {
          spec: { interactive: boolean };
        }
      ).spec.interactive;
    };
    expect(await interactiveOf('Never', true)).toBe(false);
    expect(await interactiveOf('IfAvailable', true)).toBe(true);
    expect(await interactiveOf('IfAvailable', false)).toBe(false);
    expect(await interactiveOf('Always', true)).toBe(true);
    const always = new ExecCredentialProvider({
      user: 'robot',
      exec: plugin({}, { interactiveMode: 'Always' }),
      stdinIsTerminal: () => false,
    });
    const err = await rejection(always.credential());
    expect(err).toBeInstanceOf(ExecPluginError);
    expect(err.message).toMatch(/user "robot".*interactiveMode: Always.*standard input is not one/);
  });
});

describe('exec credential plugins: caching', () => {
  it('keeps a credential until shortly before it expires (a minute at most), then runs the plugin again', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    // The plugin's credential lasts 10 minutes by the real clock; the provider's clock is moved on instead of waited for.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const transport = transportFor(plugin({ RUNS_FILE: runs, EXPIRES_IN_MS: String(10 * 60_000) }));
      expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
      expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
      // 70 s before the expiry (give or take the plugin's start): still the same credential.
      vi.setSystemTime(Date.now() + 8 * 60_000 + 50_000);
      expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
      expect(runsOf(runs)).toBe(1);
      // 50 s before: within the minute kept in hand, so the plugin runs again.
      vi.setSystemTime(Date.now() + 20_000);
      expect((await transport.authHeaders()).authorization).toBe('Bearer run-2');
      expect(runsOf(runs)).toBe(2);
      transport.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a credential without expiry until invalidateCredentials() (a 401), however long', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    // credentialRefreshMs applies to token files and auth providers, not to exec plugins.
    const transport = new Transport(clientConfigFromString(kubeconfigText({ exec: plugin({ RUNS_FILE: runs }) })), {
      credentialRefreshMs: 0,
    });
    expect(transport.hasDynamicCredentials).toBe(true);
    for (let i = 0; i < 3; i++) expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    expect(runsOf(runs)).toBe(1);
    transport.invalidateCredentials();
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-2');
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-2');
    expect(runsOf(runs)).toBe(2);
    transport.close();
  });

  it('runs the plugin once for concurrent requests, and once more for concurrent 401s', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    const transport = transportFor(plugin({ RUNS_FILE: runs, SLEEP_MS: '300' }));
    const first = await Promise.all([transport.authHeaders(), transport.authHeaders(), transport.authHeaders()]);
    expect(first.map((h) => h.authorization)).toEqual(['Bearer run-1', 'Bearer run-1', 'Bearer run-1']);
    expect(runsOf(runs)).toBe(1);
    // Two requests answered 401 at once: the second invalidation finds the new run under way.
    transport.invalidateCredentials();
    const afterFirst401 = transport.authHeaders();
    transport.invalidateCredentials();
    const afterSecond401 = transport.authHeaders();
    expect([(await afterFirst401).authorization, (await afterSecond401).authorization]).toEqual([
      'Bearer run-2',
      'Bearer run-2',
    ]);
    expect(runsOf(runs)).toBe(2);
    transport.close();
  });

  it('kills a plugin that does not finish in time, so a later call can run it again', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    const dump = tempFile('dump');
    const provider = new ExecCredentialProvider({
      user: 'u',
      exec: plugin({ RUNS_FILE: runs, DUMP_FILE: dump, SLEEP_MS: '60000' }),
      timeoutMs: 2000,
    });
    const started = Date.now();
    const err = await rejection(provider.credential());
    expect(err).toBeInstanceOf(ExecPluginError);
    expect(err.message).toMatch(/did not finish within 2000 ms and was killed/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The child is gone, not left sleeping (Linux: no process has its RUNS_FILE in its environment).
    expect(existsSync(dump)).toBe(true);
    if (existsSync('/proc/self/environ')) {
      const alive = readdirSync('/proc').filter((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        try {
          return readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`RUNS_FILE=${runs}`);
        } catch {
          return false;
        }
      });
      expect(alive).toEqual([]);
    }
    await rejection(provider.credential());
    expect(runsOf(runs)).toBe(2);
  });

  it('does not keep a failed run: the next call runs the plugin again', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    const provider = new ExecCredentialProvider({ user: 'u', exec: plugin({ RUNS_FILE: runs, PLUGIN_MODE: 'fail' }) });
    await rejection(provider.credential());
    await rejection(provider.credential());
    expect(runsOf(runs)).toBe(2);
  });
});

describe('exec credential plugins: errors', () => {
  const failure = async (exec: KubeconfigExecConfig): Promise<Error> => {
    const err = await rejection(new ExecCredentialProvider({ user: 'dev', exec }).credential());
    expect(err).toBeInstanceOf(ExecPluginError);
    return err;
  };

  it('names a command that is not found, with its install hint', async () => {
    const err = await failure({
      ...plugin(),
      command: 'kop-test-no-such-plugin',
      installHint: 'Install it with: brew install kop-test-no-such-plugin\n',
    });
    expect(err.message).toContain('exec plugin "kop-test-no-such-plugin" of user "dev": executable not found');
    expect(err.message).toMatch(/\nInstall it with: brew install kop-test-no-such-plugin$/);
  });

  it('says a command that is not executable is not executable', async () => {
    const file = tempFile('not-executable');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o644);
    expect((await failure({ ...plugin(), command: file, args: [] })).message).toMatch(/permission denied/);
  });

  it("gives the exit code and the plugin's stderr, trimmed and bounded", async () => {
    const err = await failure(plugin({ PLUGIN_MODE: 'fail' }));
    expect(err.message).toBe(
      `exec plugin "${process.execPath}" of user "dev" failed with exit code 3; it said:\nlogin required:  run kop-login first`,
    );
    const long = await failure(plugin({ PLUGIN_MODE: 'fail', STDERR_PAD: '5000' }));
    expect(long.message.length).toBeLessThan(2300);
    expect(long.message).toMatch(/it said:\n….*x run kop-login first$/s);
  });

  const badOutputs: { name: string; given: Record<string, string>; want: RegExp }[] = [
    {
      name: 'text that is not JSON',
      given: { PLUGIN_MODE: 'garbage' },
      want: /printed \d+ bytes that are not JSON on stdout \(not shown/,
    },
    { name: 'nothing', given: { PLUGIN_MODE: 'nothing' }, want: /printed nothing on stdout \(not shown/ },
    {
      name: 'another kind',
      given: { PLUGIN_MODE: 'wrong-kind' },
      want: /printed kind "Credential", not ExecCredential/,
    },
    {
      name: 'another apiVersion',
      given: { PRINT_API_VERSION: V1BETA1 },
      want: /configured with apiVersion client.authentication.k8s.io\/v1 but printed apiVersion "client.authentication.k8s.io\/v1beta1"/,
    },
    { name: 'no status', given: { PLUGIN_MODE: 'no-status' }, want: /without a status/ },
    {
      name: 'an empty status',
      given: { PLUGIN_MODE: 'empty-status' },
      want: /neither status.token nor status.clientCertificateData and status.clientKeyData/,
    },
    {
      name: 'a certificate without a key',
      given: { PLUGIN_MODE: 'cert-only' },
      want: /a client certificate without status.clientKeyData; both are needed/,
    },
    {
      name: 'a key without a certificate',
      given: { PLUGIN_MODE: 'key-only' },
      want: /a client key without status.clientCertificateData; both are needed/,
    },
    {
      name: 'an expiry that is not RFC 3339',
      given: { PLUGIN_MODE: 'bad-expiry' },
      want: /status.expirationTimestamp "tomorrow", which is not an RFC 3339 time/,
    },
  ];
  for (const c of badOutputs) {
    it(`says what is wrong when the plugin prints ${c.name}`, async () => {
      expect((await failure(plugin(c.given))).message).toMatch(c.want);
    });
  }

  it('says a client certificate the plugin printed cannot be used, and runs the plugin again next time', async () => {
    const runs = tempFile('runs');
    writeFileSync(runs, '');
    const transport = transportFor(plugin({ RUNS_FILE: runs, PLUGIN_MODE: 'bad-cert' }));
    const err = await rejection(transport.authHeaders());
    expect(err).toBeInstanceOf(ExecPluginError);
    expect(err.message).toMatch(/exec plugin of user "u" printed a client certificate and key that cannot be used/);
    await rejection(transport.authHeaders());
    expect(runsOf(runs)).toBe(2);
    transport.close();
  });

  it('parses expiry, token and certificate of a good ExecCredential', () => {
    expect(
      parseExecCredential(
        JSON.stringify({
          apiVersion: V1,
          kind: 'ExecCredential',
          status: {
            token: 't',
            clientCertificateData: 'C',
            clientKeyData: 'K',
            expirationTimestamp: '2030-01-02T03:04:05+01:00',
          },
        }),
        V1,
      ),
    ).toEqual({
      token: 't',
      clientCertificateData: 'C',
      clientKeyData: 'K',
      expiresAt: new Date('2030-01-02T02:04:05Z'),
    });
  });

  const badConfigs: { name: string; given: Partial<KubeconfigExecConfig>; want: RegExp }[] = [
    {
      name: 'v1alpha1',
      given: { apiVersion: 'client.authentication.k8s.io/v1alpha1' },
      want: /user "dev": exec.apiVersion client.authentication.k8s.io\/v1alpha1 is no longer supported.*write apiVersion: client.authentication.k8s.io\/v1/,
    },
    {
      name: 'an unknown apiVersion',
      given: { apiVersion: 'example.com/v1' },
      want: /user "dev": exec.apiVersion "example.com\/v1" is not one of client.authentication.k8s.io\/v1, client.authentication.k8s.io\/v1beta1/,
    },
    {
      name: 'no apiVersion',
      given: { apiVersion: undefined },
      want: /user "dev": exec.apiVersion is missing; write apiVersion: client.authentication.k8s.io\/v1/,
    },
    {
      name: 'v1 without interactiveMode',
      given: { interactiveMode: undefined },
      want: /user "dev": exec.interactiveMode is required with client.authentication.k8s.io\/v1; write interactiveMode: Never/,
    },
    {
      name: 'an unknown interactiveMode',
      given: { interactiveMode: 'Sometimes' },
      want: /exec.interactiveMode "Sometimes" is not one of Never, IfAvailable, Always/,
    },
    { name: 'no command', given: { command: '' }, want: /user "dev": exec.command is missing/ },
    {
      name: 'an env entry without a name',
      given: { env: [{ name: '', value: 'x' }] },
      want: /user "dev": exec.env\[0\] has no name/,
    },
  ];
  for (const c of badConfigs) {
    it(`refuses an exec entry with ${c.name} when the transport is made`, () => {
      const config = clientConfigFromString(
        JSON.stringify({
          clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }],
          users: [{ name: 'dev', user: { exec: { ...plugin(), ...c.given } } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'dev' } }],
          'current-context': 'x',
        }),
      );
      let err: unknown;
      try {
        new Transport(config).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidConfigurationError);
      expect((err as Error).message).toMatch(c.want);
    });
  }
});

describe('exec credential plugins: where the command is', () => {
  it("resolves a relative command with a path separator against the kubeconfig's folder; a bare name stays a PATH lookup", async () => {
    const dir = tempFile('kubeconfig-dir');
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    const executable = path.join(dir, 'bin', 'credential-plugin');
    writeFileSync(executable, `#!${process.execPath}\nimport(${JSON.stringify(pluginScript)});\n`);
    chmodSync(executable, 0o755);
    const file = path.join(dir, 'config');
    writeFileSync(
      file,
      stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://c.example' } }],
        users: [
          { name: 'relative', user: { exec: { ...plugin(), command: './bin/credential-plugin', args: [] } } },
          { name: 'bare', user: { exec: { ...plugin(), command: 'credential-plugin', args: [] } } },
        ],
        contexts: [
          { name: 'relative', context: { cluster: 'c', user: 'relative' } },
          { name: 'bare', context: { cluster: 'c', user: 'bare' } },
        ],
        'current-context': 'relative',
      }),
    );
    const config = loadClientConfig({ kubeconfig: file });
    expect(config.user.exec?.command).toBe(executable);
    // Run from another working directory: the command is found through the kubeconfig's folder.
    const transport = new Transport(config);
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    transport.close();
    expect(loadClientConfig({ kubeconfig: file, context: 'bare' }).user.exec?.command).toBe('credential-plugin');
  });
});

describe("client-node's exec auth provider convention", () => {
  it('runs the exec entry of an auth provider config with the same provider, and refuses an exec provider without one', async () => {
    const transport = new Transport(
      clientConfigFromString(kubeconfigText({ 'auth-provider': { name: 'custom', config: { exec: plugin() } } })),
    );
    expect((await transport.authHeaders()).authorization).toBe('Bearer run-1');
    transport.close();
    expect(
      () => new Transport(clientConfigFromString(kubeconfigText({ 'auth-provider': { name: 'exec', config: {} } }))),
    ).toThrow(
      /user "u": auth-provider "exec" has no exec entry in its config; configure the credential plugin as users\[\]\.user\.exec/,
    );
  });
});

describe('impersonation headers', () => {
  it('sends as, as-uid, each of as-groups and each value of as-user-extra (keys percent-encoded)', async () => {
    const config = clientConfigFromString(
      kubeconfigText({
        token: 'admin-token',
        as: 'alice',
        'as-uid': 'uid-42',
        'as-groups': ['team-a', 'team-b'],
        'as-user-extra': { 'example.com/scopes': ['read', 'write'], 'reason%': ['testing'], ключ: ['v'], empty: [] },
      }),
    );
    const transport = new Transport(config);
    expect(await transport.authHeaders()).toEqual({
      authorization: 'Bearer admin-token',
      'impersonate-user': 'alice',
      'impersonate-uid': 'uid-42',
      'impersonate-group': ['team-a', 'team-b'],
      'impersonate-extra-example.com%2Fscopes': ['read', 'write'],
      'impersonate-extra-reason%25': ['testing'],
      'impersonate-extra-%D0%BA%D0%BB%D1%8E%D1%87': ['v'],
    });
    transport.close();
  });

  it('lets a token or basic auth given in the kubeconfig win over an exec plugin, which then never runs (as in client-go)', async () => {
    const runs = tempFile('runs');
    for (const [user, expected] of [
      [{ token: 'inline', exec: plugin({ RUNS_FILE: runs }) }, 'Bearer inline'],
      [
        { username: 'ann', password: 'pw', exec: plugin({ RUNS_FILE: runs }) },
        `Basic ${Buffer.from('ann:pw').toString('base64')}`,
      ],
    ] as const) {
      const transport = new Transport(clientConfigFromString(kubeconfigText(user)));
      expect(transport.hasDynamicCredentials).toBe(false);
      expect(await transport.authHeaders()).toEqual({ authorization: expected });
      transport.close();
    }
    expect(existsSync(runs)).toBe(false);
  });

  it('keeps impersonation headers next to an exec plugin token', async () => {
    const config = clientConfigFromString(kubeconfigText({ exec: plugin(), as: 'bob', 'as-groups': ['g'] }));
    const transport = new Transport(config);
    expect(await transport.authHeaders()).toEqual({
      authorization: 'Bearer run-1',
      'impersonate-user': 'bob',
      'impersonate-group': ['g'],
    });
    transport.close();
  });

  it('refuses groups, uid or extras without a user to impersonate, and malformed fields', () => {
    expect(
      () => new Transport(clientConfigFromString(kubeconfigText({ token: 't', 'as-groups': ['team-a'] }))),
    ).toThrow(/user "u" sets as-uid, as-groups or as-user-extra without as/);
    expect(() => clientConfigFromString(kubeconfigText({ as: 'a', 'as-groups': 'team-a' }))).toThrow(
      /users\[0\]\.user\.as-groups must be a list of strings/,
    );
    expect(() => clientConfigFromString(kubeconfigText({ as: 'a', 'as-user-extra': { k: 'v' } }))).toThrow(
      /users\[0\]\.user\.as-user-extra\.k must be a list of strings/,
    );
  });
});
