import { copyFile, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCreateApi } from '../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../src/create-webhook/run-create-webhook.js';
import { runInit } from '../../src/init/run-init.js';
import { parseProjectFile, type ProjectFile } from '../../src/project/project-file.js';
import { runCreateApiWithPlugins } from '../../src/plugins/run-create-api-plugins.js';
import { runEdit } from '../../src/edit/run-edit-plugins.js';
import { controllerNamesToReplay, replaySteps } from '../../src/alpha/project-features.js';
import { replayContext, snapshotDir } from '../../src/alpha/replay.js';
import { projectReader, runAlphaGenerate } from '../../src/alpha/run-alpha-generate.js';
import { testContext } from '../helpers/fake-context.js';
import { preparedProject } from '../helpers/prepared-project.js';

const CRDS = fileURLToPath(new URL('../fixtures/external-crds/issuers.yaml', import.meta.url));

/**
 * Each PROJECT key that a command records is replayed by `kop alpha generate`: a project made with
 * the commands is rebuilt from its PROJECT alone, file for file. The commands run in the order the
 * replay runs them (PROJECT's order of kinds), since src/main.ts wires reconcilers in the order
 * they were created, which PROJECT does not record.
 */
describe('kop alpha generate replays every recorded feature', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const context = () => testContext({ cwd: dir });
  const read = (file: string) => readFile(path.join(dir, file), 'utf8');
  const project = async () => parseProjectFile(await read('PROJECT'));
  const argvs = async () =>
    (await replaySteps({ project: await project(), ...projectReader(dir), kopSource: 'file:../kop' })).map(
      (step) => step.argv?.join(' ') ?? `(${step.title})`,
    );

  /** Rebuilds the project into a new folder and checks it is the project, file for file; returns the run's warnings. */
  async function expectRebuiltIdentical(): Promise<string[]> {
    const output = path.join(path.dirname(dir), 'rebuilt');
    const run = context();
    const result = await runAlphaGenerate({ outputDir: output }, run);
    expect(result.skipped).toEqual([]);
    const original = await snapshotDir(dir);
    const rebuilt = await snapshotDir(output);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
    return run.out.warnings;
  }

  /**
   * Rebuilds the project through kop's command line, one step at a time, as `kop alpha update` does
   * with an old kop that has no `alpha generate`: every command line the replay makes must parse
   * and run with kop's CLI, and give the same project.
   */
  async function expectRebuiltByCommandLines(): Promise<void> {
    const output = path.join(path.dirname(dir), 'by-cli');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(output);
    const steps = await replaySteps({ project: await project(), ...projectReader(dir), kopSource: 'file:../kop' });
    const now = new Date(Date.UTC(2026, 0, 1));
    for (const step of steps) {
      if (step.argv === undefined) {
        await step.run(replayContext(context(), output, now));
        continue;
      }
      let stderr = '';
      const sink = { write: (text: string) => ((stderr += text), true), isTTY: false };
      const code = await main(['node', 'kop', ...step.argv], {
        cwd: output,
        env: { SOURCE_DATE_EPOCH: String(now.getTime() / 1000), CI: 'true', NO_COLOR: '1' },
        stdout: { write: () => true, isTTY: false } as never,
        stderr: sink as never,
        stdin: { isTTY: false },
      });
      expect(code, `kop ${step.argv.join(' ')}: ${stderr}`).toBe(0);
    }
    const original = await snapshotDir(dir);
    const rebuilt = await snapshotDir(output);
    expect([...rebuilt.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [file, bytes] of original)
      expect(rebuilt.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
  }

  const prepared = preparedProject('demo', async (at) => {
    await runInit(
      {
        projectName: 'demo',
        domain: 'example.com',
        owner: 'Example Corp',
        license: 'apache2',
        kopSource: 'file:../kop',
        skipInstall: true,
      },
      testContext({ cwd: at }),
    );
  });
  beforeEach(async () => {
    ({ dir, cleanup } = await prepared());
  });
  afterEach(() => cleanup());

  it('named reconcilers (controllers:) and --ssa', async () => {
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Captain' }, context());
    await runCreateApi(
      { group: 'crew', version: 'v1', kind: 'Captain', resource: false, controllerName: 'captain-backup' },
      context(),
    );
    await runCreateApi({ group: 'crew', version: 'v1', kind: 'Sailor', controllerName: 'sailor' }, context());
    await runCreateApi(
      { group: 'ship', version: 'v1', kind: 'Frigate', ssa: true, controllerName: 'frigate-apply' },
      context(),
    );
    const resources = (await project()).resources;
    expect(resources.map((r) => [r.kind, r.controller, r.controllers, r.api?.ssa])).toEqual([
      ['Captain', undefined, [{ name: 'captain' }, { name: 'captain-backup' }], undefined],
      ['Sailor', undefined, [{ name: 'sailor' }], undefined],
      ['Frigate', undefined, [{ name: 'frigate-apply' }], true],
    ]);
    expect(await argvs()).toEqual([
      'init --domain example.com --project-name demo --owner Example Corp --license apache2 --kop-source file:../kop --skip-install --yes',
      'create api --group crew --version v1 --kind Captain --plural captains --namespaced --resource --controller --yes',
      'create api --group crew --version v1 --kind Captain --no-resource --controller --controller-name captain-backup --yes',
      'create api --group crew --version v1 --kind Sailor --plural sailors --namespaced --resource --controller --controller-name sailor --yes',
      'create api --group ship --version v1 --kind Frigate --plural frigates --namespaced --resource --controller --controller-name frigate-apply --ssa --yes',
    ]);
    await expectRebuiltIdentical();
    await expectRebuiltByCommandLines();
  });

  it('built-in kinds (core: true) with reconcilers and webhooks, and webhooks on custom paths', async () => {
    await runCreateApi(
      { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true },
      context(),
    );
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'Memcached' }, context());
    await runCreateWebhook(
      {
        group: 'cache',
        version: 'v1',
        kind: 'Memcached',
        defaulting: true,
        programmaticValidation: true,
        defaultingPath: '/mutate-memcached',
        validationPath: '/validate-memcached',
      },
      context(),
    );
    await runCreateWebhook({ group: 'core', version: 'v1', kind: 'Pod', defaulting: true }, context());
    const resources = (await project()).resources;
    expect(resources.filter((r) => r.core === true).map((r) => r.kind)).toEqual(['Deployment', 'Pod']);
    expect((await argvs()).slice(1)).toEqual([
      'create api --group apps --version v1 --kind Deployment --no-resource --controller --yes',
      'create api --group cache --version v1 --kind Memcached --plural memcacheds --namespaced --resource --controller --yes',
      'create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --defaulting-path /mutate-memcached --validation-path /validate-memcached --yes',
      'create webhook --group core --version v1 --kind Pod --defaulting --yes',
    ]);
    await expectRebuiltIdentical();
    await expectRebuiltByCommandLines();
  });

  it('external kinds: a CRD file in the project (imported again), a second reconciler and a webhook of it, and an npm package', async () => {
    await runCreateApi(
      {
        group: 'acme',
        version: 'v1',
        kind: 'Widget',
        resource: false,
        controller: true,
        externalApiPath: '@acme/widget-api/v1',
        externalApiDomain: 'example.org',
        externalApiModule: '@acme/widget-api@^1.2.0',
      },
      context(),
    );
    await copyFile(CRDS, path.join(dir, 'issuers.yaml'));
    const issuer = {
      group: 'cert-manager',
      version: 'v1',
      kind: 'Issuer',
      resource: false,
      controller: true,
      externalApiPath: 'api/cert-manager/v1',
      externalApiDomain: 'io',
    };
    await runCreateApi({ ...issuer, externalApiModule: './issuers.yaml' }, context());
    await runCreateApi(
      { group: 'cert-manager', version: 'v1', kind: 'Issuer', resource: false, controllerName: 'issuer-audit' },
      context(),
    );
    await runCreateWebhook(
      {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiDomain: 'io',
        externalApiPath: 'api/cert-manager/v1',
      },
      context(),
    );
    expect((await project()).resources.find((r) => r.kind === 'ClusterIssuer')).toMatchObject({
      external: true,
      module: './issuers.yaml',
    });
    expect((await argvs()).slice(1)).toEqual([
      'create api --group acme --version v1 --kind Widget --plural widgets --no-resource --controller --external-api-path @acme/widget-api/v1 --external-api-domain example.org --external-api-module @acme/widget-api@^1.2.0 --yes',
      '(copy ./issuers.yaml (the CRD that --external-api-module imports))',
      'create api --group cert-manager --version v1 --kind Issuer --plural issuers --no-resource --controller --external-api-path api/cert-manager/v1 --external-api-domain io --external-api-module ./issuers.yaml --yes',
      'create api --group cert-manager --version v1 --kind Issuer --no-resource --controller --controller-name issuer-audit --yes',
      'create webhook --group cert-manager --version v1 --kind Issuer --defaulting --external-api-domain io --yes',
    ]);
    expect(await expectRebuiltIdentical()).toEqual([]);
    await expectRebuiltByCommandLines();
  });

  it('webhooks added one call at a time (defaulting, then validation) are rebuilt by one call', async () => {
    await runCreateApi({ group: 'cache', version: 'v1', kind: 'Memcached' }, context());
    await runCreateWebhook({ group: 'cache', version: 'v1', kind: 'Memcached', defaulting: true }, context());
    await runCreateWebhook(
      { group: 'cache', version: 'v1', kind: 'Memcached', programmaticValidation: true },
      context(),
    );
    expect((await argvs()).slice(2)).toEqual([
      'create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --yes',
    ]);
    await expectRebuiltIdentical();
  });

  it('an external kind whose CRD module is outside the project: its imported types are copied, with a warning that says why', async () => {
    const issuer = {
      group: 'cert-manager',
      version: 'v1',
      kind: 'Issuer',
      resource: false,
      controller: true,
      externalApiPath: 'api/cert-manager/v1',
      externalApiDomain: 'io',
    };
    await runCreateApi({ ...issuer, externalApiModule: CRDS }, context());
    const steps = await replaySteps({ project: await project(), ...projectReader(dir) });
    expect(steps.filter((step) => step.title.startsWith('copy')).map((step) => step.title)).toEqual([
      'copy ClusterIssuer cert-manager.io/v1 (imported with kop import crd): api/cert-manager/v1/clusterissuer.types.ts, api/cert-manager/v1/groupversion.ts',
      'copy Issuer cert-manager.io/v1 (imported with kop import crd): api/cert-manager/v1/issuer.types.ts, api/cert-manager/v1/groupversion.ts',
    ]);
    const warnings = await expectRebuiltIdentical();
    expect(warnings).toContain(
      `Issuer cert-manager.io/v1: its --external-api-module ${CRDS} cannot be imported again (${CRDS} is outside the project), so its imported types are copied; put the CRD file in the project to have it imported again`,
    );
  });

  it('an npm package that was already a dependency (--external-api-path without --external-api-module): the replay says what is missing', async () => {
    const file = path.join(dir, 'package.json');
    const json = JSON.parse(await read('package.json')) as { dependencies: Record<string, string> };
    json.dependencies['@acme/widget-api'] = '^1.2.0';
    await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
    await runCreateApi(
      {
        group: 'acme',
        version: 'v1',
        kind: 'Widget',
        resource: false,
        controller: true,
        externalApiPath: '@acme/widget-api/v1',
        externalApiDomain: 'example.org',
      },
      context(),
    );
    expect((await argvs()).slice(1)).toEqual([
      'create api --group acme --version v1 --kind Widget --plural widgets --no-resource --controller --external-api-path @acme/widget-api/v1 --external-api-domain example.org --yes',
    ]);
    await expect(runAlphaGenerate({ outputDir: path.join(path.dirname(dir), 'rebuilt') }, context())).rejects.toThrow(
      /failed at `kop create api --group acme .*`: --external-api-path @acme\/widget-api\/v1: package\.json does not depend on @acme\/widget-api/,
    );
  });

  it('plugins: deploy-image kinds, grafana with your custom-metrics list kept, autoupdate', async () => {
    await runCreateApiWithPlugins(
      {
        group: 'cache',
        version: 'v1alpha1',
        kind: 'Memcached',
        plugins: ['deploy-image/v1-alpha'],
        image: 'memcached:1.6.26-alpine3.19',
        imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
        imageContainerPort: '11211',
        runAsUser: '1001',
      },
      context(),
    );
    await runEdit({ plugins: ['grafana.kubebuilder.io/v1-alpha'] }, context());
    const config = 'customMetrics:\n  - metric: memcached_operations_total\n    type: counter\n';
    await writeFile(path.join(dir, 'grafana/custom-metrics/config.yaml'), config);
    await runEdit({ plugins: ['grafana/v1-alpha'] }, context());
    await runEdit({ plugins: ['autoupdate/v1-alpha'] }, context());
    expect(await read('grafana/custom-metrics/custom-metrics-dashboard.json')).toContain('memcached_operations_total');
    expect((await argvs()).slice(1)).toEqual([
      'create api --group cache --version v1alpha1 --kind Memcached --plural memcacheds --namespaced --resource --controller --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001 --yes',
      'edit --plugins autoupdate.kubebuilder.io/v1-alpha',
      '(copy grafana/custom-metrics/config.yaml (yours, for edit --plugins grafana.kubebuilder.io/v1-alpha))',
      'edit --plugins grafana.kubebuilder.io/v1-alpha',
    ]);
    expect(await read('.github/workflows/auto_update.yml')).toContain('kop alpha update');
    await expectRebuiltIdentical();
    await expectRebuiltByCommandLines();
  });

  it('multigroup: true is replayed as init --multigroup', async () => {
    // PROJECT's multigroup key comes with `kop init --multigroup` (another change); the replay reads it when present.
    const recorded = { ...(await project()), multigroup: true } as ProjectFile;
    const steps = await replaySteps({ project: recorded, read: async () => undefined });
    expect(steps[0]!.argv).toContain('--multigroup');
    const plain = await replaySteps({ project: await project(), read: async () => undefined });
    expect(plain[0]!.argv).not.toContain('--multigroup');
  });
});

describe("controllerNamesToReplay: PROJECT's reconcilers as --controller-name runs (undefined: the unnamed one)", () => {
  const kind = { group: 'crew', version: 'v1', kind: 'Captain', plural: 'captains', domain: 'example.com' };
  it.each([
    { given: { controller: true }, multigroup: false, want: [undefined] },
    {
      given: { controllers: [{ name: 'captain' }, { name: 'captain-backup' }] },
      multigroup: false,
      want: [undefined, 'captain-backup'],
    },
    {
      given: { controllers: [{ name: 'captain-backup' }, { name: 'captain' }] },
      multigroup: false,
      want: ['captain-backup', undefined],
    },
    { given: { controllers: [{ name: 'captain' }] }, multigroup: false, want: ['captain'] },
    {
      given: { controllers: [{ name: 'crew-captain' }, { name: 'captain-backup' }] },
      multigroup: false,
      want: ['crew-captain', 'captain-backup'],
    },
    {
      given: { controllers: [{ name: 'crew-captain' }, { name: 'captain-backup' }] },
      multigroup: true,
      want: [undefined, 'captain-backup'],
    },
    { given: {}, multigroup: false, want: [] },
  ])('$given (multigroup: $multigroup) -> $want', ({ given, multigroup, want }) => {
    expect(controllerNamesToReplay({ ...kind, ...given }, multigroup)).toEqual(want);
  });
});
