/**
 * The generated CRDs against a real kube-apiserver (kop/testing): every schema case's
 * CRD is accepted, the server applies defaults, rejects CRs that break each kind of
 * validation, and scales a RedisCluster through /scale. The webhook configurations of the
 * conformance cases are accepted too (server-side dry run, so no webhook intercepts the
 * CRs above), and the values kop refuses in webhook markers are the ones the server refuses.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../../src/testing/index.js';
import {
  acquireSharedControlPlane,
  type SharedControlPlane,
  type SharedControlPlaneLease,
} from '../helpers/shared-control-plane.js';
import { apiRequest } from '../testing/helpers.js';
import type { JSONSchemaProps } from '../../src/schema/json-schema.js';
import { re2PatternProblem } from '../../src/schema/re2-pattern.js';
import { DEFAULT_CASES, JUNCTOR_KEYS_SCHEMA, JUNCTOR_KEYS_WANT } from './default-cases.js';
import { CASES_DIR, listCaseDirs } from './run-case.js';
import { commentMarkersInText } from '../../src/markers/collect.js';
import {
  buildWebhookConfigurations,
  type WebhookConfigurationObject,
} from '../../src/webhook-manifests/webhook-configuration.js';
import { parseWebhookMarkers, WEBHOOK_SCAN_PREFIX } from '../../src/webhook-manifests/webhook-markers.js';

let lease: SharedControlPlaneLease;
let plane: SharedControlPlane;

const request = (method: string, url: string, body?: unknown, contentType?: string) =>
  apiRequest(plane, plane.admin, method, url, body, contentType);
const redisUrl = '/apis/cache.example.com/v1alpha1/namespaces/default/redisclusters';

function redis(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'cache.example.com/v1alpha1', kind: 'RedisCluster', metadata: { name }, spec };
}

beforeAll(async () => {
  const crds: CustomResourceDefinition[] = [];
  for (const name of await listCaseDirs(CASES_DIR)) {
    const text = await fs.readFile(path.join(CASES_DIR, name, 'crd.yaml'), 'utf8');
    for (const doc of parseAllDocuments(text)) crds.push(doc.toJS() as CustomResourceDefinition);
  }
  lease = await acquireSharedControlPlane();
  plane = lease.plane;
  await plane.installCRDs(crds);
}, 180_000);

afterAll(async () => {
  await lease?.release();
});

describe('generated CRDs on a real apiserver', () => {
  it('accepted every case CRD as structural and established', async () => {
    const list = await request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    const items = list.json<{
      items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[];
    }>().items;
    expect(items.map((i) => i.metadata.name)).toContain('redisclusters.cache.example.com');
    for (const item of items) {
      const conditions = Object.fromEntries(item.status.conditions.map((c) => [c.type, c.status]));
      expect(conditions.Established, item.metadata.name).toBe('True');
      expect(conditions.NonStructuralSchema, item.metadata.name).toBeUndefined();
    }
  });

  it('applies defaults the CR leaves out', async () => {
    const created = await request('POST', redisUrl, redis('defaulted', { mode: 'cluster', version: '7.2' }));
    expect(created.status, created.body).toBe(201);
    expect(created.json<{ spec: Record<string, unknown> }>().spec).toEqual({
      mode: 'cluster',
      version: '7.2',
      replicas: 3,
    });

    const nested = await request('POST', '/apis/defaults.example.com/v1/namespaces/default/defaulteds', {
      apiVersion: 'defaults.example.com/v1',
      kind: 'Defaulted',
      metadata: { name: 'd' },
    });
    expect(nested.status, nested.body).toBe(201);
    expect(nested.json<{ spec: Record<string, unknown> }>().spec).toMatchObject({
      replicas: 3,
      logLevel: 'info',
      greeting: 'quoted value',
      enabled: true,
      policy: { action: 'delete', graceSeconds: 30 },
      ports: [80, 443],
      scope: 'Cluster',
      steps: [1, 2, 3],
      labels: { team: 'core' },
    });
  });

  const invalid: { name: string; spec: Record<string, unknown>; want: RegExp }[] = [
    {
      name: 'minimum',
      spec: { mode: 'cluster', version: '7.2', replicas: 0 },
      want: /spec\.replicas: Invalid value: 0: spec\.replicas in body should be greater than or equal to 1/,
    },
    { name: 'enum', spec: { mode: 'bogus', version: '7.2' }, want: /spec\.mode: Unsupported value: "bogus"/ },
    { name: 'pattern', spec: { mode: 'cluster', version: 'latest' }, want: /spec\.version: Invalid value: "latest"/ },
    { name: 'required', spec: { mode: 'cluster' }, want: /spec\.version: Required value/ },
    { name: 'quantity', spec: { mode: 'cluster', version: '7.2', memory: 'lots' }, want: /spec\.memory/ },
    {
      name: 'map',
      spec: { mode: 'cluster', version: '7.2', podLabels: { a: 1 } },
      want: /spec\.podLabels\.a: Invalid value: "integer"/,
    },
    {
      name: 'listmap',
      spec: { mode: 'cluster', version: '7.2', shards: [{ name: 'a' }, { name: 'a' }] },
      want: /spec\.shards\[1\]: Duplicate value/,
    },
    {
      name: 'item-maximum',
      spec: { mode: 'cluster', version: '7.2', shards: [{ name: 'a', weight: 101 }] },
      want: /spec\.shards\[0\]\.weight/,
    },
    {
      name: 'cel',
      spec: { mode: 'standalone', version: '7.2', replicas: 2 },
      want: /standalone mode runs exactly one replica/,
    },
  ];
  for (const { name, spec, want } of invalid) {
    it(`rejects a CR that breaks ${name}`, async () => {
      const response = await request('POST', redisUrl, redis(`bad-${name}`, spec));
      expect(response.status, response.body).toBe(422);
      expect(response.json<{ message: string }>().message).toMatch(want);
    });
  }

  it('enforces one-of and immutability rules', async () => {
    const url = '/apis/rules.example.com/v1/namespaces/default/rules';
    const rule = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'rules.example.com/v1',
      kind: 'Rule',
      metadata: { name },
      spec,
    });
    const twoSources = await request(
      'POST',
      url,
      rule('two', { minReplicas: 1, maxReplicas: 2, clusterName: 'c', source: { configMap: 'a', secret: 's-b' } }),
    );
    expect(twoSources.status).toBe(422);
    expect(twoSources.body).toContain('exactly one of the fields in [configMap secret] must be set');
    const created = await request(
      'POST',
      url,
      rule('ok', { minReplicas: 1, maxReplicas: 2, clusterName: 'c', source: { configMap: 'a' } }),
    );
    expect(created.status, created.body).toBe(201);
    const patched = await request(
      'PATCH',
      `${url}/ok`,
      { spec: { clusterName: 'other' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(422);
    expect(patched.body).toContain('field is immutable');
  });

  it('scales through the /scale subresource', async () => {
    const created = await request('POST', redisUrl, redis('scaled', { mode: 'cluster', version: '7.2', replicas: 2 }));
    expect(created.status, created.body).toBe(201);
    const status = await request(
      'PATCH',
      `${redisUrl}/scaled/status`,
      { status: { replicas: 2, selector: 'app=scaled' } },
      'application/merge-patch+json',
    );
    expect(status.status, status.body).toBe(200);
    const scale = await request('GET', `${redisUrl}/scaled/scale`);
    expect(scale.json<{ spec: { replicas: number }; status: { replicas: number; selector: string } }>()).toMatchObject({
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'app=scaled' },
    });
    const updated = await request(
      'PATCH',
      `${redisUrl}/scaled/scale`,
      { spec: { replicas: 5 } },
      'application/merge-patch+json',
    );
    expect(updated.status, updated.body).toBe(200);
    const after = await request('GET', `${redisUrl}/scaled`);
    expect(after.json<{ spec: { replicas: number } }>().spec.replicas).toBe(5);
  });
});

describe('defaults and junctors: kop and the apiserver agree', () => {
  const crdWith = (name: string, properties: Record<string, JSONSchemaProps>) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.agree.example.com` },
    spec: {
      group: 'agree.example.com',
      scope: 'Namespaced',
      names: {
        plural: `${name}s`,
        singular: name,
        kind: name.charAt(0).toUpperCase() + name.slice(1),
        listKind: `${name.charAt(0).toUpperCase() + name.slice(1)}List`,
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
        },
      ],
    },
  });
  const dryRunCreate = (crd: unknown) =>
    request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
  /** `spec.validation.openAPIV3Schema.properties[spec].properties[f3].allOf[0].default` -> `.spec.f3.allOf[0]` (the node, without the key). */
  const nodePath = (field: string) => {
    const inSchema = field.slice(field.indexOf('openAPIV3Schema') + 'openAPIV3Schema'.length);
    return inSchema
      .replace(/\.default(\..*)?$/, '')
      .replace(/\.[^.[\]]+$/, (key) => (key === '.not' ? key : ''))
      .replace(/\.properties\[([^\]]+)\]/g, '.$1');
  };
  const causesOf = (response: { json<T>(): T }) =>
    response.json<{ details: { causes: { field: string; message: string }[] } }>().details.causes;

  it('refuses exactly the defaults kop refuses under allOf/anyOf/oneOf/not, int-or-string patterns and one-of rules', async () => {
    const properties = Object.fromEntries(DEFAULT_CASES.map((c, i) => [`f${i}`, { ...c.schema, default: c.value }]));
    const response = await dryRunCreate(crdWith('defaultcheck', properties));
    const refusedByServer = new Set(
      causesOf(response).map((c) => /properties\[spec\]\.properties\[(f\d+)\]\.default/.exec(c.field)?.[1]),
    );
    for (const [i, c] of DEFAULT_CASES.entries()) {
      expect(refusedByServer.has(`f${i}`), `${c.name}: ${response.body}`).toBe(c.want.length > 0);
    }
  });

  it('refuses exactly the patterns kop refuses (RE2, not JavaScript regex syntax)', async () => {
    const patterns = [
      '^[a-z]+$',
      '^(?i)abc$',
      '^[[:alpha:]]+$',
      '^\\p{L}+$',
      '^(?P<word>\\w+)$',
      '^a{2,1000}$',
      '^[]a]$',
      '^(?=a)a$',
      '^(?!a)b$',
      '^(?<=a)b$',
      '^(?<!a)b$',
      '^(a)\\1$',
      '^(?>a)$',
      '^a++$',
      '^a{1001}$',
      '^a{3,2}$',
      '^(a$',
      '^a)$',
      '^[a$',
      'a\\',
      // JavaScript habits RE2 refuses, and RE2 forms JavaScript's u mode refuses.
      '^\\u00e9$',
      '^\\x{e9}$',
      '^\\cA$',
      '^\\e$',
      '^[\\b]$',
      '^\\12$',
      '^\\8$',
      '*a',
      'a|*',
      'a**',
      'a*?',
      'a{2}{3}',
      '^[z-a]$',
      '^[a-\\d]$',
      '^[\\d-z]$',
      '^(?x)a$',
      '^(?i-)a$',
      '^(?i-s:a)$',
      '^(?)a$',
      '^a(?i)*$',
      '^*a$',
      '^a{,3}$',
      '^\\Q.*\\E+$',
      '^\\pL$',
      '^\\p{Script=Greek}$',
      '^[[:foo:]]$',
      '^(?<n>a)$',
      '^(?P=n)$',
      '^[\\w.-]+\\z',
      '^]}$',
    ];
    const properties = Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]));
    const response = await dryRunCreate(crdWith('patterncheck', properties));
    const refusedByServer = new Set(
      causesOf(response).map((c) => /properties\[spec\]\.properties\[(p\d+)\]\.pattern/.exec(c.field)?.[1]),
    );
    const disagreements = patterns.filter(
      (pattern, i) => refusedByServer.has(`p${i}`) !== (re2PatternProblem(pattern) !== undefined),
    );
    expect(disagreements, response.body).toEqual([]);
    expect(refusedByServer.size).toBeGreaterThan(5);
  });

  it('refuses the keys kop refuses under junctors, at the same places', async () => {
    const response = await dryRunCreate(crdWith('junctorkeys', JUNCTOR_KEYS_SCHEMA.properties!));
    expect(response.status, response.body).toBe(422);
    const server = causesOf(response).map(
      (c) =>
        `${nodePath(c.field).replace(/^\.spec/, '')}: ${c.field.slice(c.field.lastIndexOf('.') + 1)} ${c.message.replace(/^Forbidden: /, '')}`,
    );
    expect(server.sort()).toEqual([...JUNCTOR_KEYS_WANT].sort());
  });
});

describe('generated webhook configurations on a real apiserver', () => {
  const casesDir = path.join(CASES_DIR, '..', '..', 'conformance', 'webhook');
  const dryRunCreate = (object: WebhookConfigurationObject) =>
    request('POST', `/apis/admissionregistration.k8s.io/v1/${object.kind.toLowerCase()}s?dryRun=All`, object);
  const configurationsOf = async (file: string) => {
    const text = await fs.readFile(path.join(casesDir, file), 'utf8');
    const found = commentMarkersInText(text.replace(/^\+/gm, '// +'), file, [WEBHOOK_SCAN_PREFIX]).get(
      WEBHOOK_SCAN_PREFIX,
    )!;
    const { webhooks, configurations } = parseWebhookMarkers(found);
    return buildWebhookConfigurations(webhooks, configurations);
  };

  it('accepts the configurations of every webhook conformance case', async () => {
    const files = (await fs.readdir(casesDir)).filter((f) => f.endsWith('.txt'));
    let created = 0;
    for (const file of files) {
      for (const object of await configurationsOf(file)) {
        const response = await dryRunCreate(object);
        expect(response.status, `${file} ${object.kind}: ${response.body}`).toBe(201);
        created++;
      }
    }
    expect(created).toBeGreaterThanOrEqual(3);
  });

  it('refuses the values kop refuses in webhook markers', async () => {
    const [mutating] = await configurationsOf('both-kinds.txt');
    const broken: [string, (w: Record<string, unknown>) => void, RegExp][] = [
      ['failurePolicy', (w) => (w.failurePolicy = 'never'), /failurePolicy: Unsupported value/],
      [
        'verb',
        (w) => ((w.rules as { operations: string[] }[])[0]!.operations = ['GET']),
        /operations\[0\]: Unsupported value/,
      ],
      ['sideEffects', (w) => (w.sideEffects = 'Some'), /sideEffects: Unsupported value/],
      ['timeoutSeconds', (w) => (w.timeoutSeconds = 31), /timeoutSeconds: Invalid value/],
      ['name', (w) => (w.name = 'two.segments'), /should be a domain with at least three segments/],
      [
        'path',
        (w) => ((w.clientConfig as { service: { path: string } }).service.path = 'relative'),
        /path: Invalid value/,
      ],
      [
        'verb *',
        (w) => ((w.rules as { operations: string[] }[])[0]!.operations = ['*', 'CREATE']),
        /if '\*' is present, must not specify other operations/,
      ],
      [
        'group *',
        (w) => ((w.rules as { apiGroups: string[] }[])[0]!.apiGroups = ['*', 'apps']),
        /if '\*' is present, must not specify other API groups/,
      ],
      [
        'resources *',
        (w) => ((w.rules as { resources: string[] }[])[0]!.resources = ['*', 'pods']),
        /if '\*' is present, must not specify other resources without subresources/,
      ],
      [
        'resources */*',
        (w) => ((w.rules as { resources: string[] }[])[0]!.resources = ['*/*', 'pods']),
        /if '\*\/\*' is present, must not specify other resources/,
      ],
    ];
    for (const [what, breakIt, want] of broken) {
      const object = structuredClone(mutating!);
      breakIt(object.webhooks[0] as unknown as Record<string, unknown>);
      const response = await dryRunCreate(object);
      expect(response.status, what).toBe(422);
      expect(response.body, what).toMatch(want);
    }
    const duplicate = structuredClone(mutating!);
    duplicate.webhooks[1]!.name = duplicate.webhooks[0]!.name;
    expect((await dryRunCreate(duplicate)).body).toMatch(/Duplicate value/);
  });
});
