import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/index.js';
import { RestClient } from '../../../src/runtime/client/index.js';
import { clientConfigFromString } from '../../../src/runtime/client/config/client-config.js';
import { leaseTestControlPlane, type LeasedControlPlane } from '../controller/helpers.js';

// Against a real kube-apiserver: an exec plugin that hands out the admin's client certificate,
// and a kubeconfig user that impersonates someone, checked by what the server says it saw.

interface NamespaceList {
  items: { metadata?: { name?: string } }[];
}

let plane: LeasedControlPlane;
let dir: string;
/** The admin kubeconfig of the control plane, as an object to derive others from. */
let admin: { clusters: unknown[]; users: { name: string; user: Record<string, unknown> }[] };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kop-exec-live-'));
  plane = await leaseTestControlPlane();
  admin = structuredClone(plane.kubeconfig) as unknown as typeof admin;
});

afterAll(async () => {
  await plane?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client for the control plane's cluster as `user`. */
function clientAs(user: Record<string, unknown>): RestClient {
  const kubeconfig = { ...admin, users: [{ name: admin.users[0]!.name, user }] };
  return new RestClient(clientConfigFromString(JSON.stringify(kubeconfig)), { qps: Infinity });
}

/** Writes a plugin script that prints `credentials[run - 1]` (the last one for later runs) and counts its runs. */
function pluginPrinting(credentials: object[]): { exec: object; runs: () => number } {
  const runsFile = path.join(dir, `runs-${Math.random().toString(36).slice(2)}`);
  writeFileSync(runsFile, '');
  const script = path.join(dir, `plugin-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(runsFile)}, 'x');
const run = readFileSync(${JSON.stringify(runsFile)}, 'utf8').length;
const credentials = ${JSON.stringify(credentials)};
const status = credentials[Math.min(run, credentials.length) - 1];
console.log(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));
`,
  );
  return {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [script],
      interactiveMode: 'Never',
    },
    runs: () => readFileSync(runsFile, 'utf8').length,
  };
}

function adminCertificate(): { clientCertificateData: string; clientKeyData: string } {
  const user = admin.users[0]!.user;
  const pem = (field: string): string => Buffer.from(String(user[field]), 'base64').toString('utf8');
  return { clientCertificateData: pem('client-certificate-data'), clientKeyData: pem('client-key-data') };
}

describe('exec credential plugin against a real apiserver', () => {
  it('authenticates with the client certificate and key the plugin prints', async () => {
    const plugin = pluginPrinting([adminCertificate()]);
    const rest = clientAs({ exec: plugin.exec });
    try {
      const list = await rest.get<NamespaceList>('/api/v1/namespaces');
      expect(list.items.map((ns) => ns.metadata?.name)).toContain('default');
      await rest.get<NamespaceList>('/api/v1/namespaces');
      expect(plugin.runs()).toBe(1);
    } finally {
      rest.close();
    }
  });

  it('runs the plugin again after a 401 and retries with the new credential (a certificate this time)', async () => {
    const plugin = pluginPrinting([{ token: 'not-a-valid-token' }, adminCertificate()]);
    const rest = clientAs({ exec: plugin.exec });
    try {
      const list = await rest.get<NamespaceList>('/api/v1/namespaces');
      expect(list.items.length).toBeGreaterThan(0);
      expect(plugin.runs()).toBe(2);
    } finally {
      rest.close();
    }
  });

  it('fails with 401 when the fresh credential is refused too', async () => {
    const plugin = pluginPrinting([{ token: 'not-a-valid-token' }]);
    const rest = clientAs({ exec: plugin.exec });
    try {
      const err = await rest.get('/api/v1/namespaces').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(401);
      expect(plugin.runs()).toBe(2);
    } finally {
      rest.close();
    }
  });
});

interface SelfSubjectReview {
  status?: { userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
}

describe('impersonation from a kubeconfig user against a real apiserver', () => {
  it('sends as, as-uid, as-groups and as-user-extra; the server sees exactly that user', async () => {
    const rest = clientAs({
      ...admin.users[0]!.user,
      as: 'alice',
      'as-uid': 'alice-uid-1234',
      'as-groups': ['team-a', 'team-b'],
      'as-user-extra': { 'example.com/scopes': ['read', 'write'], reason: ['testing impersonation'] },
    });
    try {
      const review = await rest.post<SelfSubjectReview>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      const seen = review.status?.userInfo;
      expect(seen?.username).toBe('alice');
      expect(seen?.uid).toBe('alice-uid-1234');
      expect([...(seen?.groups ?? [])].sort()).toEqual(['system:authenticated', 'team-a', 'team-b']);
      expect(seen?.extra).toEqual({ 'example.com/scopes': ['read', 'write'], reason: ['testing impersonation'] });
    } finally {
      rest.close();
    }
  });

  it('impersonates through an exec plugin credential as well', async () => {
    const plugin = pluginPrinting([adminCertificate()]);
    const rest = clientAs({ exec: plugin.exec, as: 'bob', 'as-groups': ['team-c'] });
    try {
      const review = await rest.post<SelfSubjectReview>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      expect(review.status?.userInfo?.username).toBe('bob');
      expect([...(review.status?.userInfo?.groups ?? [])].sort()).toEqual(['system:authenticated', 'team-c']);
    } finally {
      rest.close();
    }
  });
});
