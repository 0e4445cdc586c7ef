import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareKubeVersions, loadApiModel, type ApiModel } from '../../src/schema/model.js';
import { normaliseDoc } from '../../src/schema/comments.js';

let root: string;
let model: ApiModel;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-model-'));
  const dir = path.join(root, 'api', 'cache', 'v1alpha1');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, 'groupversion.ts'),
    "// +groupName=cache.example.com\n\nexport const GROUP = 'cache.example.com';\n",
  );
  await fs.writeFile(
    path.join(dir, 'redis.types.ts'),
    [
      "import type { int32 as i32, ObjectMeta } from 'kop/api';",
      "import * as k from 'kop/api';",
      "import type { Shared } from '../../shared/shared.js';",
      '',
      '/** Spec doc. */',
      'export interface RedisSpec extends Shared {',
      '  /**',
      '   * Replicas doc.',
      '   * +kubebuilder:validation:Minimum=1',
      '   */',
      '  replicas?: i32;',
      '  memory?: k.Quantity;',
      "  mode: 'a' | 'b';",
      '  inline?: { x: string };',
      '}',
      '',
      '/**',
      ' * Redis doc.',
      ' * +kubebuilder:object:root=true',
      ' * +kubebuilder:resource:shortName=rd',
      ' */',
      'export interface Redis { metadata?: ObjectMeta; spec?: RedisSpec }',
      '',
      '/** +kubebuilder:object:root=true */',
      'export interface RedisList { metadata?: k.ListMeta; items: Redis[] }',
    ].join('\n'),
  );
  await fs.mkdir(path.join(root, 'api', 'shared'), { recursive: true });
  await fs.writeFile(
    path.join(root, 'api', 'shared', 'shared.ts'),
    '/** Shared fields. */\nexport interface Shared { paused?: boolean }\n',
  );
  model = await loadApiModel(root);
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('loadApiModel', () => {
  it('finds packages with group and version', () => {
    const pkg = model.packages.find((p) => p.dir === 'api/cache/v1alpha1')!;
    expect(pkg.group).toBe('cache.example.com');
    expect(pkg.version).toBe('v1alpha1');
    expect(pkg.files).toEqual(['api/cache/v1alpha1/groupversion.ts', 'api/cache/v1alpha1/redis.types.ts']);
  });

  it('finds kinds, skipping list types', () => {
    expect(model.kinds.map((k) => k.kind)).toEqual(['Redis']);
    const kind = model.kinds[0]!;
    expect(kind).toMatchObject({
      group: 'cache.example.com',
      plural: 'redis',
      singular: 'redis',
      listKind: 'RedisList',
      scope: 'Namespaced',
      shortNames: ['rd'],
    });
    expect(kind.versions.map((v) => [v.version, v.storage, v.served])).toEqual([['v1alpha1', true, true]]);
    expect(kind.versions[0]!.spec?.name).toBe('spec');
  });

  it('resolves types syntactically: aliases, namespaces, relative imports, literals', () => {
    const spec = model.declaration('api/cache/v1alpha1/redis.types.ts', 'RedisSpec')!;
    expect(spec.doc).toBe('Spec doc.');
    const byName = Object.fromEntries(spec.fields.map((f) => [f.name, f]));
    expect(byName.replicas!.type).toMatchObject({ kind: 'wellKnown', name: 'int32' });
    expect(byName.replicas!.doc).toBe('Replicas doc.');
    expect(byName.replicas!.markers.map((m) => [m.name, m.value, m.location.line])).toEqual([
      ['kubebuilder:validation:Minimum', 1, 9],
    ]);
    expect(byName.memory!.type).toMatchObject({ kind: 'wellKnown', name: 'Quantity' });
    expect(byName.mode!.type).toMatchObject({ kind: 'enum', values: ['a', 'b'] });
    expect(byName.inline!.type.kind).toBe('object');
    expect(spec.extends[0]).toMatchObject({ kind: 'reference', name: 'Shared' });
    if (spec.extends[0]!.kind === 'reference') expect(spec.extends[0]!.target.file).toBe('api/shared/shared.ts');
  });
});

describe('helpers', () => {
  it('orders Kubernetes versions', () => {
    const versions = ['v1alpha1', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v2beta1'];
    expect(versions.sort((a, b) => compareKubeVersions(b, a))).toEqual([
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v1beta1',
      'v1alpha1',
    ]);
  });
  it('normalises doc text', () => {
    expect(normaliseDoc(['', 'a  ', '', '', 'b', ''])).toBe('a\n\nb');
  });
});
