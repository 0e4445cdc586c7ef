/**
 * `kop install` on a real apiserver warns, before applying, when a CRD change would make the
 * apiserver refuse objects already stored at a served version (a field newly required, a bound
 * or an enum narrowed), naming the version, the count and an example; the CRD is applied anyway
 * (the objects stay readable), and a change that every stored object passes says nothing.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadClientConfig } from '../../src/runtime/client/index.js';
import { findControlPlaneBinaries, startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import type { CustomResourceDefinition } from '../../src/testing/index.js';
import { KOP_BIN, requireBuilt } from '../helpers/cli-project.js';
import { execaExec } from '../../src/base/make-context.js';
import { DevCluster } from '../../src/dev/dev-cluster.js';
import { CRD_NAME, CRD_PATH, createGadgets, createNamespace, gadgetCrd } from '../runtime/migration/helpers.js';

const PROJECT = `version: "1"
layout:
  - kop.dev/typescript/v1
domain: kop.dev
projectName: demo
resources: []
`;

/** The gadget CRD at v1 with `change` applied to its spec schema. */
function changedCrd(change: (spec: Record<string, unknown>) => void): CustomResourceDefinition {
  const crd = structuredClone(gadgetCrd(['v1'], 'v1'));
  const version = crd.spec.versions[0] as unknown as {
    schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
  };
  const spec = version.schema.openAPIV3Schema.properties.spec;
  change(spec);
  return crd;
}

describe('kop install warns about stored objects a new CRD schema refuses', () => {
  let plane: ControlPlane;
  let rest: RestClient;
  let project: string;
  const kop = (args: string[]) =>
    execa('node', [KOP_BIN, ...args], {
      cwd: project,
      reject: false,
      env: {
        KUBECONFIG: plane.kubeconfigPath,
        KUBECTL: findControlPlaneBinaries().kubectl!,
        CI: 'true',
        NO_COLOR: '1',
      },
    });
  const install = async (crd: CustomResourceDefinition) => {
    await writeFile(path.join(project, 'config/crd/gadgets.yaml'), stringify(crd));
    const result = await kop(['install']);
    expect(result.exitCode, result.stderr).toBe(0);
    return result;
  };

  beforeAll(async () => {
    requireBuilt();
    project = await mkdtemp(path.join(tmpdir(), 'kop-schema-change-'));
    await writeFile(path.join(project, 'PROJECT'), PROJECT);
    await mkdir(path.join(project, 'config/crd'), { recursive: true });
    await writeFile(path.join(project, 'config/crd/kustomization.yaml'), 'resources:\n  - gadgets.yaml\n');
    plane = await startControlPlane();
    rest = new RestClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }));
    await createNamespace(rest, 'one');
    await install(gadgetCrd(['v1'], 'v1'));
    // Sizes 0..11.
    await createGadgets(rest, 'one', 12);
  }, 240_000);
  afterAll(async () => {
    rest?.close();
    await plane?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('says nothing for a change every stored object passes', async () => {
    const result = await install(changedCrd((spec) => Object.assign(spec, { required: ['size'] })));
    expect(result.stderr).not.toContain('refuses');
  });

  it('names the version, the count and an example for a field newly required', async () => {
    const result = await install(
      changedCrd((spec) => {
        (spec.properties as Record<string, unknown>).owner = { type: 'string' };
        spec.required = ['owner'];
      }),
    );
    expect(result.stderr).toContain(
      `${CRD_NAME}: the new schema of v1 refuses 12 of the 12 Gadget objects stored, e.g. one/gadget-0000: .spec.owner is required`,
    );
    // Applied all the same: the objects stay readable, and the new schema is served.
    const served = await rest.get<CustomResourceDefinition>(CRD_PATH);
    expect(JSON.stringify(served.spec.versions[0]!.schema)).toContain('owner');
    expect((await rest.get<{ items: unknown[] }>(`/apis/migrate.kop.dev/v1/gadgets`)).items).toHaveLength(12);
  });

  it('counts the objects past a narrowed bound', async () => {
    const result = await install(
      changedCrd((spec) => {
        (spec.properties as { size: Record<string, unknown> }).size.maximum = 9;
      }),
    );
    expect(result.stderr).toContain(
      `${CRD_NAME}: the new schema of v1 refuses 2 of the 12 Gadget objects stored, e.g. one/gadget-0010: .spec.size 10 is above the maximum 9`,
    );
  });
});

describe('kop dev checks the stored objects before it reinstalls a changed CRD', () => {
  it('reports the refused objects of the version, and installs the CRD', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'kop-dev-schema-change-'));
    await mkdir(path.join(root, 'config/crd/bases'), { recursive: true });
    const crdFile = path.join(root, 'config/crd/bases/gadgets.yaml');
    await writeFile(crdFile, stringify(gadgetCrd(['v1'], 'v1')));
    const cluster = await DevCluster.start({
      root,
      stateDir: path.join(root, '.kop/dev'),
      installCRDs: true,
      webhooks: false,
      env: process.env,
      exec: execaExec,
    });
    const rest = new RestClient(loadClientConfig({ kubeconfig: cluster.kubeconfigPath }));
    try {
      await createNamespace(rest, 'one');
      await createGadgets(rest, 'one', 3);
      await writeFile(
        crdFile,
        stringify(
          changedCrd((spec) => {
            (spec.properties as { size: Record<string, unknown> }).size.enum = [0, 1];
          }),
        ),
      );
      const sync = await cluster.syncCRDs();
      expect(sync.installed).toEqual([CRD_NAME]);
      expect(sync.rejected).toMatchObject([
        {
          crd: CRD_NAME,
          version: 'v1',
          kind: 'Gadget',
          rejected: 1,
          checked: 3,
          example: 'one/gadget-0002: .spec.size 2 is not one of 0, 1',
        },
      ]);
    } finally {
      rest.close();
      await cluster.stop();
      await rm(root, { recursive: true, force: true });
    }
  }, 240_000);
});
