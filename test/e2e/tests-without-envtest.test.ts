import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findControlPlaneBinaries } from '../../src/testing/binaries.js';
import { initLinkedProject, type CliProject } from '../helpers/cli-project.js';

/**
 * A generated project's unit tests need no control-plane binaries: only the `cluster` vitest
 * project (test/controllers, test/webhooks) starts the shared control plane. Run as on a machine without the
 * binaries: KUBEBUILDER_ASSETS names an empty folder and KOP_ENVTEST_DIR hides kop's cache.
 */
const TIMEOUT = 240_000;

function binariesAvailable(): boolean {
  try {
    findControlPlaneBinaries();
    return true;
  } catch {
    return false;
  }
}

describe('generated project tests without control-plane binaries', () => {
  let created: CliProject;
  let noBinaries: string;

  beforeAll(async () => {
    created = await initLinkedProject('demo', 'kop-e2e-no-envtest-');
    noBinaries = await mkdtemp(path.join(tmpdir(), 'kop-no-binaries-'));
    await mkdir(path.join(noBinaries, 'assets'));
    await mkdir(path.join(noBinaries, 'cache'));
  }, TIMEOUT);

  afterAll(async () => {
    if (created) await rm(created.parent, { recursive: true, force: true });
    if (noBinaries) await rm(noBinaries, { recursive: true, force: true });
  });

  /** Runs the project's vitest with only the variables named here (no TEST_ASSET_* from this process). */
  const vitest = (args: string[], binaries: 'none' | 'real') =>
    execa(path.join(created.project, 'node_modules/.bin/vitest'), ['run', ...args], {
      cwd: created.project,
      reject: false,
      extendEnv: false,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CI: 'true',
        NO_COLOR: '1',
        ...(binaries === 'none'
          ? { KUBEBUILDER_ASSETS: path.join(noBinaries, 'assets'), KOP_ENVTEST_DIR: path.join(noBinaries, 'cache') }
          : {
              KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS,
              KOP_ENVTEST_DIR: process.env.KOP_ENVTEST_DIR,
              XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
            }),
      },
    });

  it(
    'runs test/flags.test.ts, and the whole fresh suite, without starting a control plane',
    async () => {
      const flags = await vitest(['test/flags.test.ts'], 'none');
      expect(flags.exitCode, flags.stdout + flags.stderr).toBe(0);
      expect(flags.stdout).toMatch(/\|unit\| test\/flags\.test\.ts/);
      expect(flags.stdout).toMatch(/Tests\s+\d+ passed/);

      const all = await vitest([], 'none');
      expect(all.exitCode, all.stdout + all.stderr).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'starts the shared control plane for test/controllers only, and says how to get the binaries when they are missing',
    async () => {
      await mkdir(path.join(created.project, 'test/controllers'), { recursive: true });
      await writeFile(
        path.join(created.project, 'test/controllers/plane.test.ts'),
        [
          "import { readFileSync } from 'node:fs';",
          "import { expect, inject, it } from 'vitest';",
          '',
          "it('gets the kubeconfig of the control plane', () => {",
          "  expect(readFileSync(inject('kubeconfigPath'), 'utf8')).toContain('https://127.0.0.1:');",
          '});',
          '',
        ].join('\n'),
      );
      const unit = await vitest(['test/flags.test.ts'], 'none');
      expect(unit.exitCode, unit.stdout + unit.stderr).toBe(0);

      const missing = await vitest(['test/controllers'], 'none');
      expect(missing.exitCode).not.toBe(0);
      expect(missing.stdout + missing.stderr).toContain(
        `kube-apiserver not found (looked at: ${path.join(noBinaries, 'assets', 'kube-apiserver')} (from $KUBEBUILDER_ASSETS))`,
      );
      expect(missing.stdout + missing.stderr).toContain('npx kop setup-envtest');

      if (!binariesAvailable()) return; // the last step needs the real binaries (`kop setup-envtest`)
      const real = await vitest(['test/controllers'], 'real');
      expect(real.exitCode, real.stdout + real.stderr).toBe(0);
      expect(real.stdout).toMatch(/\|cluster\| test\/controllers\/plane\.test\.ts/);
    },
    TIMEOUT,
  );
});
