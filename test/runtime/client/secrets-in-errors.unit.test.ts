// A credential never reaches an error message, stack or cause: operators log their errors, and a
// kubeconfig or an exec plugin's output holds tokens. Every error path that sees one is driven
// here with a planted secret, and everything the error carries is searched for it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../../src/runtime/client/index.js';
import { clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';

const SECRET = 'kop-planted-secret-7f3a9c';

/** Everything an error exposes to a logger: message, stack, own fields and its causes, as text. */
function everythingIn(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify(Object.fromEntries(Object.entries(current))));
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join('\n');
}

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

let dir: string;
let server: http.Server;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kop-secrets-'));
  server = http.createServer((req, res) => {
    // A proxy's error page that echoes nothing of the request.
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html>bad gateway</html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const malformedKubeconfigs = [
  {
    name: 'a bad indentation next to the token',
    text: `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRET}\n   bad: [\n`,
  },
  { name: 'an unclosed quote in the token', text: `users:\n- name: u\n  user:\n    token: "${SECRET}\n` },
  { name: 'a tab in the token line', text: `users:\n- name: u\n  user:\n\ttoken: ${SECRET}\n` },
  { name: 'a duplicate key', text: `users:\n- name: u\n  user:\n    token: ${SECRET}\n    token: ${SECRET}\n` },
  { name: 'an unknown alias spelled like the token', text: `users:\n- name: u\n  user:\n    token: *${SECRET}\n` },
  { name: 'an unknown tag spelled like the token', text: `users:\n- name: u\n  user:\n    token: !<${SECRET}> x\n` },
];

describe('no credential in errors', () => {
  for (const { name, text } of malformedKubeconfigs) {
    it(`a kubeconfig with ${name}: parsed from text, and loaded from a file`, () => {
      const fromText = caught(() => clientConfigFromString(text));
      expect(everythingIn(fromText)).not.toContain(SECRET);
      expect((fromText as Error).message).toMatch(/line \d+, column \d+/);
      const file = path.join(dir, `kubeconfig-${name.replace(/\W+/g, '-')}`);
      writeFileSync(file, text);
      const fromFile = caught(() => loadClientConfig({ kubeconfig: file, env: {} }));
      expect(everythingIn(fromFile)).not.toContain(SECRET);
      expect((fromFile as Error).message).toContain(file);
    });
  }

  const plugin = (stdout: string): string => {
    const script = path.join(dir, `plugin-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(script, `process.stdout.write(${JSON.stringify(stdout)});\n`);
    return [
      'apiVersion: v1',
      'clusters: [{name: c, cluster: {server: "' + base + '"}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      'users:',
      '- name: u',
      '  user:',
      '    exec:',
      '      apiVersion: client.authentication.k8s.io/v1',
      `      command: ${JSON.stringify(process.execPath)}`,
      `      args: [${JSON.stringify(script)}]`,
      '      interactiveMode: Never',
    ].join('\n');
  };
  const outputs = [
    { name: 'its token as plain text', stdout: `${SECRET}\n` },
    { name: 'a JSON document cut short', stdout: `{"kind":"ExecCredential","status":{"token":"${SECRET}"` },
    {
      name: 'a credential of another apiVersion',
      stdout: JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { token: SECRET },
      }),
    },
    {
      name: 'a token that is not a string',
      stdout: JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: [SECRET] },
      }),
    },
  ];
  for (const { name, stdout } of outputs) {
    it(`an exec plugin that prints ${name}`, async () => {
      const rest = new RestClient(clientConfigFromString(plugin(stdout)));
      const error = await rest.get('/api').then(
        () => undefined,
        (e: unknown) => e,
      );
      rest.close();
      expect(error).toBeInstanceOf(Error);
      expect(everythingIn(error)).not.toContain(SECRET);
    });
  }

  it('a request with a bearer token that fails, at the server or before it', async () => {
    const config = loadClientConfig({ server: base, env: {} });
    const withToken = { ...config, token: SECRET };
    const rest = new RestClient(withToken, { maxThrottleRetries: 0 });
    const answered = await rest.get('/api').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(everythingIn(answered)).not.toContain(SECRET);
    const refused = new RestClient({ ...withToken, server: 'http://127.0.0.1:1' }, { maxThrottleRetries: 0 });
    const unreachable = await refused.get('/api').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(unreachable).toBeInstanceOf(Error);
    expect(everythingIn(unreachable)).not.toContain(SECRET);
    rest.close();
    refused.close();
  });
});
