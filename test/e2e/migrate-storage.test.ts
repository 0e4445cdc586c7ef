/**
 * `kop migrate storage` and `kop install`'s check, as a user runs them (the built CLI) against a
 * real kube-apiserver: a migration killed mid-way (SIGKILL) resumes on the next run and loses
 * nothing; `kop install` refuses CRDs that drop a version still stored, with the count of objects
 * at stake, and installs them once the migration has pruned it; an object the apiserver refuses
 * to rewrite fails the migration with its name and reason, and install names the count.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { findControlPlaneBinaries, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { refuseUpdatesOfLabelled } from '../helpers/admission-policy.js';
import { KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import {
  CRD_NAME,
  CRD_PATH,
  GROUP,
  createGadgets,
  createNamespace,
  expected,
  gadgetCrd,
  readBack,
  storedApiVersions,
  type Gadget,
} from '../runtime/migration/helpers.js';

const PROJECT = `version: "1"
layout:
  - kop.dev/typescript/v1
domain: kop.dev
projectName: demo
resources: []
`;

interface Crd {
  metadata: { annotations?: Record<string, string> };
  spec: { versions: Array<{ name: string }> };
  status: { storedVersions: string[] };
}

describe('kop migrate storage against a real apiserver', () => {
  let plane: ControlPlane;
  let rest: RestClient;
  let project: string;
  let made: Gadget[];
  const kubectlPath = findControlPlaneBinaries().kubectl!;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], {
      cwd: project,
      reject: false,
      env: { KUBECONFIG: plane.kubeconfigPath, KUBECTL: kubectlPath, CI: 'true', NO_COLOR: '1' },
    });

  const writeCrd = (versions: string[], storage: string) =>
    writeFile(path.join(project, 'config/crd/gadgets.yaml'), stringify(gadgetCrd(versions, storage)));
  const installVersions = async (versions: string[], storage: string) => {
    await writeCrd(versions, storage);
    const install = await kop(['install']);
    expect(install.exitCode, install.stderr).toBe(0);
    // The apiserver writes at the new storage version once its CRD handler has seen the update.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  };

  beforeAll(async () => {
    requireBuilt();
    project = await mkdtemp(path.join(tmpdir(), 'kop-migrate-e2e-'));
    await writeFile(path.join(project, 'PROJECT'), PROJECT);
    await mkdir(path.join(project, 'config/crd'), { recursive: true });
    await writeFile(path.join(project, 'config/crd/kustomization.yaml'), 'resources:\n  - gadgets.yaml\n');
    plane = await startControlPlane();
    rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    await createNamespace(rest, 'one');
    await createNamespace(rest, 'two');
    // The project's life: v1 installed, objects written, then v2 added as the storage version...
    await installVersions(['v1'], 'v1');
    made = [...(await createGadgets(rest, 'one', 150)), ...(await createGadgets(rest, 'two', 150, 1000))];
    await installVersions(['v1', 'v2'], 'v2');
    // ...and now v1 dropped from the types.
    await writeCrd(['v2'], 'v2');
  }, 240_000);
  afterAll(async () => {
    rest?.close();
    await plane?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('kop install refuses to drop v1 while it is stored, with the count of objects', async () => {
    const install = await kop(['install']);
    expect(install.exitCode).toBe(1);
    expect(install.stderr).toContain('refusing to remove a version the cluster still stores objects at');
    expect(install.stderr).toContain(
      `${CRD_NAME}: v1 is still in status.storedVersions: 300 Gadget objects may be stored at v1 and would no longer be readable`,
    );
    expect(install.stderr).toContain('kop migrate storage');
    // Nothing was applied: the cluster's CRD still serves v1.
    expect((await rest.get<Crd>(CRD_PATH)).spec.versions.map((v) => v.name)).toEqual(['v1', 'v2']);
  });

  it('bad input: a page size that is not a whole number, a CRD the cluster does not have', async () => {
    const badSize = await kop(['migrate', 'storage', CRD_NAME, '--page-size', '0']);
    expect(badSize.exitCode).toBe(2);
    expect(badSize.stderr).toContain('--page-size 0: not a whole number above 0');
    const missing = await kop(['migrate', 'storage', 'nothings.example.com']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('CustomResourceDefinition nothings.example.com is not in the cluster');
    expect(missing.stderr).toContain('kubectl get crd');
  });

  it('--dry-run counts and writes nothing', async () => {
    const dry = await kop(['migrate', 'storage', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `${CRD_NAME}: would rewrite 300 objects at v2 and remove v1 from status.storedVersions`,
    );
    expect(new Set((await storedApiVersions(plane)).values())).toEqual(new Set([`${GROUP}/v1`]));
  });

  it('killed mid-way, the next run resumes, and nothing is lost; then kop install drops v1', async () => {
    const child = execa('node', [KOP_BIN, 'migrate', 'storage', CRD_NAME, '--page-size', '10', '--concurrency', '1'], {
      cwd: project,
      reject: false,
      env: { KUBECONFIG: plane.kubeconfigPath, CI: 'true', NO_COLOR: '1' },
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // Kill it once a few pages are done, in the middle of the walk.
        if (/: (6\d|7\d)\/300 objects/.test(output)) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`the migration ended before it was killed:\n${output}`)));
    });
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    const saved = JSON.parse((await rest.get<Crd>(CRD_PATH)).metadata.annotations!['kop.dev/storage-migration']!) as {
      lastObject: string;
      rewritten: number;
    };
    expect(saved.rewritten).toBeGreaterThanOrEqual(60);
    expect(saved.rewritten).toBeLessThan(300);
    const half = [...(await storedApiVersions(plane)).values()];
    expect(half.filter((v) => v === `${GROUP}/v1`).length).toBeGreaterThan(0);
    expect(half.filter((v) => v === `${GROUP}/v2`).length).toBeGreaterThanOrEqual(saved.rewritten);

    const rerun = await kop(['migrate', 'storage', '--page-size', '50']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`${CRD_NAME}: resuming a migration`);
    // The first report counts what the killed run did; the walk starts after its last page.
    const first = /: (\d+)\/300 objects \(resumed\)/.exec(rerun.stdout);
    expect(Number(first?.[1])).toBe(saved.rewritten);
    expect(rerun.stdout).toContain(`${CRD_NAME}: every object is stored at v2; removed v1 from status.storedVersions`);
    const stored = await storedApiVersions(plane);
    expect(stored.size).toBe(300);
    expect(new Set(stored.values())).toEqual(new Set([`${GROUP}/v2`]));
    expect((await rest.get<Crd>(CRD_PATH)).status.storedVersions).toEqual(['v2']);

    const install = await kop(['install']);
    expect(install.exitCode, install.stderr).toBe(0);
    expect((await rest.get<Crd>(CRD_PATH)).spec.versions.map((v) => v.name)).toEqual(['v2']);
    expect(await readBack(rest, 'v2')).toEqual(expected(made));
  });
});

describe('kop migrate storage when the apiserver refuses an object', () => {
  it('fails naming the object and the reason, keeps the old version, and kop install counts it', async () => {
    const plane = await startControlPlane();
    const rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    const project = await mkdtemp(path.join(tmpdir(), 'kop-migrate-refused-'));
    const env = {
      KUBECONFIG: plane.kubeconfigPath,
      KUBECTL: findControlPlaneBinaries().kubectl!,
      CI: 'true',
      NO_COLOR: '1',
    };
    const kop = (args: string[]) => execa('node', [KOP_BIN, ...args], { cwd: project, reject: false, env });
    try {
      await writeFile(path.join(project, 'PROJECT'), PROJECT);
      await mkdir(path.join(project, 'config/crd'), { recursive: true });
      await writeFile(path.join(project, 'config/crd/kustomization.yaml'), 'resources:\n  - gadgets.yaml\n');
      await createNamespace(rest, 'one');
      await plane.installCRDs(gadgetCrd(['v1'], 'v1'));
      await createGadgets(rest, 'one', 3);
      await rest.patch(
        `/apis/${GROUP}/v1/namespaces/one/gadgets/gadget-0001`,
        { metadata: { labels: { frozen: 'true' } } },
        'application/merge-patch+json',
      );
      await writeFile(path.join(project, 'config/crd/gadgets.yaml'), stringify(gadgetCrd(['v1', 'v2'], 'v2')));
      expect((await kop(['install', '--force-conflicts'])).exitCode).toBe(0);
      await refuseUpdatesOfLabelled(rest, {
        name: 'frozen-gadgets',
        group: GROUP,
        resource: 'gadgets',
        label: 'frozen',
        message: 'gadget is frozen',
        probePath: `/apis/${GROUP}/v2/namespaces/one/gadgets/gadget-0001`,
      });
      const migrate = await kop(['migrate', 'storage', CRD_NAME]);
      expect(migrate.exitCode).toBe(1);
      expect(migrate.stderr).toContain(
        `refusing to prune status.storedVersions: 1 object of ${CRD_NAME} could not be rewritten at v2, so v1 may still be stored`,
      );
      expect(migrate.stderr).toMatch(/one\/gadget-0001: .*gadget is frozen/);
      expect((await rest.get<Crd>(CRD_PATH)).status.storedVersions).toEqual(['v1', 'v2']);

      await writeFile(path.join(project, 'config/crd/gadgets.yaml'), stringify(gadgetCrd(['v2'], 'v2')));
      const install = await kop(['install']);
      expect(install.exitCode).toBe(1);
      expect(install.stderr).toContain(
        `${CRD_NAME}: v1 is still in status.storedVersions: 1 Gadget object could not be rewritten by the last migration`,
      );
    } finally {
      rest.close();
      await plane.stop();
      await rm(project, { recursive: true, force: true });
    }
  }, 120_000);
});
