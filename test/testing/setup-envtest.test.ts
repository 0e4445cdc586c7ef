import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KopError } from '../../src/base/errors.js';
import type { Context } from '../../src/base/context.js';
import { runSetupEnvtest, shellQuote } from '../../src/commands/setup-envtest.js';
import { binaryVersion } from '../../src/testing/build-envtest.js';
import { envtestCacheDir } from '../../src/testing/index.js';

/** A context whose output is collected; only the fields runSetupEnvtest uses matter. */
function collectingContext(): { context: Context; stdout: string[] } {
  const stdout: string[] = [];
  const context = {
    cwd: process.cwd(),
    dryRun: false,
    verbose: false,
    env: process.env,
    now: () => new Date(),
    out: { info: (line: string) => stdout.push(line), warn: () => undefined, debug: () => undefined },
  } as unknown as Context;
  return { context, stdout };
}

describe('kop setup-envtest', () => {
  // Runs the real command: on a machine where .ci/run already built the binaries this only
  // checks their versions; on a cold machine it builds them (minutes).
  it('leaves the pinned binaries in the cache folder, each reporting its version, and prints an eval-able line', async () => {
    const { context, stdout } = collectingContext();
    const progress: string[] = [];
    const dir = await runSetupEnvtest({ print: 'env', force: false, progress: (line) => progress.push(line) }, context);
    expect(dir).toBe(envtestCacheDir());
    expect(stdout).toEqual([`export KUBEBUILDER_ASSETS=${shellQuote(dir)}`]);
    expect(await binaryVersion(`${dir}/kube-apiserver`, 'kube-apiserver')).toBe('v1.36.3');
    expect(await binaryVersion(`${dir}/kubectl`, 'kubectl')).toBe('v1.36.3');
    expect(await binaryVersion(`${dir}/etcd`, 'etcd')).toBe('3.6.16');

    const again = collectingContext();
    await runSetupEnvtest({ print: 'path', force: false, progress: (line) => progress.push(line) }, again.context);
    expect(again.stdout).toEqual([dir]);
    expect(progress.at(-1)).toContain('already in');
  }, 1_800_000);

  it('says how to get Go when it is missing, and builds nothing', async () => {
    const binDir = mkdtempSync(join(tmpdir(), 'kop-no-go-'));
    const { context, stdout } = collectingContext();
    const path = process.env.PATH;
    process.env.PATH = join(binDir, 'nowhere');
    try {
      const failure = await runSetupEnvtest({ print: 'env', force: false, binDir, progress: () => undefined }, context).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(KopError);
      expect((failure as KopError).message).toContain('Go is not installed');
      expect((failure as KopError).hint).toMatch(/install Go 1\.26\.0 or newer .* KUBEBUILDER_ASSETS/);
      expect(stdout).toEqual([]);
      expect(readdirSync(binDir)).toEqual([]);
    } finally {
      process.env.PATH = path;
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  it('with --dry-run only says what it would build', async () => {
    const binDir = mkdtempSync(join(tmpdir(), 'kop-dry-run-'));
    const { context, stdout } = collectingContext();
    const progress: string[] = [];
    try {
      await runSetupEnvtest({ print: 'path', force: false, binDir, progress: (line) => progress.push(line) }, { ...context, dryRun: true });
      expect(progress).toEqual([`would build kube-apiserver, etcd, kubectl v1.36.3 into ${binDir}`]);
      expect(stdout).toEqual([binDir]);
      expect(readdirSync(binDir)).toEqual([]);
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  it('quotes folders a shell would split', () => {
    expect(shellQuote('/home/u/.cache/kop/envtest/1.36.3')).toBe('/home/u/.cache/kop/envtest/1.36.3');
    expect(shellQuote("/tmp/my dir/it's")).toBe(`'/tmp/my dir/it'\\''s'`);
  });
});
