/**
 * CRDs too large for client-side `kubectl apply`: the size check and its warning, and the
 * project's description cap (PROJECT's `crd.maxDescriptionLength`), which `kop edit` records and
 * every run of the generator follows unless one run's flag says otherwise; likewise the switches
 * `crd.allowDangerousTypes` and `crd.generateEmbeddedObjectMeta`.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KopError, UsageError } from '../../src/base/errors.js';
import { main } from '../../src/cli/main.js';
import { generators } from '../../src/commands/generate.js';
import { runEditProject } from '../../src/edit/run-edit-project.js';
import { runGenerate } from '../../src/generate/run-generate.js';
import { formatProjectFile, LAYOUT, parseProjectFile, type ProjectFile } from '../../src/project/project-file.js';
import type { CustomResourceDefinition } from '../../src/schema/crd.js';
import {
  ANNOTATIONS_SIZE_LIMIT,
  clientSideApplyAnnotationBytes,
  LAST_APPLIED_ANNOTATION,
  largeCrdWarning,
  tooLargeForClientSideApply,
} from '../../src/schema/crd-size.js';
import { parse as parseYaml } from 'yaml';
import { tempDir, testContext } from '../helpers/fake-context.js';

const CRD_FILE = 'config/crd/bases/batch.example.com_cronjobs.yaml';

/** A CRD whose one description makes its compact JSON exactly `jsonBytes` long. */
function crdOfSize(jsonBytes: number): CustomResourceDefinition {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: { description: '' },
  } as unknown as CustomResourceDefinition;
  const padding = jsonBytes - Buffer.byteLength(JSON.stringify(crd));
  (crd.spec as unknown as { description: string }).description = 'x'.repeat(padding);
  expect(Buffer.byteLength(JSON.stringify(crd))).toBe(jsonBytes);
  return crd;
}

describe('the size client-side apply allows', () => {
  it('counts the JSON kubectl stores and the annotation key, and draws the line at 262144 bytes', () => {
    expect(ANNOTATIONS_SIZE_LIMIT).toBe(262_144);
    const room = ANNOTATIONS_SIZE_LIMIT - LAST_APPLIED_ANNOTATION.length;
    expect(clientSideApplyAnnotationBytes(crdOfSize(room))).toBe(ANNOTATIONS_SIZE_LIMIT);
    expect(tooLargeForClientSideApply(crdOfSize(room))).toBe(false);
    expect(tooLargeForClientSideApply(crdOfSize(room + 1))).toBe(true);
  });

  it('counts annotations the CRD already has', () => {
    const crd = crdOfSize(ANNOTATIONS_SIZE_LIMIT - LAST_APPLIED_ANNOTATION.length - 100);
    expect(tooLargeForClientSideApply(crd)).toBe(false);
    crd.metadata.annotations = { 'kop.dev/version': 'x'.repeat(200) };
    // The annotation is now in the JSON too, and counted a second time as an annotation of its own.
    expect(tooLargeForClientSideApply(crd)).toBe(true);
  });

  it('warns with the size, what installs it, and how to make it smaller', () => {
    const warning = largeCrdWarning(CRD_FILE, crdOfSize(700 * 1024));
    expect(warning).toContain(`${CRD_FILE}: the CRD is too large for client-side \`kubectl apply\` (701 KiB`);
    expect(warning).toContain("over the apiserver's 256 KiB");
    expect(warning).toContain('install it with `kop install`, or `kubectl apply --server-side -k config/crd`');
    expect(warning).toContain('`kop edit --max-description-length <bytes>`');
    // With descriptions already removed, a smaller cap is no help: not suggested.
    expect(largeCrdWarning(CRD_FILE, crdOfSize(700 * 1024), 0)).not.toContain('max-description-length');
  });
});

describe("the project's description cap", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const manifests = generators.filter((g) => g.name === 'manifests');
  const read = (file: string) => fs.readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const generate = async (options: { check?: boolean; maxDescriptionLength?: number } = {}) => {
    const context = testContext({ cwd: dir });
    await runGenerate({ check: false, generators: manifests, ...options }, context);
    return context.out;
  };
  const edit = async (maxDescriptionLength: string) => {
    const context = testContext({ cwd: dir });
    await runEditProject({ maxDescriptionLength }, context);
    return context.out;
  };

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('cronjob'));
    const file: ProjectFile = {
      version: '1',
      layout: [LAYOUT],
      domain: 'example.com',
      projectName: 'cronjob',
      resources: [
        {
          group: 'batch',
          version: 'v1',
          kind: 'CronJob',
          plural: 'cronjobs',
          domain: 'example.com',
          api: { crdVersion: 'v1', namespaced: true },
        },
      ],
    };
    await fs.writeFile(path.join(dir, 'PROJECT'), formatProjectFile(file));
    await fs.mkdir(path.join(dir, 'api', 'v1'), { recursive: true });
    // The Kubebuilder CronJob tutorial's kind: a whole batch/v1 JobTemplateSpec in the spec.
    await fs.writeFile(
      path.join(dir, 'api', 'v1', 'cronjob.types.ts'),
      [
        '// +groupName=batch.example.com',
        "import type { JobTemplateSpec, ObjectMeta } from 'kop/api';",
        '',
        '/** What the CronJob runs and when. */',
        'export interface CronJobSpec {',
        '  /** The schedule in Cron format. */',
        '  schedule: string;',
        '  /** The job to create on each run. */',
        '  jobTemplate: JobTemplateSpec;',
        '}',
        '',
        '/** +kubebuilder:object:root=true */',
        'export interface CronJob {',
        '  metadata?: ObjectMeta;',
        '  spec?: CronJobSpec;',
        '}',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await cleanup();
  });

  it('generate warns when a CRD is too large for client-side apply; none without descriptions', async () => {
    const out = await generate();
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toMatch(
      new RegExp(`^${CRD_FILE}: the CRD is too large for client-side \`kubectl apply\` \\(\\d+ KiB`),
    );
    expect(Buffer.byteLength(await read(CRD_FILE))).toBeGreaterThan(ANNOTATIONS_SIZE_LIMIT);
    expect((await generate({ maxDescriptionLength: 0 })).warnings).toEqual([]);
  });

  it('kop edit records the cap in PROJECT; generate, generate --check and the next run follow it', async () => {
    await generate();
    const out = await edit('0');
    expect(out.lines).toContain('UPDATE PROJECT');
    expect((await project()).crd).toEqual({ maxDescriptionLength: 0 });
    expect(await read('PROJECT')).toContain('crd:\n  maxDescriptionLength: 0\n');

    // The CRDs on disk were written without the cap: stale until generate runs.
    await expect(generate({ check: true })).rejects.toThrow(`generated files are stale: ${CRD_FILE}`);
    const generated = await generate();
    expect(generated.warnings).toEqual([]);
    expect(await read(CRD_FILE)).not.toContain('description:');
    expect((await generate({ check: true })).lines).toEqual(['generated files are up to date']);
    // One run's flag still wins, for that run only.
    await expect(generate({ check: true, maxDescriptionLength: 40 })).rejects.toThrow('generated files are stale');

    // Again with the same value: nothing to write.
    expect((await edit('0')).lines).toEqual(['no changes']);
    // none removes the setting (and the empty crd: mapping with it).
    await edit('none');
    expect((await project()).crd).toBeUndefined();
    expect(await read('PROJECT')).not.toContain('crd:');
  });

  it('refuses a cap that is not a whole number of bytes, writing nothing', async () => {
    const before = await read('PROJECT');
    for (const bad of ['-1', '1.5', 'lots', '']) {
      await expect(edit(bad)).rejects.toThrow(UsageError);
      await expect(edit(bad)).rejects.toThrow(/--max-description-length must be a whole number of bytes or none/);
    }
    expect(await read('PROJECT')).toBe(before);
  });

  it('refuses a PROJECT whose cap is not a whole number, naming the line', async () => {
    await fs.writeFile(
      path.join(dir, 'PROJECT'),
      (await read('PROJECT')).replace('resources:', 'crd:\n  maxDescriptionLength: -3\nresources:'),
    );
    await expect(generate()).rejects.toThrow(KopError);
    await expect(generate()).rejects.toThrow(
      /PROJECT:\d+: crd\.maxDescriptionLength: must be a whole number of bytes \(0 removes descriptions\), not -3/,
    );
    await fs.writeFile(
      path.join(dir, 'PROJECT'),
      (await read('PROJECT')).replace('maxDescriptionLength: -3', 'maxDescLen: 3'),
    );
    await expect(generate()).rejects.toThrow(/unknown key "maxDescLen"; the keys here are maxDescriptionLength/);
  });
});

describe("the project's CRD switches: allowDangerousTypes and generateEmbeddedObjectMeta", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const manifests = generators.filter((g) => g.name === 'manifests');
  const crdFile = 'config/crd/bases/shapes.example.com_gauges.yaml';
  const read = (file: string) => fs.readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const generate = async (
    options: { check?: boolean; allowDangerousTypes?: boolean; generateEmbeddedObjectMeta?: boolean } = {},
  ) => {
    const context = testContext({ cwd: dir });
    await runGenerate({ check: false, generators: manifests, ...options }, context);
    return context.out;
  };
  const edit = async (options: { allowDangerousTypes?: boolean; generateEmbeddedObjectMeta?: boolean }) => {
    const context = testContext({ cwd: dir });
    await runEditProject(options, context);
    return context.out;
  };
  const embeddedMetadata = async () => {
    const crd = parseYaml(await read(crdFile)) as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, Record<string, unknown>> } }[] };
    };
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec as {
      properties: { template: { properties: { metadata: Record<string, unknown> } } };
    };
    return spec.properties.template.properties.metadata;
  };

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('shapes'));
    const file: ProjectFile = {
      version: '1',
      layout: [LAYOUT],
      domain: 'example.com',
      projectName: 'shapes',
      resources: [
        {
          group: 'shapes',
          version: 'v1',
          kind: 'Gauge',
          plural: 'gauges',
          domain: 'example.com',
          api: { crdVersion: 'v1', namespaced: true },
        },
      ],
    };
    await fs.writeFile(path.join(dir, 'PROJECT'), formatProjectFile(file));
    await fs.mkdir(path.join(dir, 'api', 'v1'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'api', 'v1', 'gauge.types.ts'),
      [
        '// +groupName=shapes.example.com',
        "import type { ObjectMeta, PodTemplateSpec } from 'kop/api';",
        '',
        'export interface GaugeSpec {',
        '  /** A float. */',
        '  ratio?: number;',
        '  /** Pods, with embedded metadata. */',
        '  template?: PodTemplateSpec;',
        '}',
        '',
        '/** +kubebuilder:object:root=true */',
        'export interface Gauge {',
        '  metadata?: ObjectMeta;',
        '  spec?: GaugeSpec;',
        '}',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await cleanup();
  });

  it('kop edit --allow-dangerous-types records it; generate and --check follow it; a run may still refuse floats', async () => {
    await expect(generate()).rejects.toThrow(/type "number" is a float[^]*kop edit --allow-dangerous-types/);
    expect((await edit({ allowDangerousTypes: true })).lines).toContain('UPDATE PROJECT');
    expect((await project()).crd).toEqual({ allowDangerousTypes: true });
    expect(await read('PROJECT')).toContain('crd:\n  allowDangerousTypes: true\n');

    await generate();
    expect(await read(crdFile)).toMatch(/ratio:\n\s+description: A float\.\n\s+type: number/);
    expect((await generate({ check: true })).lines).toEqual(['generated files are up to date']);
    // One run's flag still wins, for that run only.
    await expect(generate({ check: true, allowDangerousTypes: false })).rejects.toThrow('type "number" is a float');

    expect((await edit({ allowDangerousTypes: true })).lines).toEqual(['no changes']);
    // Off is the default: the key goes, and the empty crd: mapping with it.
    await edit({ allowDangerousTypes: false });
    expect((await project()).crd).toBeUndefined();
    expect(await read('PROJECT')).not.toContain('crd:');
  });

  it('kop edit --generate-embedded-object-meta records it; generate and --check follow it; a run may override it', async () => {
    await edit({ allowDangerousTypes: true });
    await generate();
    expect(await embeddedMetadata()).not.toHaveProperty('properties');

    await edit({ generateEmbeddedObjectMeta: true });
    expect((await project()).crd).toEqual({ allowDangerousTypes: true, generateEmbeddedObjectMeta: true });
    await expect(generate({ check: true })).rejects.toThrow(`generated files are stale: ${crdFile}`);
    await generate();
    expect(Object.keys((await embeddedMetadata()).properties as object)).toEqual(
      expect.arrayContaining(['name', 'namespace', 'labels', 'annotations', 'finalizers']),
    );
    expect((await generate({ check: true })).lines).toEqual(['generated files are up to date']);
    await expect(generate({ check: true, generateEmbeddedObjectMeta: false })).rejects.toThrow(
      'generated files are stale',
    );

    await edit({ generateEmbeddedObjectMeta: false });
    expect((await project()).crd).toEqual({ allowDangerousTypes: true });
  });

  it('through the command line: kop edit records them, kop generate follows PROJECT, a run flag overrides it', async () => {
    const kop = async (...args: string[]) => {
      let stderr = '';
      const sink = { write: (text: string) => ((stderr += text), true), isTTY: false };
      const code = await main(['node', 'kop', ...args], {
        cwd: dir,
        env: { CI: 'true', NO_COLOR: '1' },
        stdout: { write: () => true, isTTY: false } as never,
        stderr: sink as never,
        stdin: { isTTY: false },
      });
      return { code, stderr };
    };
    expect((await kop('generate', 'manifests')).code).not.toBe(0);
    expect(await kop('edit', '--allow-dangerous-types', '--generate-embedded-object-meta=true')).toEqual({
      code: 0,
      stderr: '',
    });
    expect((await project()).crd).toEqual({ allowDangerousTypes: true, generateEmbeddedObjectMeta: true });
    const generated = await kop('generate', 'manifests');
    expect(generated.code, generated.stderr).toBe(0);
    expect((await embeddedMetadata()).properties).toBeDefined();
    expect((await kop('generate', 'manifests', '--check')).code).toBe(0);
    const refused = await kop('generate', 'manifests', '--check', '--allow-dangerous-types=false');
    expect(refused.stderr).toContain('type "number" is a float');
    expect((await kop('generate', 'manifests', '--check', '--no-generate-embedded-object-meta')).stderr).toContain(
      'generated files are stale',
    );
    expect((await kop('edit', '--generate-embedded-object-meta=false')).code).toBe(0);
    expect((await project()).crd).toEqual({ allowDangerousTypes: true });
  });

  it('refuses a PROJECT whose switch is not a boolean, naming the line', async () => {
    await fs.writeFile(
      path.join(dir, 'PROJECT'),
      (await read('PROJECT')).replace('resources:', 'crd:\n  generateEmbeddedObjectMeta: "yes"\nresources:'),
    );
    await expect(generate()).rejects.toThrow(
      /PROJECT:\d+: crd\.generateEmbeddedObjectMeta: must be true or false, not "yes"/,
    );
  });
});
