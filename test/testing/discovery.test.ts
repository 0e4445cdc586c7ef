import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ControlPlaneBinariesNotFoundError,
  envtestCacheDir,
  findControlPlaneBinaries,
  findControlPlaneBinary,
  startControlPlane,
} from '../../src/testing/index.js';
import { resolveControlPlaneOptions } from '../../src/testing/control-plane.js';
import { parseDuration } from '../../src/testing/durations.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding executable stand-ins for the named binaries (discovery only checks they are executable). */
function assets(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kop-discovery-'));
  dirs.push(dir);
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe('binary discovery', () => {
  const emptyHome = () => assets();

  it('follows envtest order: option, TEST_ASSET_*, KUBEBUILDER_ASSETS, then the kop cache folder', () => {
    const option = assets('kube-apiserver');
    const testAsset = assets('kube-apiserver');
    const kubebuilder = assets('kube-apiserver', 'etcd', 'kubectl');
    const home = emptyHome();
    const env = {
      HOME: home,
      TEST_ASSET_KUBE_APISERVER: join(testAsset, 'kube-apiserver'),
      KUBEBUILDER_ASSETS: kubebuilder,
    };
    expect(findControlPlaneBinary('kube-apiserver', join(option, 'kube-apiserver'), env)).toBe(
      join(option, 'kube-apiserver'),
    );
    expect(findControlPlaneBinary('kube-apiserver', undefined, env)).toBe(join(testAsset, 'kube-apiserver'));
    expect(findControlPlaneBinary('etcd', undefined, env)).toBe(join(kubebuilder, 'etcd'));

    const cache = envtestCacheDir(undefined, { HOME: home });
    mkdirSync(cache, { recursive: true });
    for (const name of ['kube-apiserver', 'etcd']) {
      writeFileSync(join(cache, name), '#!/bin/sh\n');
      chmodSync(join(cache, name), 0o755);
    }
    expect(findControlPlaneBinaries({}, { HOME: home })).toEqual({
      kubeApiServer: join(cache, 'kube-apiserver'),
      etcd: join(cache, 'etcd'),
    });
  });

  it('puts the cache under XDG_CACHE_HOME or KOP_ENVTEST_DIR when set', () => {
    expect(envtestCacheDir('1.36.3', { HOME: '/home/u' })).toBe('/home/u/.cache/kop/envtest/1.36.3');
    expect(envtestCacheDir('1.36.3', { HOME: '/home/u', XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/kop/envtest/1.36.3');
    expect(envtestCacheDir('1.36.3', { KOP_ENVTEST_DIR: '/pinned' })).toBe('/pinned');
  });

  it('treats a folder the user named as authoritative: a missing binary there is an error naming it', () => {
    const kubebuilder = assets('etcd');
    expect(() =>
      findControlPlaneBinary('kube-apiserver', undefined, { HOME: emptyHome(), KUBEBUILDER_ASSETS: kubebuilder }),
    ).toThrow(`${join(kubebuilder, 'kube-apiserver')} (from $KUBEBUILDER_ASSETS)`);
  });

  it('fails with a message that says how to get the binaries when there are none', async () => {
    const env = { HOME: emptyHome() };
    const failure = startControlPlane({ env }).catch((error: unknown) => error);
    const error = await failure;
    expect(error).toBeInstanceOf(ControlPlaneBinariesNotFoundError);
    expect((error as Error).message).toMatch(
      /^kube-apiserver not found \(looked at: .*\)\. Get the test control plane with `npx kop setup-envtest`/,
    );
    expect((error as Error).message).toContain('KUBEBUILDER_ASSETS');
  });
});

describe('envtest environment knobs', () => {
  it('reads timeouts as Go durations or seconds, booleans as Go does, and lets options win', () => {
    const env = {
      KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: '1m30s',
      KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT: '5',
      KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT: 'true',
      USE_EXISTING_CLUSTER: 'TRUE',
    };
    expect(resolveControlPlaneOptions({}, env)).toEqual({
      startTimeoutMs: 90_000,
      stopTimeoutMs: 5_000,
      attachOutput: true,
      useExistingCluster: true,
    });
    expect(
      resolveControlPlaneOptions({ startTimeoutMs: 1, attachOutput: false, useExistingCluster: false }, env),
    ).toMatchObject({
      startTimeoutMs: 1,
      attachOutput: false,
      useExistingCluster: false,
    });
    expect(resolveControlPlaneOptions({}, {})).toEqual({
      startTimeoutMs: 60_000,
      stopTimeoutMs: 20_000,
      attachOutput: false,
      useExistingCluster: false,
    });
  });

  it.each([
    ['500ms', 500],
    ['2m', 120_000],
    ['1h1s', 3_601_000],
    ['', undefined],
  ])('parses %j as %j ms', (given, want) => {
    expect(parseDuration(given, 'X')).toBe(want);
  });

  it('rejects a malformed duration, naming the variable', () => {
    expect(() => parseDuration('soon', 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT')).toThrow(
      'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT="soon"',
    );
  });
});
