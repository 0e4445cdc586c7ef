import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  GoUnavailableError,
  type BuildEnvtestOptions,
  type BuildEnvtestResult,
} from '../../src/testing/build-envtest.js';
import { findControlPlaneBinaries } from '../../src/testing/binaries.js';
import {
  currentEnvtestPlatform,
  DEFAULT_ENVTEST_INDEX_URL,
  envtestDownloadSource,
  extractEnvtestArchive,
  findEnvtestArchive,
} from '../../src/testing/download-envtest.js';
import { setupEnvtest, type SetupEnvtestOptions } from '../../src/testing/setup-envtest.js';
import {
  envtestIndex,
  fakeBinaries,
  fakeEnvtestArchive,
  sha512,
  startEnvtestServer,
  tarArchive,
  type EnvtestServer,
  type FakeTarEntry,
} from './envtest-download-fixtures.js';

const VERSION = '1.36.3';
const PLATFORM = { os: 'linux', arch: 'amd64' };
const ARCHIVE = `envtest-v${VERSION}-linux-amd64.tar.gz`;

let server: EnvtestServer;
let work: string;

beforeAll(async () => {
  server = await startEnvtestServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.routes.clear();
  server.requests.length = 0;
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Serves `archive` under /releases/, listed in /index.yaml with `hash` (default: the archive's real sha512). */
function serve(archive: Buffer, hash = sha512(archive)): void {
  server.routes.set('/index.yaml', { body: envtestIndex(VERSION, ARCHIVE, hash, `${server.url}/releases/${ARCHIVE}`) });
  server.routes.set(`/releases/${ARCHIVE}`, { body: archive });
}

/** A fake Go build that records its calls and writes nothing, so the fallback decision is visible without Go. */
function fakeBuild(failWith?: Error) {
  const calls: BuildEnvtestOptions[] = [];
  const build = async (options: BuildEnvtestOptions): Promise<BuildEnvtestResult> => {
    calls.push(options);
    if (failWith) throw failWith;
    return {
      binDir: options.binDir!,
      kubernetesVersion: VERSION,
      etcdVersion: 'fake',
      built: ['kube-apiserver', 'etcd', 'kubectl'],
      reused: [],
    };
  };
  return { calls, build };
}

/** Runs setupEnvtest with a cache under a fresh XDG_CACHE_HOME, this server's index and a fake build. */
async function setup(overrides: Partial<SetupEnvtestOptions> = {}) {
  work = mkdtempSync(join(tmpdir(), 'kop-envtest-download-'));
  const env = { XDG_CACHE_HOME: join(work, 'cache'), HOME: work };
  const progress: string[] = [];
  const fake = fakeBuild();
  const result = await setupEnvtest({
    env,
    platform: PLATFORM,
    indexUrl: `${server.url}/index.yaml`,
    build: fake.build,
    progress: (line) => progress.push(line),
    ...overrides,
  });
  const cacheRoot = join(work, 'cache', 'kop', 'envtest');
  return { result, progress, builds: fake.calls, env, binDir: join(cacheRoot, VERSION), cacheRoot };
}

/** The cache holds nothing: no binary folder, no staging folder left behind. */
function expectNothingInstalled(cacheRoot: string): void {
  expect(existsSync(cacheRoot) ? readdirSync(cacheRoot) : []).toEqual([]);
}

describe('kop setup-envtest: the prebuilt download', () => {
  it('installs a verified archive where kop/testing finds it, says so, and reuses it next time without a request', async () => {
    serve(fakeEnvtestArchive());
    const { result, progress, builds, env, binDir, cacheRoot } = await setup();
    expect(result).toMatchObject({ source: 'download', binDir, kubernetesVersion: VERSION });
    expect(builds).toEqual([]);
    expect(progress.at(-1)).toMatch(
      new RegExp(
        `^downloaded ${ARCHIVE.replace(/\./g, '\\.')} \\(0\\.0 MB, sha512 as the index lists\\) into ${binDir} in \\d+\\.\\d s$`,
      ),
    );
    expect(findControlPlaneBinaries({}, env)).toEqual({
      kubeApiServer: join(binDir, 'kube-apiserver'),
      etcd: join(binDir, 'etcd'),
      kubectl: join(binDir, 'kubectl'),
    });
    expect(readFileSync(join(binDir, 'kube-apiserver'), 'utf8')).toBe(fakeBinaries()['kube-apiserver']);
    expect(statSync(join(binDir, 'etcd')).mode & 0o777).toBe(0o755);
    expect(readdirSync(binDir).sort()).toEqual(['etcd', 'kube-apiserver', 'kubectl']);
    expect(readdirSync(cacheRoot)).toEqual([VERSION]);
    expect(server.requests).toEqual(['/index.yaml', `/releases/${ARCHIVE}`]);

    server.requests.length = 0;
    const again = await setupEnvtest({
      env,
      platform: PLATFORM,
      indexUrl: `${server.url}/index.yaml`,
      progress: () => undefined,
    });
    expect(again.source).toBe('cache');
    expect(server.requests).toEqual([]);
  });

  const failures: Array<{ name: string; arrange: () => void; reason: RegExp }> = [
    {
      name: 'a checksum that differs from the index',
      arrange: () => serve(fakeEnvtestArchive(), 'ab'.repeat(64)),
      reason: new RegExp(`checksum mismatch for ${ARCHIVE}.*but the index lists abab`),
    },
    {
      name: 'an archive the server does not have (404)',
      arrange: () => {
        serve(fakeEnvtestArchive());
        server.routes.delete(`/releases/${ARCHIVE}`);
      },
      reason:
        /^the download failed: cannot fetch envtest-v1\.36\.3-linux-amd64\.tar\.gz http:\/\/127\.0\.0\.1:\d+\/releases\/envtest-v1\.36\.3-linux-amd64\.tar\.gz: HTTP 404 Not Found$/,
    },
    {
      name: 'no index (404)',
      arrange: () => undefined,
      reason: /cannot fetch the envtest index http:\/\/127\.0\.0\.1:\d+\/index\.yaml: HTTP 404/,
    },
    {
      name: 'an index without this version',
      arrange: () =>
        server.routes.set('/index.yaml', {
          body: envtestIndex('1.30.0', 'envtest-v1.30.0-linux-amd64.tar.gz', 'ab'.repeat(64), 'x'),
        }),
      reason: new RegExp(`lists no ${ARCHIVE.replace(/\./g, '\\.')} \\(it has no v1\\.36\\.3\\)`),
    },
    {
      name: 'a connection cut before the announced length',
      arrange: () => {
        const archive = fakeEnvtestArchive();
        serve(archive);
        server.routes.set(`/releases/${ARCHIVE}`, { body: archive.subarray(0, 100), announce: archive.length });
      },
      reason:
        /downloading http:\/\/127\.0\.0\.1:\d+\/releases\/envtest-v1\.36\.3-linux-amd64\.tar\.gz (failed after 100 bytes|ended after 100 of \d+ bytes)/,
    },
    {
      name: 'a truncated archive whose truncated bytes the index lists',
      arrange: () => {
        const archive = fakeEnvtestArchive();
        serve(archive.subarray(0, archive.length - 40));
      },
      reason: new RegExp(
        `${ARCHIVE.replace(/\./g, '\\.')} cannot be unpacked: the gzip stream ends early: it is truncated; nothing was installed`,
      ),
    },
    {
      name: 'a path-traversal entry',
      arrange: () =>
        serve(fakeEnvtestArchive(fakeBinaries(), [{ path: 'controller-tools/envtest/../../../evil', body: 'x' }])),
      reason:
        /entry "controller-tools\/envtest\/\.\.\/\.\.\/\.\.\/evil" points outside the archive's folder; nothing was installed/,
    },
    {
      name: 'an absolute entry',
      arrange: () => serve(fakeEnvtestArchive(fakeBinaries(), [{ path: '/tmp/evil', body: 'x' }])),
      reason: /entry "\/tmp\/evil" points outside/,
    },
    {
      name: 'a binary that is a symlink out of the archive',
      arrange: () => {
        const { etcd, kubectl } = fakeBinaries();
        serve(
          fakeEnvtestArchive({ etcd, kubectl }, [
            { path: 'controller-tools/envtest/kube-apiserver', type: 'symlink', linkTarget: '/bin/sh' },
          ]),
        );
      },
      reason:
        /entry "controller-tools\/envtest\/kube-apiserver" is a symlink to "\/bin\/sh"; envtest archives hold only plain files/,
    },
    {
      name: 'an archive without kubectl',
      arrange: () => {
        const { etcd, 'kube-apiserver': apiServer } = fakeBinaries();
        serve(fakeEnvtestArchive({ etcd, 'kube-apiserver': apiServer }));
      },
      reason: /it has no kubectl; nothing was installed/,
    },
    {
      name: 'binaries of another version than the archive name says',
      arrange: () => serve(fakeEnvtestArchive(fakeBinaries('1.30.0'))),
      reason:
        /not what the index says: kube-apiserver is v1\.30\.0, not v1\.36\.3, kubectl is v1\.30\.0, not v1\.36\.3; nothing was installed$/,
    },
    {
      name: 'something that is not gzip',
      arrange: () => serve(Buffer.from('<html>rate limited</html>')),
      reason: /cannot be unpacked: it is not gzip data \(incorrect header check\); nothing was installed/,
    },
  ];
  it.each(failures)('refuses $name, installs nothing, and falls back to the Go build', async ({ arrange, reason }) => {
    arrange();
    const { result, progress, builds, binDir, cacheRoot } = await setup();
    expect(result.source).toBe('build');
    expect(result.reason).toMatch(reason);
    expect(progress).toContainEqual(expect.stringMatching(/^could not download the prebuilt binaries: /));
    expect(progress.at(-1)).toBe('building them from Go modules instead');
    expect(builds).toHaveLength(1);
    expect(builds[0]).toMatchObject({ binDir, kubernetesVersion: VERSION });
    expectNothingInstalled(cacheRoot);
    expect(existsSync(join(work, 'evil')) || existsSync(join(cacheRoot, 'evil'))).toBe(false);
  });

  it('gives up on a server that stops sending, after the idle timeout', async () => {
    serve(fakeEnvtestArchive());
    server.routes.set(`/releases/${ARCHIVE}`, { stall: true });
    const { result, cacheRoot } = await setup({ idleTimeoutMs: 300 });
    expect(result.reason).toMatch(/stalled: no data for 0\.3 s after 0 bytes/);
    expectNothingInstalled(cacheRoot);
  });

  it('says both reasons when it can neither download nor build', async () => {
    const goMissing = new GoUnavailableError(
      'Go is not installed (no `go` on PATH); it is needed to build the test control plane',
      'install Go',
    );
    const failure = await setup({ build: fakeBuild(goMissing).build }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GoUnavailableError);
    expect((failure as GoUnavailableError).message).toMatch(
      /^could not download the prebuilt binaries \(cannot fetch the envtest index .*: HTTP 404 Not Found\), and cannot build them: Go is not installed/,
    );
    expect((failure as GoUnavailableError).hint).toBe(
      'install Go; or download from a reachable copy of the envtest index (--index-url, KOP_ENVTEST_INDEX_URL)',
    );
  });

  it('replaces wrong binaries one by one in a folder that has other files, keeping those', async () => {
    serve(fakeEnvtestArchive());
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-download-'));
    const binDir = join(work, 'assets');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'helm'), 'helm');
    writeFileSync(join(binDir, 'kube-apiserver'), fakeBinaries('1.30.0')['kube-apiserver'], { mode: 0o755 });
    const result = await setupEnvtest({
      binDir,
      platform: PLATFORM,
      indexUrl: `${server.url}/index.yaml`,
      build: fakeBuild(new Error('no build')).build,
      env: {},
    });
    expect(result.source).toBe('download');
    expect(readdirSync(binDir).sort()).toEqual(['etcd', 'helm', 'kube-apiserver', 'kubectl']);
    expect(readFileSync(join(binDir, 'kube-apiserver'), 'utf8')).toContain('v1.36.3');
    expect(readdirSync(work)).toEqual(['assets']);
  });

  it('leaves a folder that has other binaries as it was when the download fails', async () => {
    serve(fakeEnvtestArchive(fakeBinaries(), [{ path: '../evil', body: 'x' }]));
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-download-'));
    const binDir = join(work, 'assets');
    mkdirSync(binDir);
    const old = fakeBinaries('1.30.0');
    for (const [name, body] of Object.entries(old)) writeFileSync(join(binDir, name), body, { mode: 0o755 });
    const fake = fakeBuild();
    const result = await setupEnvtest({
      binDir,
      platform: PLATFORM,
      indexUrl: `${server.url}/index.yaml`,
      build: fake.build,
      env: {},
    });
    expect(result.source).toBe('build');
    expect(fake.calls).toHaveLength(1);
    for (const [name, body] of Object.entries(old)) expect(readFileSync(join(binDir, name), 'utf8')).toBe(body);
    expect(readdirSync(work)).toEqual(['assets']);
  });

  it('fetches from the archive mirror when one is set, and reads file: URLs', async () => {
    const archive = fakeEnvtestArchive();
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-mirror-'));
    writeFileSync(join(work, ARCHIVE), archive);
    writeFileSync(
      join(work, 'index.yaml'),
      envtestIndex(VERSION, ARCHIVE, sha512(archive), `https://github.invalid/${ARCHIVE}`),
    );
    const binDir = join(work, 'bin');
    const result = await setupEnvtest({
      binDir,
      platform: PLATFORM,
      env: {
        KOP_ENVTEST_INDEX_URL: pathToFileURL(join(work, 'index.yaml')).href,
        KOP_ENVTEST_ARCHIVE_BASE_URL: pathToFileURL(work).href,
      },
      build: fakeBuild(new Error('no build')).build,
    });
    expect(result).toMatchObject({
      source: 'download',
      reason: `downloaded ${pathToFileURL(join(work, ARCHIVE)).href}`,
    });
    expect(readdirSync(binDir).sort()).toEqual(['etcd', 'kube-apiserver', 'kubectl']);
  });

  it('uses $KUBEBUILDER_ASSETS when it has the version, and says why it does not when it has another', async () => {
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-assets-'));
    for (const [version, folder] of [
      ['1.36.3', 'good'],
      ['1.30.0', 'old'],
    ] as const) {
      mkdirSync(join(work, folder));
      for (const [name, body] of Object.entries(fakeBinaries(version)))
        writeFileSync(join(work, folder, name), body, { mode: 0o755 });
    }
    const progress: string[] = [];
    const good = await setupEnvtest({
      env: { KUBEBUILDER_ASSETS: join(work, 'good'), HOME: work },
      progress: (line) => progress.push(line),
    });
    expect(good).toMatchObject({ source: 'kubebuilder-assets', binDir: join(work, 'good') });
    expect(progress).toEqual([
      `using $KUBEBUILDER_ASSETS (${join(work, 'good')}): it has kube-apiserver, etcd and kubectl v1.36.3`,
    ]);

    serve(fakeEnvtestArchive());
    progress.length = 0;
    const old = await setupEnvtest({
      env: { KUBEBUILDER_ASSETS: join(work, 'old'), XDG_CACHE_HOME: join(work, 'cache') },
      platform: PLATFORM,
      indexUrl: `${server.url}/index.yaml`,
      progress: (line) => progress.push(line),
    });
    expect(old).toMatchObject({ source: 'download', binDir: join(work, 'cache', 'kop', 'envtest', VERSION) });
    expect(progress[0]).toBe(
      `not using $KUBEBUILDER_ASSETS (${join(work, 'old')}): kube-apiserver is v1.30.0, not v1.36.3, kubectl is v1.30.0, not v1.36.3`,
    );
  });

  it('goes straight to the build for --no-download, an etcd version, or a platform without archives', async () => {
    for (const [overrides, reason] of [
      [{ download: false }, 'downloading is turned off (--no-download)'],
      [{ etcdVersion: 'v3.6.8' }, 'the envtest archives bring their own etcd, and etcd 3.6.8 was asked for'],
    ] as const) {
      const { result, progress, builds } = await setup(overrides);
      expect(result).toMatchObject({ source: 'build', reason });
      expect(progress).toEqual([`building from Go modules: ${reason}`]);
      expect(builds).toHaveLength(1);
      expect(server.requests).toEqual([]);
      rmSync(work, { recursive: true, force: true });
    }
    expect(currentEnvtestPlatform('win32', 'x64')).toBeUndefined();
    expect(currentEnvtestPlatform('linux', 'ia32')).toBeUndefined();
    expect(currentEnvtestPlatform('darwin', 'arm64')).toEqual({ os: 'darwin', arch: 'arm64' });
    expect(currentEnvtestPlatform('linux', 'x64')).toEqual({ os: 'linux', arch: 'amd64' });
    expect(currentEnvtestPlatform('linux', 'ppc64')).toEqual({ os: 'linux', arch: 'ppc64le' });
  });

  it('with dryRun only says what it would download, and makes no request', async () => {
    const { result, progress, builds, cacheRoot, binDir } = await setup({ dryRun: true });
    expect(result.source).toBe('download');
    expect(progress).toEqual([
      `would download ${ARCHIVE} (listed in ${server.url}/index.yaml) into ${binDir}, and build from Go modules only if that fails`,
    ]);
    expect(builds).toEqual([]);
    expect(server.requests).toEqual([]);
    expectNothingInstalled(cacheRoot);
  });
});

describe('the envtest index', () => {
  const hash = 'AB'.repeat(64);

  it('resolves relative selfLinks against the index and lets a mirror replace them', () => {
    const index = envtestIndex(VERSION, ARCHIVE, hash, `../files/${ARCHIVE}`);
    expect(
      findEnvtestArchive(index, { indexUrl: 'https://mirror.example/envtest/index.yaml' }, VERSION, PLATFORM),
    ).toEqual({
      name: ARCHIVE,
      url: `https://mirror.example/files/${ARCHIVE}`,
      sha512: hash.toLowerCase(),
    });
    expect(
      findEnvtestArchive(
        index,
        { indexUrl: 'https://x/index.yaml', archiveBaseUrl: 'https://cache.example/envtest' },
        VERSION,
        PLATFORM,
      ).url,
    ).toBe(`https://cache.example/envtest/${ARCHIVE}`);
  });

  it('names what is wrong with an index', () => {
    const source = { indexUrl: 'https://x/index.yaml' };
    expect(() => findEnvtestArchive('releases: [', source, VERSION, PLATFORM)).toThrow(/is not YAML/);
    expect(() => findEnvtestArchive('{}', source, VERSION, PLATFORM)).toThrow(
      'the envtest index https://x/index.yaml has no "releases" map',
    );
    expect(() =>
      findEnvtestArchive(
        envtestIndex(VERSION, 'envtest-v1.36.3-darwin-arm64.tar.gz', hash, 'x'),
        source,
        VERSION,
        PLATFORM,
      ),
    ).toThrow(`lists no ${ARCHIVE} (it has envtest-v1.36.3-darwin-arm64.tar.gz for v1.36.3)`);
    expect(() =>
      findEnvtestArchive(envtestIndex(VERSION, ARCHIVE, 'deadbeef', 'x'), source, VERSION, PLATFORM),
    ).toThrow(`lists no sha512 for ${ARCHIVE}`);
    const twoPatches = `releases:\n  v1.36.1:\n    a: {}\n  v1.36.0:\n    b: {}\n  v1.35.0:\n    c: {}\n`;
    expect(() => findEnvtestArchive(twoPatches, source, VERSION, PLATFORM)).toThrow(
      `lists no ${ARCHIVE} (it has no v1.36.3; of 1.36 it has v1.36.0, v1.36.1, for --kubernetes-version)`,
    );
  });

  it('defaults to controller-tools’ index, overridable by environment', () => {
    expect(envtestDownloadSource({})).toEqual({ indexUrl: DEFAULT_ENVTEST_INDEX_URL, archiveBaseUrl: undefined });
    expect(DEFAULT_ENVTEST_INDEX_URL).toBe(
      'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml',
    );
    expect(
      envtestDownloadSource({ KOP_ENVTEST_INDEX_URL: 'https://i/x.yaml', KOP_ENVTEST_ARCHIVE_BASE_URL: 'https://a/' }),
    ).toEqual({
      indexUrl: 'https://i/x.yaml',
      archiveBaseUrl: 'https://a/',
    });
    expect(
      envtestDownloadSource({ KOP_ENVTEST_INDEX_URL: 'https://i/x.yaml' }, { indexUrl: 'https://flag/y.yaml' })
        .indexUrl,
    ).toBe('https://flag/y.yaml');
  });
});

describe('extracting an envtest archive', () => {
  async function extract(entries: FakeTarEntry[]): Promise<{ files: string[]; error?: Error }> {
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-extract-'));
    const archivePath = join(work, 'a.tar.gz');
    writeFileSync(archivePath, gzipSync(tarArchive(entries)));
    mkdirSync(join(work, 'out'));
    const error = await extractEnvtestArchive(archivePath, join(work, 'out'), 'a.tar.gz').then(
      () => undefined,
      (failure: Error) => failure,
    );
    return { files: readdirSync(join(work, 'out')).sort(), error };
  }
  const binaries = (prefix: string): FakeTarEntry[] =>
    Object.entries(fakeBinaries()).map(([name, body]) => ({ path: `${prefix}${name}`, body }));

  it('takes only the three binaries, wherever they sit, and skips other files', async () => {
    const { files, error } = await extract([
      ...binaries('kubebuilder/bin/'),
      { path: 'controller-tools/envtest/LICENSE', body: 'Apache' },
    ]);
    expect(error).toBeUndefined();
    expect(files).toEqual(['etcd', 'kube-apiserver', 'kubectl']);
  });

  it('reads what GNU tar writes', async () => {
    work = mkdtempSync(join(tmpdir(), 'kop-envtest-gnutar-'));
    const source = join(work, 'src', 'controller-tools', 'envtest');
    mkdirSync(source, { recursive: true });
    for (const [name, body] of Object.entries(fakeBinaries()))
      writeFileSync(join(source, name), body.padEnd(3000, '#'), { mode: 0o755 });
    await execa('tar', ['-czf', join(work, 'a.tar.gz'), '-C', join(work, 'src'), 'controller-tools']);
    mkdirSync(join(work, 'out'));
    await extractEnvtestArchive(join(work, 'a.tar.gz'), join(work, 'out'), 'a.tar.gz');
    expect(readFileSync(join(work, 'out', 'etcd'), 'utf8')).toBe(fakeBinaries().etcd.padEnd(3000, '#'));
  });

  const refused: Array<[string, FakeTarEntry[], RegExp]> = [
    [
      'a hardlink',
      [...binaries('e/').slice(1), { path: 'e/kube-apiserver', type: 'hardlink', linkTarget: 'e/etcd' }],
      /is a hardlink to "e\/etcd"/,
    ],
    ['a fifo', [...binaries('e/'), { path: 'e/pipe', type: 'fifo' }], /entry "e\/pipe" has type "6"/],
    ['a binary twice', [...binaries('e/'), ...binaries('f/').slice(0, 1)], /it holds kube-apiserver twice/],
    ['a Windows drive path', [...binaries('e/'), { path: 'C:\\evil', body: 'x' }], /entry "C:\\evil" points outside/],
    ['a backslash traversal', [...binaries('e/'), { path: 'e\\..\\..\\evil', body: 'x' }], /points outside/],
    [
      'a traversal in a pax path',
      [...binaries('e/'), { path: '../evil', body: 'x', paxPath: true }],
      /entry "\.\.\/evil" points outside/,
    ],
  ];
  it.each(refused)('refuses %s and writes nothing outside its folder', async (_name, entries, message) => {
    const { error } = await extract(entries);
    expect(error?.message).toMatch(message);
    expect(readdirSync(work).sort()).toEqual(['a.tar.gz', 'out']);
  });
});
