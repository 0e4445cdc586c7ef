import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generators } from '../../src/commands/generate.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { formatProjectFile, LAYOUT, parseProjectFile, type ProjectResource } from '../../src/project/project-file.js';
import { testContext } from '../helpers/fake-context.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kop-genclient-'));
  temps.push(dir);
  cpSync(path.join(here, 'fixtures/project/api'), path.join(dir, 'api'), { recursive: true });
  writeFileSync(
    path.join(dir, 'PROJECT'),
    formatProjectFile({
      version: '1',
      layout: [LAYOUT],
      domain: 'example.com',
      projectName: 'redis-operator',
      resources: [],
    }),
  );
  return dir;
}

const client = generators.filter((g) => g.name === 'client');

describe('kop generate client', () => {
  it('is a sub-command and part of plain `kop generate`, after manifests', () => {
    expect(generators.map((g) => g.name)).toEqual(['manifests', 'client']);
  });

  it('writes the descriptors, then --check passes; a changed kind makes --check name the stale descriptor file', async () => {
    const dir = project();
    await runGenerate({ check: false, generators: client }, testContext({ cwd: dir }));
    const written = readFileSync(path.join(dir, 'api/cache/v1alpha1/rediscluster.client.ts'), 'utf8');
    expect(written).toBe(
      readFileSync(path.join(here, '../golden/clientgen/api/cache/v1alpha1/rediscluster.client.ts'), 'utf8'),
    );

    const ok = testContext({ cwd: dir });
    await runGenerate({ check: true, generators: client }, ok);
    expect(ok.out.lines).toContain('generated files are up to date');

    // The kind becomes cluster-scoped: its descriptor must say so.
    const types = path.join(dir, 'api/cache/v1alpha1/rediscluster.types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        ' * +kubebuilder:resource:shortName=rc\n',
        ' * +kubebuilder:resource:shortName=rc,scope=Cluster\n',
      ),
    );
    await expect(runGenerate({ check: true, generators: client }, testContext({ cwd: dir }))).rejects.toThrow(
      /stale: api\/cache\/v1alpha1\/rediscluster\.client\.ts/,
    );
  });

  it('deletes the generated client of a kind whose types were removed, and keeps hand-written .client.ts files', async () => {
    const dir = project();
    await runGenerate({ check: false, generators: client }, testContext({ cwd: dir }));
    const stale = 'api/cache/v1alpha1/rediscluster.client.ts';
    const own = 'api/cache/v1alpha1/extra.client.ts';
    writeFileSync(path.join(dir, own), 'export const mine = 1;\n');
    rmSync(path.join(dir, 'api/cache/v1alpha1/rediscluster.types.ts'));

    await expect(runGenerate({ check: true, generators: client }, testContext({ cwd: dir }))).rejects.toThrow(
      `stale: ${stale} (no longer generated)`,
    );
    const dry = testContext({ cwd: dir, dryRun: true });
    await runGenerate({ check: false, generators: client }, dry);
    expect(dry.out.lines).toContain(`DELETE ${stale}`);
    expect(existsSync(path.join(dir, stale))).toBe(true);

    const applied = testContext({ cwd: dir });
    await runGenerate({ check: false, generators: client }, applied);
    expect(applied.out.lines).toContain(`DELETE ${stale}`);
    expect(existsSync(path.join(dir, stale))).toBe(false);
    expect(readFileSync(path.join(dir, own), 'utf8')).toBe('export const mine = 1;\n');
  });

  it('writes apply configurations for kinds with api.ssa only, and deletes them once PROJECT drops ssa', async () => {
    const dir = project();
    const withSsa = (ssa: boolean): ProjectResource[] => [
      {
        group: 'cache',
        version: 'v1alpha1',
        kind: 'RedisCluster',
        plural: 'redisclusters',
        domain: 'example.com',
        api: { crdVersion: 'v1', namespaced: true, ...(ssa ? { ssa } : {}) },
      },
    ];
    const writeProject = (ssa: boolean, generated?: string[]) =>
      writeFileSync(
        path.join(dir, 'PROJECT'),
        formatProjectFile({
          version: '1',
          layout: [LAYOUT],
          domain: 'example.com',
          projectName: 'redis-operator',
          resources: withSsa(ssa),
          ...(generated ? { generated } : {}),
        }),
      );
    const applyFile = 'api/cache/v1alpha1/rediscluster.apply.ts';
    writeProject(true);
    const first = testContext({ cwd: dir });
    await runGenerate({ check: false, generators: client }, first);
    expect(first.out.lines).toContain(`CREATE ${applyFile}`);
    expect(existsSync(path.join(dir, 'api/cache/v1alpha1/backuppolicy.apply.ts'))).toBe(false);
    expect(readFileSync(path.join(dir, applyFile), 'utf8')).toContain(
      'export interface RedisClusterApplyConfiguration {',
    );
    const generated = parseProjectFile(readFileSync(path.join(dir, 'PROJECT'), 'utf8')).generated ?? [];
    expect(generated).toContain(applyFile);

    writeProject(false, generated);
    await expect(runGenerate({ check: true, generators: client }, testContext({ cwd: dir }))).rejects.toThrow(
      `stale: ${applyFile} (no longer generated)`,
    );
    const second = testContext({ cwd: dir });
    await runGenerate({ check: false, generators: client }, second);
    expect(second.out.lines).toContain(`DELETE ${applyFile}`);
    expect(existsSync(path.join(dir, applyFile))).toBe(false);
  });
});
