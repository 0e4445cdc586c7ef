import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadTsMorph } from '../../src/base/index.js';
import { coreTypeNames, coreTypeSchema, coreTypesSource, isCoreTypeName } from '../../src/schema/core-types.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Exports of kop/api that are helpers of kop's own, not Go types with a controller-gen schema. */
const NOT_CORE_TYPES = new Set(['JSONValue', 'JSONObject']);

function kopApiExports(): string[] {
  // Loaded as kop loads it (see there): an ESM import costs more CPU in every worker thread.
  const project = new (loadTsMorph().Project)({
    tsConfigFilePath: path.join(repoRoot, 'tsconfig.json'),
    skipAddingFilesFromTsConfig: true,
  });
  const index = project.addSourceFileAtPath(path.join(repoRoot, 'src', 'api', 'index.ts'));
  project.resolveSourceFileDependencies();
  return [...index.getExportedDeclarations().keys()].sort();
}

describe('core type schemas', () => {
  it('cover every type kop/api exports, and nothing else', () => {
    const exported = kopApiExports().filter((name) => !NOT_CORE_TYPES.has(name));
    expect(exported.length).toBeGreaterThan(200);
    expect(coreTypeNames()).toEqual(exported);
  });

  it('are what controller-gen emits for the well-known types', () => {
    const table: Array<{ given: string; want: unknown }> = [
      { given: 'int', want: { type: 'integer' } },
      { given: 'int32', want: { format: 'int32', type: 'integer' } },
      { given: 'int64', want: { format: 'int64', type: 'integer' } },
      { given: 'Time', want: { format: 'date-time', type: 'string' } },
      { given: 'MicroTime', want: { format: 'date-time', type: 'string' } },
      { given: 'Duration', want: { type: 'string' } },
      { given: 'ObjectMeta', want: { type: 'object' } },
      { given: 'JSON', want: { 'x-kubernetes-preserve-unknown-fields': true } },
      { given: 'RawExtension', want: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      {
        given: 'IntOrString',
        want: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
      },
      {
        given: 'Quantity',
        want: {
          anyOf: [{ type: 'integer' }, { type: 'string' }],
          pattern:
            '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
          'x-kubernetes-int-or-string': true,
        },
      },
    ];
    for (const { given, want } of table) expect(coreTypeSchema(given), given).toEqual(want);
  });

  it('inline nested core types with their markers (PodTemplateSpec)', () => {
    const pod = coreTypeSchema('PodTemplateSpec')!;
    expect(pod.type).toBe('object');
    expect(pod.description).toMatch(/^PodTemplateSpec describes/);
    expect(pod.properties!.metadata).toMatchObject({ type: 'object' });
    const spec = pod.properties!.spec!;
    expect(spec.required).toEqual(['containers']);
    const containers = spec.properties!.containers!;
    expect(containers['x-kubernetes-list-type']).toBe('map');
    expect(containers['x-kubernetes-list-map-keys']).toEqual(['name']);
    const container = containers.items!;
    expect(container.required).toEqual(['name']);
    // The nested schema equals Container's own, except that a field's description replaces the type's.
    const { description: _containerDoc, ...containerShape } = coreTypeSchema('Container')!;
    const { description: _fieldDoc, ...nestedShape } = container;
    expect(nestedShape).toEqual(containerShape);
    expect(container.properties!.resources!.properties!.limits!.additionalProperties).toEqual(
      coreTypeSchema('Quantity'),
    );
    expect(JSON.stringify(pod)).not.toContain('x-kop-ref');
  });

  it('give the metav1.Condition schema for Condition', () => {
    const condition = coreTypeSchema('Condition')!;
    expect(condition.required).toEqual(['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    expect(condition.properties!.status!.enum).toEqual(['True', 'False', 'Unknown']);
    expect(condition.properties!.observedGeneration).toMatchObject({ format: 'int64', minimum: 0, type: 'integer' });
  });

  it('return a fresh copy each time and nothing for unknown names', () => {
    const first = coreTypeSchema('EnvVar')!;
    first.properties!.name!.type = 'integer';
    expect(coreTypeSchema('EnvVar')!.properties!.name!.type).toBe('string');
    for (const name of ['NotAType', 'constructor', 'toString', '__proto__', '']) {
      expect(coreTypeSchema(name), name).toBeUndefined();
      expect(isCoreTypeName(name), name).toBe(false);
    }
    expect(coreTypesSource()).toEqual({ kubernetesVersion: 'v1.36.3', controllerGenVersion: 'v0.21.0' });
  });

  it('every type carries a description, as controller-gen gives it, except the scalars', () => {
    const scalars = new Set([
      'int',
      'int32',
      'int64',
      'Time',
      'MicroTime',
      'Duration',
      'JSON',
      'RawExtension',
      'IntOrString',
      'Quantity',
      'ObjectMeta',
    ]);
    const missing = coreTypeNames().filter((name) => !scalars.has(name) && !coreTypeSchema(name)!.description);
    expect(missing).toEqual([]);
  });
});

const controllerGen =
  process.env.CONTROLLER_GEN ??
  path.join(
    process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
    'kop',
    'tools',
    'controller-gen-v0.21.0',
    'controller-gen',
  );
const haveGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// Where Go is present; the script installs controller-gen v0.21.0 into kop's tools cache when it is missing.
describe.skipIf(!haveGo)('core types regeneration (needs Go)', () => {
  it('the committed types, Go stub and schemas are what hack/gen-core-types.ts produces', () => {
    execFileSync(
      path.join(repoRoot, 'node_modules', '.bin', 'tsc'),
      ['-p', path.join(repoRoot, 'hack', 'tsconfig.json')],
      { stdio: 'pipe' },
    );
    const output = execFileSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules', '.cache', 'kop-hack', 'gen-core-types.js'), '--check'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, CONTROLLER_GEN: controllerGen },
      },
    );
    expect(output).toMatch(/^up to date/);
  }, 600_000);
});
