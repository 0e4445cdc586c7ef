/**
 * The external use end to end, through the built CLI: a project made by `kop init` imports a
 * Certificate-like CRD it does not own, and the reconciler `kop create api` scaffolded for its own
 * kind (Site) owns one Certificate per Site through the imported types and typed descriptor. The
 * project type-checks with `tsc --strict`, and its own test runs the reconciler against a real
 * kube-apiserver: the Certificate is created with the Site as controller, and made again when
 * deleted (the `owns` watch). `kop import crd --from-cluster` reads the same CRD back from that
 * kind of apiserver. Needs `npm run build` and `kop setup-envtest` first.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane } from '../../src/testing/index.js';
import { initLinkedProject, KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { tsc } from '../helpers/typecheck.js';
import { comparable, yamlDocuments } from './import-helpers.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'certificates.yaml');
const TIMEOUT = 180_000;

describe('kop import crd (external) end to end', () => {
  let parent: string;
  let project: string;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
  const read = (file: string) => readFile(path.join(project, file), 'utf8');
  const edit = async (file: string, change: (text: string) => string) => {
    const before = await read(file);
    const after = change(before);
    expect(after, `${file} changed`).not.toBe(before);
    await writeFile(path.join(project, file), after);
  };

  beforeAll(async () => {
    requireBuilt(['dist/cli/main.js', 'dist/api/index.d.ts']);
    ({ parent, project } = await initLinkedProject('sites', 'kop-import-e2e-'));
  }, TIMEOUT);

  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'a scaffolded reconciler owns an imported Certificate against the real apiserver',
    async () => {
      const api = await kop(['create', 'api', '--group', 'web', '--version', 'v1', '--kind', 'Site', '--yes']);
      expect(api.exitCode, api.stderr).toBe(0);
      await mkdir(path.join(project, 'crds'));
      await copyFile(FIXTURE, path.join(project, 'crds/certificates.yaml'));
      const imported = await kop(['import', 'crd', 'crds/certificates.yaml']);
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(
        /CREATE api\/pki\/v1\/certificate\.types\.ts[^]*CREATE api\/pki\/v1\/certificate\.client\.ts/,
      );
      expect(
        existsSync(path.join(project, 'config/crd/bases/pki.example.org_certificates.yaml')),
        'no CRD for an external kind',
      ).toBe(false);

      // What a user writes: the reconciler makes a Certificate for its Site and owns it.
      await edit('src/controllers/site.controller.ts', (text) =>
        text
          // The scaffold's import from kop/runtime, on one line or wrapped by Prettier.
          .replace(
            /import \{\s*finalizer,/,
            "import { certificateType } from '../../api/pki/v1/certificate.client.js';\nimport { createOrUpdate, finalizer, setControllerReference,",
          )
          .replace(
            '// +kubebuilder:rbac:groups=events.k8s.io',
            '// +kubebuilder:rbac:groups=pki.example.org,resources=certificates,verbs=get;list;watch;create;update;patch;delete\n// +kubebuilder:rbac:groups=events.k8s.io',
          )
          .replace('.for(siteType).complete(this)', '.for(siteType).owns(certificateType).complete(this)')
          .replace(
            '    const generation = object.metadata?.generation;',
            [
              '    const name = object.metadata!.name!;',
              '    await createOrUpdate(client, certificateType, { namespace: object.metadata!.namespace!, name: `${name}-tls` }, (certificate) => {',
              "      certificate.spec = { secretName: `${name}-tls`, dnsNames: [`${name}.example.com`], issuerRef: { name: 'internal-ca', kind: 'ClusterIssuer' } };",
              '      setControllerReference(object, certificate);',
              '    });',
              '    const generation = object.metadata?.generation;',
            ].join('\n'),
          ),
      );
      await edit('test/controllers/site.controller.test.ts', (text) =>
        text
          .replace(
            'import { siteType }',
            "import { certificateType } from '../../api/pki/v1/certificate.client.js';\nimport { siteType }",
          )
          .replace(
            '    await client.delete(siteType, key);',
            [
              '    const certificateKey = { namespace: key.namespace, name: `${key.name}-tls` };',
              '    const certificate = await eventually(() => client.get(certificateType, certificateKey).catch(() => undefined));',
              "    expect(certificate.spec?.issuerRef).toEqual({ name: 'internal-ca', kind: 'ClusterIssuer' });",
              "    expect(certificate.metadata?.ownerReferences).toMatchObject([{ kind: 'Site', name: key.name, controller: true }]);",
              '    // Owned: deleting the Certificate queues its Site, which makes it again.',
              '    await client.delete(certificateType, certificateKey);',
              '    await eventually(() => client.get(certificateType, certificateKey).then((c) => c.metadata?.uid !== certificate.metadata?.uid, () => false));',
              '    await client.delete(siteType, key);',
            ].join('\n'),
          ),
      );
      // The tests' control plane installs other projects' CRDs from test/crds/ beside the project's own.
      await mkdir(path.join(project, 'test/crds'), { recursive: true });
      await copyFile(FIXTURE, path.join(project, 'test/crds/certificates.yaml'));

      const generate = await kop(['generate']);
      expect(generate.exitCode, generate.stderr).toBe(0);
      expect(await read('config/rbac/role.yaml')).toContain('- pki.example.org');
      const checked = await tsc(['--noEmit', '--strict', '-p', 'tsconfig.json'], project);
      expect(checked.exitCode, checked.stdout).toBe(0);
      const test = await execa(path.join(project, 'node_modules/.bin/vitest'), ['run', 'test/controllers'], {
        cwd: project,
        reject: false,
        env: { CI: 'true', NO_COLOR: '1' },
      });
      expect(test.exitCode, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/Tests\s+1 passed/);
    },
    TIMEOUT,
  );

  it(
    '--from-cluster reads the CRD the cluster serves and imports the same types',
    async () => {
      const plane = await startControlPlane({ crds: [FIXTURE] });
      try {
        const other = path.join(parent, 'from-cluster');
        await mkdir(other);
        await writeFile(
          path.join(other, 'PROJECT'),
          'version: "1"\nlayout:\n  - kop.dev/typescript/v1\ndomain: example.com\nprojectName: other\n',
        );
        await mkdir(path.join(other, 'hack'));
        await copyFile(path.join(project, 'hack/boilerplate.txt'), path.join(other, 'hack/boilerplate.txt'));
        const run = (args: string[]) =>
          execa('node', [KOP_BIN, ...args], { cwd: other, reject: false, env: { NO_COLOR: '1', CI: 'true' } });
        const missing = await run([
          'import',
          'crd',
          '--from-cluster',
          'widgets.example.org',
          '--kubeconfig',
          plane.kubeconfigPath,
        ]);
        expect(missing.exitCode).toBe(1);
        expect(missing.stderr).toMatch(/error: --from-cluster: the cluster has no CRD named widgets\.example\.org/);
        const imported = await run([
          'import',
          'crd',
          '--own',
          '--from-cluster',
          'certificates.pki.example.org',
          '--kubeconfig',
          plane.kubeconfigPath,
        ]);
        expect(imported.exitCode, imported.stderr).toBe(0);
        // The types are those of the file, and generating them gives back the CRD the cluster has.
        expect(await readFile(path.join(other, 'api/pki/v1/certificate.types.ts'), 'utf8')).toBe(
          (await read('api/pki/v1/certificate.types.ts'))
            .replace(
              '// Code generated by kop. DO NOT EDIT.',
              '// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.',
            )
            .replace('from crds/certificates.yaml.', 'from cluster:certificates.pki.example.org.')
            .replace(
              'The CRD belongs to another project: kop generates a typed client from these types, never the CRD.',
              '`kop generate manifests` writes its CRD from these types: change them to change the API.',
            ),
        );
        const [generated] = yamlDocuments(
          await readFile(path.join(other, 'config/crd/bases/pki.example.org_certificates.yaml'), 'utf8'),
        );
        expect(comparable(generated)).toBe(comparable(yamlDocuments(await readFile(FIXTURE, 'utf8'))[0]));
      } finally {
        await plane.stop();
      }
    },
    TIMEOUT,
  );
});
