/**
 * USE_EXISTING_CLUSTER mode against a real cluster: a kop/testing control plane started here
 * plays the existing cluster, reached through a kubeconfig file that references certificate
 * files (relative paths), as a developer's ~/.kube/config often does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClientConfig } from '../../src/runtime/client/config/client-config.js';
import { RestClient } from '../../src/runtime/client/rest/rest-client.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { apiRequest } from './helpers.js';
import { moduleImports } from '../helpers/module-imports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CRD_FIXTURE = fileURLToPath(new URL('./fixtures/widgets-crd.yaml', import.meta.url));
const WIDGETS = '/apis/testing.kop.dev/v1alpha1/namespaces/default/widgets';

interface SelfSubjectReview {
  status: { userInfo: { username: string; groups?: string[] } };
}

let real: ControlPlane;
let work: string;
let sourceKubeconfig: string;

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const existingEnv = () => ({ USE_EXISTING_CLUSTER: 'true', KUBECONFIG: sourceKubeconfig });

beforeAll(async () => {
  real = await startControlPlane();
  work = mkdtempSync(path.join(realpathSync(tmpdir()), 'kop-existing-test-'));
  writeFileSync(path.join(work, 'ca.crt'), real.caData!);
  writeFileSync(path.join(work, 'admin.crt'), real.admin.certData!);
  writeFileSync(path.join(work, 'admin.key'), real.admin.keyData!, { mode: 0o600 });
  sourceKubeconfig = path.join(work, 'config');
  writeFileSync(
    sourceKubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'dev', cluster: { server: real.server, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'dev-admin', user: { 'client-certificate': 'admin.crt', 'client-key': 'admin.key' } }],
      contexts: [{ name: 'dev', context: { cluster: 'dev', user: 'dev-admin', namespace: 'default' } }],
      'current-context': 'dev',
    }),
  );
}, 120_000);

afterAll(async () => {
  await real?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('USE_EXISTING_CLUSTER mode', () => {
  it('starts nothing and writes the current context of KUBECONFIG (from options.env), certificates embedded, to its temp folder', async () => {
    const existing = await startControlPlane({ env: existingEnv() });
    try {
      expect(existing.existingCluster).toBe(true);
      expect(existing.server).toBe(real.server);
      expect(existing.caData).toBe(real.caData);
      expect(existing.etcdUrl).toBeUndefined();
      expect(existing.binaries).toBeUndefined();
      expect(path.dirname(existing.kubeconfigPath)).toBe(existing.dir);
      expect(statSync(existing.kubeconfigPath).mode & 0o777).toBe(0o600);
      const written = parse(readFileSync(existing.kubeconfigPath, 'utf8'));
      expect(written).toEqual(existing.kubeconfig);
      expect(written).toEqual({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'dev', cluster: { server: real.server, 'certificate-authority-data': base64(real.caData!) } },
        ],
        users: [
          {
            name: 'dev-admin',
            user: {
              'client-certificate-data': base64(real.admin.certData!),
              'client-key-data': base64(real.admin.keyData!),
            },
          },
        ],
        contexts: [{ name: 'dev', context: { cluster: 'dev', user: 'dev-admin', namespace: 'default' } }],
        'current-context': 'dev',
      });
      expect(existing.admin).toMatchObject({ name: 'dev-admin', kubeconfigPath: existing.kubeconfigPath });
      await expect(existing.compactEtcd()).rejects.toThrow('USE_EXISTING_CLUSTER');
      await expect(existing.restartApiServer()).rejects.toThrow('USE_EXISTING_CLUSTER');
    } finally {
      await existing.stop();
    }
  });

  it('installCRDs returns once the CRD is served, and stop() deletes only its temp folder and leaves the cluster and the CRD', async () => {
    const existing = await startControlPlane({ env: existingEnv() });
    const [crd] = await existing.installCRDs(CRD_FIXTURE);
    expect(crd!.metadata.name).toBe('widgets.testing.kop.dev');
    // No waiting here: installCRDs has already seen the resource served.
    const created = await apiRequest(real, real.admin, 'POST', WIDGETS, {
      apiVersion: 'testing.kop.dev/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 1 },
    });
    expect(created.status, created.body).toBe(201);
    const bob = await existing.addUser({ name: 'bob' });

    await existing.stop();
    await existing.stop();
    expect(existsSync(existing.dir)).toBe(false);
    expect(existsSync(bob.kubeconfigPath)).toBe(false);
    for (const file of ['config', 'ca.crt', 'admin.crt', 'admin.key'])
      expect(existsSync(path.join(work, file)), file).toBe(true);
    expect((await apiRequest(real, real.admin, 'GET', '/readyz')).status).toBe(200);
    expect((await apiRequest(real, real.admin, 'GET', `${WIDGETS}/w1`)).status).toBe(200);
  });

  it('addUser impersonates: with its kubeconfig a SelfSubjectReview reports the user and its groups (kop/runtime and kubectl)', async () => {
    const existing = await startControlPlane({ env: existingEnv() });
    try {
      const bob = await existing.addUser({ name: 'bob', groups: ['team-a'] });
      expect(bob.name).toBe('bob');
      expect(bob.groups).toEqual(['team-a']);
      expect(bob.kubeconfig.users[0]!.user).toMatchObject({ as: 'bob', 'as-groups': ['team-a'] });
      expect(parse(readFileSync(bob.kubeconfigPath, 'utf8'))).toEqual(bob.kubeconfig);

      const rest = new RestClient(loadClientConfig({ kubeconfig: bob.kubeconfigPath }));
      try {
        const review = await rest.post<SelfSubjectReview>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
        });
        expect(review.status.userInfo.username).toBe('bob');
        expect(review.status.userInfo.groups).toContain('team-a');
      } finally {
        rest.close();
      }

      // The Go client reads the same file the same way.
      const kubectl = real.binaries?.kubectl;
      if (kubectl) {
        const whoami = JSON.parse(
          execFileSync(kubectl, ['--kubeconfig', bob.kubeconfigPath, 'auth', 'whoami', '-o', 'json'], {
            encoding: 'utf8',
          }),
        ) as SelfSubjectReview;
        expect(whoami.status.userInfo.username).toBe('bob');
        expect(whoami.status.userInfo.groups).toContain('team-a');
      }
    } finally {
      await existing.stop();
    }
  });
});

describe("kop/testing's existing-cluster path without @kubernetes/client-node's index", () => {
  it('imports (statically, from kop/testing and existing-cluster.ts on) no client-node module but the kubeconfig entry parser', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const { specifier, typeOnly } of moduleImports(file)) {
        if (typeOnly) continue;
        if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    };
    visit(path.join(ROOT, 'src/testing/index.ts'));
    visit(path.join(ROOT, 'src/testing/existing-cluster.ts'));
    expect(seen.has(path.join(ROOT, 'src/runtime/client/rest/transport.ts'))).toBe(true);
    expect([...packages].filter((p) => p.startsWith('@kubernetes/client-node'))).toEqual([
      '@kubernetes/client-node/dist/config_types.js',
    ]);
  });

  // The built kop/testing in a child process, under a module hook that fails on any
  // client-node module but the entry parser: connect, install a CRD, impersonate, stop.
  it.skipIf(!existsSync(path.join(ROOT, 'dist/testing/existing-cluster.js')))(
    'loads no other client-node module when run (built dist/)',
    () => {
      const hook = `data:text/javascript,${encodeURIComponent(
        `export async function load(url, context, next) {
         const at = url.indexOf('/@kubernetes/client-node/');
         if (at >= 0 && url.slice(at) !== '/@kubernetes/client-node/dist/config_types.js') throw new Error('client-node loaded: ' + url.slice(at));
         return next(url, context);
       }`,
      )}`;
      const testing = JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/testing/index.js')).href);
      const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(hook)});
      const { startControlPlane } = await import(${testing});
      const existing = await startControlPlane({ env: ${JSON.stringify(existingEnv())} });
      const [crd] = await existing.installCRDs(${JSON.stringify(CRD_FIXTURE)});
      const bob = await existing.addUser({ name: 'bob', groups: ['team-a'] });
      await existing.stop();
      console.log(crd.metadata.name, bob.kubeconfig.users[0].user.as);
    `;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(out.trim()).toBe('widgets.testing.kop.dev bob');
    },
  );
});
