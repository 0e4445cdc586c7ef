import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProjectResource } from '../../src/project/project-file.js';
import { VirtualTree } from '../../src/scaffold/tree.js';
import { decideStorageVersion, storageVersionMarks, storageVersionOf } from '../../src/markers/storage-version.js';
import { loadApiModel } from '../../src/schema/model.js';

const entry = (version: string, api = true): ProjectResource => ({
  group: 'cache',
  version,
  kind: 'RedisCluster',
  plural: 'redisclusters',
  domain: 'example.com',
  ...(api ? { api: { crdVersion: 'v1', namespaced: true } } : {}),
});

const types = (markers: string[]) =>
  `/**\n * RedisCluster is the root type.\n${markers.map((m) => ` * ${m}\n`).join('')} */\nexport interface RedisCluster {\n  spec: object;\n}\n`;

const ROOT = '/nonexistent-kop-test-root';

/** A tree over a folder that is never read: every file is staged. */
function treeWith(files: Record<string, string>): VirtualTree {
  const tree = new VirtualTree(ROOT);
  for (const [file, text] of Object.entries(files)) tree.write(file, text);
  return tree;
}

describe('storage version of a kind', () => {
  it('is the first version marked +kubebuilder:storageversion, else the first version', async () => {
    const versions = [entry('v1alpha1'), entry('v1'), entry('v2')];
    const marked = treeWith({
      'api/cache/v1alpha1/rediscluster.types.ts': types(['+kubebuilder:object:root=true']),
      'api/cache/v1/rediscluster.types.ts': types(['+kubebuilder:object:root=true', '+kubebuilder:storageversion']),
      'api/cache/v2/rediscluster.types.ts': types(['+kubebuilder:object:root=true']),
    });
    expect(await storageVersionOf(marked, versions)).toEqual({ hub: 'v1', marked: true });
    const unmarked = treeWith({
      'api/cache/v1alpha1/rediscluster.types.ts': types([]),
      'api/cache/v1/rediscluster.types.ts': types([]),
    });
    expect(await storageVersionOf(unmarked, versions)).toEqual({ hub: 'v1alpha1', marked: false });
  });

  it('lists every marked version with the marker line, and skips versions without scaffolded types', async () => {
    const tree = treeWith({
      'api/cache/v1/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
      'api/cache/v2/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
      'api/cache/v3/rediscluster.types.ts': types(['+kubebuilder:storageversion']),
    });
    const marks = await storageVersionMarks(tree, [entry('v1'), entry('v2'), entry('v3', false)]);
    expect(marks.map((m) => [m.resource.version, m.marker.location.file, m.marker.location.line])).toEqual([
      ['v1', 'api/cache/v1/rediscluster.types.ts', 3],
      ['v2', 'api/cache/v2/rediscluster.types.ts', 3],
    ]);
  });
});

describe('the storage version rule', () => {
  it('is the one version marked, or the only version; else open, with the marked ones', () => {
    const cases: { given: [string, boolean][]; want: { storage: string | undefined; marked: string[] } }[] = [
      { given: [['v1', false]], want: { storage: 'v1', marked: [] } },
      { given: [['v1', true]], want: { storage: 'v1', marked: ['v1'] } },
      {
        given: [
          ['v1', false],
          ['v2', true],
        ],
        want: { storage: 'v2', marked: ['v2'] },
      },
      {
        given: [
          ['v1', false],
          ['v2', false],
        ],
        want: { storage: undefined, marked: [] },
      },
      {
        given: [
          ['v1', true],
          ['v2', true],
          ['v3', false],
        ],
        want: { storage: undefined, marked: ['v1', 'v2'] },
      },
      { given: [], want: { storage: undefined, marked: [] } },
    ];
    for (const { given, want } of cases) {
      const { storage, marked } = decideStorageVersion(given, ([, isMarked]) => isMarked);
      expect({ storage: storage?.[0], marked: marked.map(([v]) => v) }, JSON.stringify(given)).toEqual(want);
    }
  });
});

/**
 * create api and create webhook read the storage version from the types files' marker text
 * (storageVersionOf); kop generate from the parsed model (schema/kinds.ts). The same files must give
 * the same answer, wherever the marker is written.
 */
describe('storage version: the commands and kop generate agree', () => {
  const DOC = ' * RedisCluster is the root type.\n';
  const LAYOUTS: Record<string, (marked: boolean) => string> = {
    'in the doc comment': (marked) =>
      `/**\n${DOC} * +kubebuilder:object:root=true\n${marked ? ' * +kubebuilder:storageversion\n' : ''} */\n`,
    'in the // group above the doc comment (the Kubebuilder way)': (marked) =>
      `// +kubebuilder:object:root=true\n${marked ? '// +kubebuilder:storageversion\n' : ''}\n/**\n${DOC} */\n`,
    'alone in a // group above the doc comment': (marked) =>
      `${marked ? '// +kubebuilder:storageversion\n\n' : ''}/**\n${DOC} * +kubebuilder:object:root=true\n */\n`,
  };
  const typesFile = (comment: string) =>
    "import type { ObjectMeta } from 'kop/api';\n\nexport interface RedisClusterSpec {\n  foo?: string;\n}\n\n" +
    comment +
    'export interface RedisCluster {\n  apiVersion?: string;\n  kind?: string;\n  metadata?: ObjectMeta;\n  spec?: RedisClusterSpec;\n}\n';

  /** Both answers for a kind whose versions (in PROJECT's order) are marked as given. */
  async function bothWays(layout: (marked: boolean) => string, versions: [string, boolean][]) {
    const files = new Map<string, string>();
    for (const [version, marked] of versions) {
      files.set(`api/cache/${version}/groupversion.ts`, '// +groupName=cache.example.com\n\nexport const GROUP = 1;\n');
      files.set(`api/cache/${version}/rediscluster.types.ts`, typesFile(layout(marked)));
    }
    const entries = versions.map(([version]) => entry(version));
    const commands = await storageVersionOf(treeWith(Object.fromEntries(files)), entries);
    const marks = (await storageVersionMarks(treeWith(Object.fromEntries(files)), entries)).map(
      (m) => m.resource.version,
    );
    const absolute = new Map([...files].map(([file, text]) => [path.join(ROOT, file), text]));
    const generate = await loadApiModel(ROOT, { files: [...absolute.keys()], sources: absolute }).then(
      (model) => ({ storage: model.kinds[0]!.versions.filter((v) => v.storage).map((v) => v.version) }),
      (error: unknown) => ({ error: (error as Error).message }),
    );
    return { commands, marks, generate };
  }

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`decides the same version with the marker ${name}`, async () => {
      const decided: [string, boolean][][] = [
        [['v1', false]],
        [['v1', true]],
        [
          ['v1alpha1', false],
          ['v1', true],
        ],
        [
          ['v1alpha1', true],
          ['v1', false],
          ['v2', false],
        ],
        [
          ['v1', false],
          ['v2', true],
          ['v3', false],
        ],
      ];
      for (const versions of decided) {
        const { commands, generate } = await bothWays(layout, versions);
        const marked = versions.find(([, m]) => m);
        const want = (marked ?? versions[0]!)[0];
        expect({ generate, commands }, JSON.stringify(versions)).toEqual({
          generate: { storage: [want] },
          commands: { hub: want, marked: marked !== undefined },
        });
      }
    });

    it(`sees the same marks where generate refuses the kind, with the marker ${name}`, async () => {
      const none = await bothWays(layout, [
        ['v1', false],
        ['v2', false],
      ]);
      expect(none.generate).toEqual({ error: expect.stringMatching(/none is marked as the storage version/) });
      expect(none.marks).toEqual([]);
      // The hub a conversion would convert through, and mark.
      expect(none.commands).toEqual({ hub: 'v1', marked: false });
      const two = await bothWays(layout, [
        ['v1', true],
        ['v2', true],
      ]);
      expect(two.generate).toEqual({ error: expect.stringMatching(/has 2 storage versions \(v2, v1\)/) });
      expect(two.marks).toEqual(['v1', 'v2']);
    });
  }
});
