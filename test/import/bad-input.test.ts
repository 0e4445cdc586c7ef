/**
 * Bad input to `kop import crd`: a clear error naming the file (and the schema path, where there is
 * one), and nothing written.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runImportCrd, type ImportCrdOptions } from '../../src/import/run-import-crd.js';
import { testContext } from '../helpers/fake-context.js';
import { bareProject, importAndGenerate, listFiles } from './import-helpers.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const certificates = await fs.readFile(path.join(FIXTURES, 'certificates.yaml'), 'utf8');

/** The fixture with `edit` applied to its text. */
function certificatesWith(edit: (text: string) => string): string {
  const edited = edit(certificates);
  expect(edited).not.toBe(certificates);
  return edited;
}

let project: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  project = await bareProject();
});
afterEach(async () => {
  await project.cleanup();
});

/** Runs the import of `text` (as bad.yaml) and returns its error; checks that nothing was written. */
async function importError(
  text: string,
  options: Partial<ImportCrdOptions> = {},
): Promise<{ message: string; hint?: string }> {
  await fs.writeFile(path.join(project.dir, 'bad.yaml'), text);
  const before = await snapshot(project.dir);
  const error = await runImportCrd({ sources: ['bad.yaml'], ...options }, testContext({ cwd: project.dir })).then(
    () => undefined,
    (e: unknown) => e as { message: string; hint?: string },
  );
  expect(error, 'the import fails').toBeDefined();
  expect(await snapshot(project.dir), 'nothing is written').toEqual(before);
  return error!;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of await listFiles(dir)) files[file] = await fs.readFile(path.join(dir, file), 'utf8');
  return files;
}

describe('kop import crd refuses bad input and writes nothing', () => {
  const cases: {
    name: string;
    given: () => string;
    options?: Partial<ImportCrdOptions>;
    want: RegExp;
    hint?: RegExp;
  }[] = [
    {
      name: 'not a CRD',
      given: () => 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
      want: /^bad\.yaml: is not a CustomResourceDefinition \(kind: "ConfigMap"\)$/,
    },
    {
      name: 'the second document of a file is not a CRD',
      given: () => `${certificates}---\nkind: Deployment\n`,
      want: /^bad\.yaml#2: is not a CustomResourceDefinition \(kind: "Deployment"\)$/,
    },
    {
      name: 'a v1beta1 CRD',
      given: () =>
        certificatesWith((t) =>
          t.replace('apiVersion: apiextensions.k8s.io/v1\n', 'apiVersion: apiextensions.k8s.io/v1beta1\n'),
        ),
      want: /^bad\.yaml: is an apiextensions\.k8s\.io\/v1beta1 CRD, which Kubernetes stopped serving in 1\.22$/,
      hint: /apiextensions\.k8s\.io\/v1 form/,
    },
    {
      name: 'a structural error',
      given: () =>
        certificatesWith((t) =>
          t.replace(
            '              notAfter:\n                format: date-time\n                type: string\n',
            '              notAfter:\n                format: date-time\n',
          ),
        ),
      want: /^bad\.yaml: spec\.versions\[v1\] has a schema that is not structural, which the apiserver refuses:\n {2}\.status\.notAfter: has no type/,
    },
    {
      name: 'a construct no marker expresses',
      given: () =>
        certificatesWith((t) =>
          t.replace(
            '              notAfter:\n                format: date-time\n',
            '              notAfter:\n                oneOf:\n                - format: date-time\n                - format: date\n',
          ),
        ),
      want: /^bad\.yaml: version v1, \.status\.notAfter: "oneOf" has no kop marker$/,
      hint: /--raw-schema/,
    },
    {
      name: 'a CRD kop cannot own exactly',
      given: () =>
        certificatesWith((t) =>
          t.replace(
            '          metadata:\n            type: object\n',
            '          metadata:\n            properties:\n              name:\n                maxLength: 20\n                type: string\n            type: object\n',
          ),
        ),
      options: { own: true },
      want: /^bad\.yaml: version v1, \.metadata: is not `type: object`/,
      hint: /without --own/,
    },
    {
      name: 'YAML that does not parse',
      given: () => 'kind: [CustomResourceDefinition\n',
      want: /^bad\.yaml:\d+: not valid YAML/,
    },
    {
      name: 'a key twice in one mapping',
      given: () =>
        certificatesWith((t) =>
          t.replace('  group: pki.example.org\n', '  group: pki.example.org\n  group: other.example.org\n'),
        ),
      want: /^bad\.yaml:\d+: not valid YAML: duplicated mapping key$/,
    },
    {
      name: 'aliases that would expand without bound',
      given: () =>
        `a: &a [x, x]\n${Array.from({ length: 20 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`).join('\n')}\n`,
      want: /^bad\.yaml: not valid YAML: its aliases expand to more than 100,000 values$/,
      hint: /anchors/,
    },
    {
      name: 'two CRDs of one kind',
      given: () => `${certificates}---\n${certificates}`,
      want: /^bad\.yaml#2: imports kind Certificate of pki\.example\.org, and so does bad\.yaml#1$/,
    },
  ];
  it.each(cases)('$name', async ({ given, options, want, hint }) => {
    const error = await importError(given(), options);
    expect(error.message).toMatch(want);
    if (hint) expect(error.hint).toMatch(hint);
  });

  it('a missing file', async () => {
    await expect(runImportCrd({ sources: ['nope.yaml'] }, testContext({ cwd: project.dir }))).rejects.toThrow(
      /^nope\.yaml: no such file or folder$/,
    );
  });

  it('a version the project already has, unless --force', async () => {
    await importAndGenerate(project.dir, { sources: [path.join(FIXTURES, 'certificates.yaml')] });
    const error = await importError(certificates);
    expect(error.message).toMatch(
      /^bad\.yaml: the project already has Certificate pki\.example\.org\/v1, pki\.example\.org\/v1alpha1 \(api\/pki\/v1\/certificate\.types\.ts, api\/pki\/v1alpha1\/certificate\.types\.ts\)$/,
    );
    expect(error.hint).toMatch(/--force/);
    await runImportCrd({ sources: ['bad.yaml'], force: true }, testContext({ cwd: project.dir }));
  });

  it('a kind the project has under another plural (another CRD of the same name), even with --force', async () => {
    await importAndGenerate(project.dir, { sources: [path.join(FIXTURES, 'certificates.yaml')] });
    const other = certificates
      .replace('name: certificates.pki.example.org', 'name: certs.pki.example.org')
      .replace('plural: certificates', 'plural: certs');
    const error = await importError(other, { force: true });
    expect(error.message).toBe(
      'bad.yaml: kind Certificate of pki.example.org clashes with the project\'s Certificate (api/pki/v1/certificate.types.ts), which is served as "certificates", not "certs": a kind has one CRD',
    );
  });

  it('a kind of the same name in another group is another kind, and imports beside it', async () => {
    await importAndGenerate(project.dir, { sources: [path.join(FIXTURES, 'certificates.yaml')] });
    await fs.writeFile(
      path.join(project.dir, 'other.yaml'),
      certificates.replaceAll('pki.example.org', 'security.example.net'),
    );
    const result = await importAndGenerate(project.dir, { sources: ['other.yaml'] });
    expect(result.imported).toEqual([
      'Certificate security.example.net/v1',
      'Certificate security.example.net/v1alpha1',
    ]);
  });

  it('outside a kop project', async () => {
    await fs.rm(path.join(project.dir, 'PROJECT'));
    await expect(
      runImportCrd({ sources: [path.join(FIXTURES, 'certificates.yaml')] }, testContext({ cwd: project.dir })),
    ).rejects.toThrow(/not a kop project/);
  });
});
