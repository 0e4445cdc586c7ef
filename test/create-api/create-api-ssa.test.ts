// `kop create api --ssa`: PROJECT records api.ssa as Kubebuilder does, the reconciler that applies
// is scaffolded, the flag needs --resource, and a later run without it keeps it.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';

describe('create api --ssa', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const api = async (kind: string, version = 'v1') => {
    const entry = parseProjectFile(await read('PROJECT')).resources.find(
      (r) => r.kind === kind && r.version === version,
    );
    return entry?.api;
  };
  const prepared = preparedProject('crew', async (at) => {
    await runInit(
      { projectName: 'crew', domain: 'example.com', license: 'none', kopSource: 'file:../kop', skipInstall: true },
      testContext({ cwd: at }),
    );
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await prepared());
  });
  afterEach(() => cleanup());

  it('records ssa: true under api (Kubebuilder key) and scaffolds the reconciler that applies', async () => {
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Navigator', ssa: true }, testContext({ cwd: dir }));
    expect(await api('Navigator')).toEqual({ crdVersion: 'v1', namespaced: true, ssa: true });
    const raw = parse(await read('PROJECT')) as { resources: { api: Record<string, unknown> }[] };
    expect(Object.keys(raw.resources[0]!.api)).toEqual(['crdVersion', 'namespaced', 'ssa']);

    const controller = await read('src/controllers/navigator.controller.ts');
    expect(controller).toContain("from '../../api/crew/v1/navigator.apply.js'");
    expect(controller).toContain("fieldManager: 'navigator-controller'");
    expect(controller).toMatch(/client\s*\.status\(\)\s*\.apply\(/);
    expect(controller).toContain(
      'statusApplyConfigurationForNavigator(request.name, request.namespace, { conditions: [ready] })',
    );
    expect(controller).not.toContain('client.status().update');
    const test = await read('test/controllers/navigator.controller.test.ts');
    expect(test).toContain('NavigatorReconciler.applyOptions');
  });

  it('gives a cluster-scoped kind builders without a namespace', async () => {
    await runCreateApi(
      { group: 'crew', version: 'v1', kind: 'Chart', namespaced: false, ssa: true },
      testContext({ cwd: dir }),
    );
    expect(await api('Chart')).toEqual({ crdVersion: 'v1', namespaced: false, ssa: true });
    expect(await read('src/controllers/chart.controller.ts')).toContain(
      'statusApplyConfigurationForChart(request.name, { conditions: [ready] })',
    );
  });

  it('leaves plain kinds as they are: no ssa key, the update reconciler', async () => {
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Captain' }, testContext({ cwd: dir }));
    expect(await api('Captain')).toEqual({ crdVersion: 'v1', namespaced: true });
    expect(await read('src/controllers/captain.controller.ts')).toContain('client.status().update');
  });

  it('refuses --ssa without --resource and writes nothing', async () => {
    const before = await read('PROJECT');
    await expect(
      runCreateApi(
        { group: 'crew', version: 'v1', kind: 'Navigator', ssa: true, resource: false },
        testContext({ cwd: dir }),
      ),
    ).rejects.toThrow(/--ssa is recorded with the API types, so it needs --resource/);
    expect(await read('PROJECT')).toBe(before);
    expect(existsSync(path.join(dir, 'src/controllers/navigator.controller.ts'))).toBe(false);
  });

  it('keeps ssa once set: --force without --ssa, and a later controller-only run, still apply', async () => {
    await runCreateApi(
      { group: 'crew', version: 'v1', kind: 'Navigator', ssa: true, controller: false },
      testContext({ cwd: dir }),
    );
    expect(existsSync(path.join(dir, 'src/controllers/navigator.controller.ts'))).toBe(false);
    await runCreateApi(
      { group: 'crew', version: 'v1', kind: 'Navigator', resource: false, controller: true },
      testContext({ cwd: dir }),
    );
    expect(await read('src/controllers/navigator.controller.ts')).toMatch(/client\s*\.status\(\)\s*\.apply\(/);
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Navigator', force: true }, testContext({ cwd: dir }));
    expect(await api('Navigator')).toEqual({ crdVersion: 'v1', namespaced: true, ssa: true });
    expect(await read('src/controllers/navigator.controller.ts')).toMatch(/client\s*\.status\(\)\s*\.apply\(/);
  });

  for (const [name, edit] of [
    ['without the status subresource', (text: string) => text.replace(' * +kubebuilder:subresource:status\n', '')],
    [
      'with a status without conditions',
      (text: string) => text.replace('conditions?: Condition[];', 'phase?: string;'),
    ],
    [
      'without a status',
      (text: string) => text.replace(/\s+\/\*\*\n\s+\* status is[^]*?status\?: NavigatorStatus;/, ''),
    ],
  ] as const) {
    it(`a kind ${name} gets reconcilers that report nothing in its status`, async () => {
      const types = 'api/crew/v1/navigator.types.ts';
      await runCreateApi(
        { group: 'crew', version: 'v1', kind: 'Navigator', ssa: true, controller: false },
        testContext({ cwd: dir }),
      );
      const before = await read(types);
      await writeFile(path.join(dir, types), edit(before));
      expect(await read(types)).not.toBe(before);
      await runCreateApi(
        { group: 'crew', version: 'v1', kind: 'Navigator', resource: false, controller: true },
        testContext({ cwd: dir }),
      );
      const ssa = await read('src/controllers/navigator.controller.ts');
      expect(ssa).toContain('client.apply(');
      expect(ssa).not.toContain('setCondition');
      expect(ssa).not.toContain('statusApplyConfigurationForNavigator');
      expect(await read('test/controllers/navigator.controller.test.ts')).not.toContain('Ready');
      // The update reconciler decides the same way.
      await writeFile(path.join(dir, 'PROJECT'), (await read('PROJECT')).replace(/\n\s+ssa: true/, ''));
      await runCreateApi(
        { group: 'crew', version: 'v1', kind: 'Navigator', resource: false, controller: true, force: true },
        testContext({ cwd: dir }),
      );
      const plain = await read('src/controllers/navigator.controller.ts');
      expect(plain).not.toContain('client.apply(');
      expect(plain).not.toContain('setCondition');
    });
  }

  it('is refused in PROJECT when not a boolean, naming the line', async () => {
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Navigator', ssa: true }, testContext({ cwd: dir }));
    const text = (await read('PROJECT')).replace('ssa: true', 'ssa: yes please');
    expect(() => parseProjectFile(text)).toThrow(/PROJECT:\d+: resources\[0\]\.api\.ssa: must be true or false/);
  });
});
