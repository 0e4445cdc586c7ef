import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

/** A loopback port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('kop setup-envtest', () => {
  // Runs the real command: on a machine where .ci/run already got the binaries this only
  // checks their versions; on a cold machine it downloads them (seconds) or builds them (minutes).
  it('leaves the pinned binaries in the cache folder, each reporting its version, and prints an eval-able line', async () => {
    const { context, stdout } = collectingContext();
    const progress: string[] = [];
    const dir = await runSetupEnvtest({ print: 'env', force: false, progress: (line) => progress.push(line) }, context);
    expect(dir).toBe(envtestCacheDir());
    expect(stdout).toEqual([`export KUBEBUILDER_ASSETS=${shellQuote(dir)}`]);
    expect(await binaryVersion(`${dir}/kube-apiserver`, 'kube-apiserver')).toBe('v1.36.3');
    expect(await binaryVersion(`${dir}/kubectl`, 'kubectl')).toBe('v1.36.3');
    // The pinned build makes etcd 3.6.16; a downloaded archive brings the etcd controller-tools chose.
    expect(await binaryVersion(`${dir}/etcd`, 'etcd')).toMatch(/^3\.\d+\.\d+$/);

    const again = collectingContext();
    await runSetupEnvtest({ print: 'path', force: false, progress: (line) => progress.push(line) }, again.context);
    expect(again.stdout).toEqual([dir]);
    expect(progress.at(-1)).toContain('already in');
  }, 1_800_000);

  it('when it can neither download nor build, says why and how to get Go, and installs nothing', async () => {
    const binDir = mkdtempSync(join(tmpdir(), 'kop-no-go-'));
    const { context, stdout } = collectingContext();
    const path = process.env.PATH;
    process.env.PATH = join(binDir, 'nowhere');
    // An index URL nothing listens on: the download fails at once, as it does offline.
    const indexUrl = `http://127.0.0.1:${await closedPort()}/envtest-releases.yaml`;
    try {
      const failure = await runSetupEnvtest(
        { print: 'env', force: false, binDir, indexUrl, progress: () => undefined },
        context,
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(KopError);
      expect((failure as KopError).message).toMatch(
        /^could not download the prebuilt binaries \(cannot fetch the envtest index http:\/\/127\.0\.0\.1:\d+\/envtest-releases\.yaml: connect ECONNREFUSED 127\.0\.0\.1:\d+\), and cannot build them: Go is not installed/,
      );
      expect((failure as KopError).hint).toMatch(/install Go 1\.26\.0 or newer .* KUBEBUILDER_ASSETS/);
      expect(stdout).toEqual([]);
      expect(readdirSync(binDir)).toEqual([]);
    } finally {
      process.env.PATH = path;
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  it('with --dry-run only says what it would download, or build without the download', async () => {
    const binDir = mkdtempSync(join(tmpdir(), 'kop-dry-run-'));
    const { context, stdout } = collectingContext();
    const progress: string[] = [];
    try {
      const indexUrl = 'https://mirror.example/envtest-releases.yaml';
      await runSetupEnvtest(
        { print: 'path', force: false, binDir, indexUrl, progress: (line) => progress.push(line) },
        { ...context, dryRun: true },
      );
      await runSetupEnvtest(
        { print: 'path', force: false, binDir, download: false, progress: (line) => progress.push(line) },
        { ...context, dryRun: true },
      );
      expect(progress).toEqual([
        expect.stringMatching(
          new RegExp(
            `^would download envtest-v1\\.36\\.3-\\w+-\\w+\\.tar\\.gz \\(listed in ${indexUrl}\\) into ${binDir}, and build from Go modules only if that fails$`,
          ),
        ),
        `would build kube-apiserver, etcd, kubectl v1.36.3 into ${binDir}`,
      ]);
      expect(stdout).toEqual([binDir, binDir]);
      expect(readdirSync(binDir)).toEqual([]);
    } finally {
      rmSync(binDir, { recursive: true, force: true });
    }
  });

  it('refuses an index or mirror that is not a URL', async () => {
    const { context } = collectingContext();
    await expect(runSetupEnvtest({ print: 'env', force: false, indexUrl: 'envtest.yaml' }, context)).rejects.toThrow(
      '--index-url must be an https:, http: or file: URL, not "envtest.yaml"',
    );
    await expect(runSetupEnvtest({ print: 'env', force: false, archiveBaseUrl: 'ftp://x' }, context)).rejects.toThrow(
      '--archive-base-url must be',
    );
  });

  it('quotes folders a shell would split', () => {
    expect(shellQuote('/home/u/.cache/kop/envtest/1.36.3')).toBe('/home/u/.cache/kop/envtest/1.36.3');
    expect(shellQuote("/tmp/my dir/it's")).toBe(`'/tmp/my dir/it'\\''s'`);
  });
});
