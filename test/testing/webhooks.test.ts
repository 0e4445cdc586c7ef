/** Reading and rewriting webhook manifests for startControlPlane's `webhooks` option (no control plane). */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type CustomResourceDefinition } from '../../src/testing/index.js';
import {
  applyConversionPatches,
  checkConversionPatchTargets,
  readConversionPatches,
  readWebhookConfigurations,
  rewriteWebhookConfiguration,
  type ConversionPatch,
  type WebhookConfiguration,
} from '../../src/testing/webhooks.js';

let root: string;

/** Writes `files` (path -> content) under a fresh folder and returns its path. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'case-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(join(realpathSync(tmpdir()), 'kop-webhooks-unit-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mutating = (name: string, path = '/mutate') => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: m.example.com
  clientConfig:
    service: { name: webhook-service, namespace: system, path: ${path} }
`;
const validating = (name: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: v.example.com
  clientConfig:
    service: { name: webhook-service, namespace: system, path: /validate }
`;
const conversionPatch = (crd: string, extra = '') => `# The following patch enables a conversion webhook for the CRD
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${crd}
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          namespace: system
          name: webhook-service
          path: /convert
${extra}`;

describe('readWebhookConfigurations', () => {
  const cases: Array<{
    name: string;
    given: Record<string, string>;
    paths: string[];
    want?: Array<[string, string]>;
    error?: RegExp;
  }> = [
    {
      name: 'reads both kinds from one multi-document file and ignores other kinds',
      given: {
        'config/webhook/manifests.yaml': `---\n${mutating('m')}---\n${validating('v')}---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n`,
      },
      paths: ['config/webhook/manifests.yaml'],
      want: [
        ['MutatingWebhookConfiguration', 'm'],
        ['ValidatingWebhookConfiguration', 'v'],
      ],
    },
    {
      name: 'reads every .yaml, .yml and .json of a folder in name order, not its subfolders',
      given: {
        'config/webhook/b.yml': validating('v'),
        'config/webhook/a.yaml': mutating('m'),
        'config/webhook/c.json': JSON.stringify({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: 'j' },
        }),
        'config/webhook/kustomization.yaml': 'resources: [a.yaml]\n',
        'config/webhook/notes.txt': mutating('ignored'),
        'config/webhook/nested/d.yaml': mutating('nested'),
      },
      paths: ['config/webhook'],
      want: [
        ['MutatingWebhookConfiguration', 'm'],
        ['ValidatingWebhookConfiguration', 'v'],
        ['MutatingWebhookConfiguration', 'j'],
      ],
    },
    {
      name: 'takes an absent conventional config/webhook folder as no webhooks',
      given: { 'config/crd/bases/x.yaml': 'kind: Other\n' },
      paths: ['config/webhook'],
      want: [],
    },
    {
      name: 'takes an empty file as no webhooks',
      given: { 'config/webhook/manifests.yaml': '' },
      paths: ['config/webhook'],
      want: [],
    },
    {
      name: 'names a missing path that is not the conventional folder',
      given: {},
      paths: ['config/webhooks'],
      error:
        /^webhooks\.paths: config\/webhooks does not exist \(resolved to .*config\/webhooks\); fix the path or leave it out$/,
    },
    {
      name: 'names a missing file, even inside config/webhook',
      given: {},
      paths: ['config/webhook/manifests.yaml'],
      error: /webhooks\.paths: config\/webhook\/manifests\.yaml does not exist/,
    },
    {
      name: 'names the file of a YAML syntax error',
      given: { 'config/webhook/manifests.yaml': 'kind: [unclosed\n' },
      paths: ['config/webhook'],
      error: /^webhooks\.paths: config\/webhook\/manifests\.yaml: /,
    },
    {
      name: 'refuses a configuration defined twice',
      given: { 'config/webhook/a.yaml': mutating('same'), 'config/webhook/b.yaml': mutating('same') },
      paths: ['config/webhook'],
      error:
        /MutatingWebhookConfiguration "same" is defined twice \(config\/webhook\/a\.yaml and config\/webhook\/b\.yaml\); keep one/,
    },
    {
      name: 'allows the same name for a mutating and a validating configuration',
      given: { 'config/webhook/a.yaml': `${mutating('same')}---\n${validating('same')}` },
      paths: ['config/webhook'],
      want: [
        ['MutatingWebhookConfiguration', 'same'],
        ['ValidatingWebhookConfiguration', 'same'],
      ],
    },
    {
      name: 'refuses a configuration without a name',
      given: {
        'config/webhook/a.yaml':
          'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {}\n',
      },
      paths: ['config/webhook'],
      error: /config\/webhook\/a\.yaml: a ValidatingWebhookConfiguration has no metadata\.name/,
    },
  ];

  it.each(cases)('$name', ({ given, paths, want, error }) => {
    const dir = tree(given);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      if (error) {
        expect(() => readWebhookConfigurations(paths)).toThrow(error);
      } else {
        expect(readWebhookConfigurations(paths).map((c) => [c.kind, c.metadata.name])).toEqual(want);
      }
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('readConversionPatches', () => {
  const cases: Array<{
    name: string;
    given: Record<string, string>;
    paths: string[];
    want?: Array<Omit<ConversionPatch, 'file'>>;
    error?: RegExp;
  }> = [
    {
      name: "reads Kubebuilder's webhook_in_<plural>.yaml; conversionReviewVersions default to v1",
      given: { 'config/crd/patches/webhook_in_widgets.yaml': conversionPatch('widgets.example.com') },
      paths: ['config/crd/patches'],
      want: [{ crdName: 'widgets.example.com', path: '/convert', conversionReviewVersions: ['v1'] }],
    },
    {
      name: 'keeps the listed conversionReviewVersions and the service path',
      given: {
        'p.yaml': conversionPatch('widgets.example.com', '      conversionReviewVersions: [v1, v1beta1]\n').replace(
          'path: /convert',
          'path: /convert-widgets',
        ),
      },
      paths: ['p.yaml'],
      want: [{ crdName: 'widgets.example.com', path: '/convert-widgets', conversionReviewVersions: ['v1', 'v1beta1'] }],
    },
    {
      name: 'ignores CA-injection patches, conversion None and kustomization files',
      given: {
        'config/crd/patches/cainjection_in_widgets.yaml':
          'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n  annotations: {cert-manager.io/inject-ca-from: system/serving-cert}\n',
        'config/crd/patches/none.yaml':
          'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: n.example.com}\nspec: {conversion: {strategy: None}}\n',
        'config/crd/patches/kustomization.yaml': 'patches: []\n',
      },
      paths: ['config/crd/patches'],
      want: [],
    },
    {
      name: 'takes an absent conventional config/crd/patches folder as no patches',
      given: {},
      paths: ['config/crd/patches'],
      want: [],
    },
    {
      name: 'names a missing path elsewhere',
      given: {},
      paths: ['config/crd/patch'],
      error: /^webhooks\.conversionPatches: config\/crd\/patch does not exist/,
    },
    {
      name: 'refuses a patch without the CRD name',
      given: { 'p.yaml': conversionPatch('x').replace('  name: x\n', '  labels: {}\n') },
      paths: ['p.yaml'],
      error: /p\.yaml: the patch has no metadata\.name \(the CRD it patches, <plural>\.<group>\)/,
    },
  ];

  it.each(cases)('$name', ({ given, paths, want, error }) => {
    const dir = tree(given);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      if (error) {
        expect(() => readConversionPatches(paths)).toThrow(error);
      } else {
        expect(readConversionPatches(paths).map(({ file: _file, ...rest }) => rest)).toEqual(want);
      }
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('rewriteWebhookConfiguration', () => {
  const base = 'https://127.0.0.1:9443';
  const cases: Array<{ name: string; given: WebhookConfiguration; want: WebhookConfiguration }> = [
    {
      name: 'replaces a service with the local URL plus the service path and adds the caBundle',
      given: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'm', annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' } },
        webhooks: [
          {
            name: 'a.example.com',
            clientConfig: { service: { name: 's', namespace: 'system', path: '/mutate-a', port: 443 } },
            sideEffects: 'None',
          },
          {
            name: 'b.example.com',
            clientConfig: { service: { name: 's', namespace: 'system', path: '/mutate-b' } },
            failurePolicy: 'Ignore',
          },
        ],
      },
      want: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'm', annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' } },
        webhooks: [
          { name: 'a.example.com', clientConfig: { url: `${base}/mutate-a`, caBundle: 'Q0E=' }, sideEffects: 'None' },
          {
            name: 'b.example.com',
            clientConfig: { url: `${base}/mutate-b`, caBundle: 'Q0E=' },
            failurePolicy: 'Ignore',
          },
        ],
      },
    },
    {
      name: 'serves a service without a path on /, and a URL webhook on its own path',
      given: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'v', resourceVersion: '12', uid: 'u', creationTimestamp: 'now' },
        webhooks: [
          { name: 'a.example.com', clientConfig: { service: { name: 's', namespace: 'system' }, caBundle: 'b2xk' } },
          { name: 'b.example.com', clientConfig: { url: 'https://webhook.example.com:8443/validate-b' } },
        ],
      },
      want: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'v' },
        webhooks: [
          { name: 'a.example.com', clientConfig: { url: `${base}/`, caBundle: 'Q0E=' } },
          { name: 'b.example.com', clientConfig: { url: `${base}/validate-b`, caBundle: 'Q0E=' } },
        ],
      },
    },
    {
      name: 'keeps a configuration without webhooks valid',
      given: {
        apiVersion: 'admissionregistration.k8s.io/v1beta1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'empty' },
      },
      want: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'empty' },
        webhooks: [],
      },
    },
  ];

  it.each(cases)('$name', ({ given, want }) => {
    const before = structuredClone(given);
    expect(rewriteWebhookConfiguration(given, base, 'Q0E=')).toEqual(want);
    expect(given).toEqual(before);
  });
});

describe('conversion patches applied to CRDs', () => {
  const crd = (name: string): CustomResourceDefinition => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'example.com',
      names: { plural: name.split('.')[0]!, kind: 'Thing' },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      conversion: { strategy: 'None' },
    },
  });
  const patch: ConversionPatch = {
    crdName: 'widgets.example.com',
    path: '/convert',
    conversionReviewVersions: ['v1'],
    file: 'config/crd/patches/webhook_in_widgets.yaml',
  };

  it('sets spec.conversion of the named CRD only, on a copy', () => {
    const crds = [crd('widgets.example.com'), crd('gadgets.example.com')];
    const [widgets, gadgets] = applyConversionPatches(crds, [patch], 'https://127.0.0.1:9443', 'Q0E=');
    expect(widgets!.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0E=' },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(gadgets).toBe(crds[1]);
    expect(crds[0]!.spec.conversion).toEqual({ strategy: 'None' });
  });

  const targets: Array<{ name: string; crds: string[]; error?: string }> = [
    { name: 'accepts patches whose CRDs are installed', crds: ['widgets.example.com'] },
    {
      name: 'names the patch, its CRD and the installed ones when the CRD is not installed',
      crds: ['gadgets.example.com', 'bolts.example.com'],
      error:
        'webhooks.conversionPatches: config/crd/patches/webhook_in_widgets.yaml patches CRD "widgets.example.com", which is not among the CRDs to install (bolts.example.com, gadgets.example.com); add its CRD to the crds option, or fix the patch\'s metadata.name',
    },
    { name: 'says none when no CRD is installed', crds: [], error: 'which is not among the CRDs to install (none)' },
  ];
  it.each(targets)('$name', ({ crds, error }) => {
    const check = () => checkConversionPatchTargets(crds.map(crd), [patch]);
    if (error) expect(check).toThrow(error);
    else expect(check).not.toThrow();
  });
});

describe('startControlPlane with a wrong webhooks option', () => {
  const project = new URL('./fixtures/webhook-project/config/', import.meta.url).pathname;
  const cases: Array<{ name: string; options: Parameters<typeof startControlPlane>[0]; error: RegExp }> = [
    {
      name: 'fails before starting anything when a path is missing',
      options: { webhooks: { paths: [join(project, 'webhooks')] } },
      error: /^webhooks\.paths: .*config\/webhooks does not exist/,
    },
    {
      name: 'fails before starting anything when a conversion patch names a CRD that is not installed',
      options: { webhooks: { conversionPatches: [join(project, 'crd/patches')] } },
      error:
        /webhook_in_gizmos\.yaml patches CRD "gizmos\.test\.kop\.dev", which is not among the CRDs to install \(none\)/,
    },
  ];
  it.each(cases)('$name', async ({ options, error }) => {
    await expect(startControlPlane(options)).rejects.toThrow(error);
  });
});
