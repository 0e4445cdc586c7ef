import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import type { Environment } from './cache-dir.js';
import { readTar, TarFormatError, type TarEntrySink } from './tar.js';
import { CONTROL_PLANE_BINARIES, type ControlPlaneBinary } from './versions.js';

/** The index of prebuilt envtest archives that controller-tools publishes (what controller-runtime's setup-envtest reads). */
export const DEFAULT_ENVTEST_INDEX_URL =
  'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';

/** Largest archive or extracted binary kop accepts (the real archives are about 60 MB, their binaries under 150 MB). */
const MAX_BYTES = 1024 * 1024 * 1024;

/** An operating system and CPU in the names of the envtest archives (`envtest-v1.36.3-linux-amd64.tar.gz`). */
export interface EnvtestPlatform {
  os: string;
  arch: string;
}

/** Where the archive index and the archives come from. */
export interface EnvtestDownloadSource {
  /** The index (YAML or JSON, controller-tools' format); `http:`, `https:` or `file:`. */
  indexUrl: string;
  /** When set, archives are fetched from `<archiveBaseUrl>/<archive name>` instead of the index's selfLink (a mirror). */
  archiveBaseUrl?: string;
}

/** Options for {@link downloadEnvtestBinaries}. */
export interface DownloadEnvtestOptions extends EnvtestDownloadSource {
  kubernetesVersion: string;
  /** Where the binaries go; made (with its parents) when missing. */
  binDir: string;
  platform?: EnvtestPlatform;
  /** Abort when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  progress?: (message: string) => void;
  /** Checks the unpacked binaries (in a staging folder) before they are moved into binDir; throws to refuse them. */
  verify?: (stagingDir: string) => Promise<void>;
}

/** What {@link downloadEnvtestBinaries} installed. */
export interface DownloadEnvtestResult {
  binDir: string;
  archiveName: string;
  archiveUrl: string;
  archiveBytes: number;
  /** The sha512 the index listed, which the archive matched. */
  sha512: string;
}

/** The download did not give a verified, complete set of binaries; nothing was installed. */
export class EnvtestDownloadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EnvtestDownloadError';
  }
}

/**
 * The index URL and archive mirror from the environment: `KOP_ENVTEST_INDEX_URL` and
 * `KOP_ENVTEST_ARCHIVE_BASE_URL`, else controller-tools' index and its selfLinks.
 */
export function envtestDownloadSource(
  env: Environment,
  overrides: Partial<EnvtestDownloadSource> = {},
): EnvtestDownloadSource {
  return {
    indexUrl: overrides.indexUrl ?? (env.KOP_ENVTEST_INDEX_URL || DEFAULT_ENVTEST_INDEX_URL),
    archiveBaseUrl: overrides.archiveBaseUrl ?? (env.KOP_ENVTEST_ARCHIVE_BASE_URL || undefined),
  };
}

/** This machine's platform in envtest's words, or undefined where no envtest archive fits kop/testing. */
export function currentEnvtestPlatform(
  platform: string = process.platform,
  arch: string = process.arch,
): EnvtestPlatform | undefined {
  const os = platform === 'linux' || platform === 'darwin' ? platform : undefined;
  const cpu = ({ x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch];
  return os && cpu ? { os, arch: cpu } : undefined;
}

/** `envtest-v1.36.3-linux-amd64.tar.gz`. */
export function envtestArchiveName(kubernetesVersion: string, platform: EnvtestPlatform): string {
  return `envtest-v${kubernetesVersion}-${platform.os}-${platform.arch}.tar.gz`;
}

/** One archive of the index: where it is and the sha512 (hex) it must have. */
export interface EnvtestArchive {
  name: string;
  url: string;
  sha512: string;
}

/**
 * Finds the archive of one version and platform in an index of controller-tools' format
 * (`releases: { v1.36.3: { <archive name>: { hash, selfLink } } }`). A relative selfLink is read
 * against the index URL; `archiveBaseUrl` replaces the selfLink's folder.
 */
export function findEnvtestArchive(
  indexText: string,
  source: EnvtestDownloadSource,
  kubernetesVersion: string,
  platform: EnvtestPlatform,
): EnvtestArchive {
  let index: unknown;
  try {
    index = parseYaml(indexText);
  } catch (error) {
    throw new EnvtestDownloadError(`the envtest index ${source.indexUrl} is not YAML: ${(error as Error).message}`);
  }
  const releases = isRecord(index) ? index.releases : undefined;
  if (!isRecord(releases)) throw new EnvtestDownloadError(`the envtest index ${source.indexUrl} has no "releases" map`);
  const name = envtestArchiveName(kubernetesVersion, platform);
  const release = releases[`v${kubernetesVersion}`];
  const entry = isRecord(release) ? release[name] : undefined;
  if (!isRecord(entry)) {
    const minor = kubernetesVersion.split('.').slice(0, 2).join('.');
    const sameMinor = Object.keys(releases).filter((version) => version.startsWith(`v${minor}.`));
    const known = isRecord(release)
      ? ` (it has ${Object.keys(release).join(', ') || 'no archives'} for v${kubernetesVersion})`
      : ` (it has no v${kubernetesVersion}${sameMinor.length > 0 ? `; of ${minor} it has ${sameMinor.sort().join(', ')}, for --kubernetes-version` : ''})`;
    throw new EnvtestDownloadError(`the envtest index ${source.indexUrl} lists no ${name}${known}`);
  }
  const hash = typeof entry.hash === 'string' ? entry.hash.trim().toLowerCase() : '';
  if (!/^[0-9a-f]{128}$/.test(hash))
    throw new EnvtestDownloadError(
      `the envtest index lists no sha512 for ${name} (hash: ${JSON.stringify(entry.hash)})`,
    );
  let url: URL;
  try {
    if (source.archiveBaseUrl) url = new URL(encodeURIComponent(name), source.archiveBaseUrl.replace(/\/*$/, '/'));
    else if (typeof entry.selfLink === 'string' && entry.selfLink) url = new URL(entry.selfLink, source.indexUrl);
    else throw new EnvtestDownloadError(`the envtest index lists no selfLink for ${name}`);
  } catch (error) {
    if (error instanceof EnvtestDownloadError) throw error;
    throw new EnvtestDownloadError(`bad URL for ${name}: ${(error as Error).message}`);
  }
  return { name, url: url.href, sha512: hash };
}

/**
 * Downloads the envtest archive of one Kubernetes version for this platform, checks its sha512
 * against the index, unpacks kube-apiserver, etcd and kubectl (and nothing else) into a staging
 * folder beside binDir, runs `verify` on them, and only then renames them into binDir. When that
 * gives no verified set of binaries it throws {@link EnvtestDownloadError}; on any failure binDir
 * is left as it was and the staging folder is removed.
 */
export async function downloadEnvtestBinaries(options: DownloadEnvtestOptions): Promise<DownloadEnvtestResult> {
  const progress = options.progress ?? (() => undefined);
  const platform = options.platform ?? currentEnvtestPlatform();
  if (!platform)
    throw new EnvtestDownloadError(`envtest archives do not cover ${process.platform}/${process.arch} for kop/testing`);
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  warnIfUnencrypted(options.indexUrl, 'index', progress);

  const indexText = (await fetchBytes(options.indexUrl, 'the envtest index', idleTimeoutMs, 16 * 1024 * 1024)).toString(
    'utf8',
  );
  const archive = findEnvtestArchive(indexText, options, options.kubernetesVersion, platform);
  if (options.archiveBaseUrl) warnIfUnencrypted(archive.url, 'archive', progress);
  progress(`downloading ${archive.url}`);

  const parent = dirname(options.binDir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.${basename(options.binDir)}.download-`));
  try {
    const archivePath = join(staging, 'archive.tar.gz');
    const { bytes, sha512 } = await downloadTo(archive.url, archivePath, archive.name, idleTimeoutMs);
    if (sha512 !== archive.sha512) {
      throw new EnvtestDownloadError(
        `checksum mismatch for ${archive.name} (${archive.url}): sha512 ${sha512}, but the index lists ${archive.sha512}`,
      );
    }
    const binaries = join(staging, 'bin');
    mkdirSync(binaries);
    await extractEnvtestArchive(archivePath, binaries, archive.name);
    rmSync(archivePath);
    try {
      await options.verify?.(binaries);
    } catch (error) {
      throw new EnvtestDownloadError(`${(error as Error).message}; nothing was installed`, { cause: error });
    }
    moveIntoPlace(binaries, options.binDir);
    return { binDir: options.binDir, archiveName: archive.name, archiveUrl: archive.url, archiveBytes: bytes, sha512 };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Unpacks the control-plane binaries of an envtest archive (`controller-tools/envtest/<binary>`)
 * into `targetDir`, which must be empty. The whole archive is refused when any entry's name is
 * absolute or climbs out with `..`, when any entry is a link or a device, or when a binary appears
 * twice or is missing; other plain files and folders are skipped, never written.
 */
export async function extractEnvtestArchive(
  archivePath: string,
  targetDir: string,
  archiveName: string,
): Promise<void> {
  const found = new Set<ControlPlaneBinary>();
  let openFile: number | undefined;
  const refuse = (message: string) => new EnvtestDownloadError(`${archiveName}: ${message}; nothing was installed`);
  // pipeline reports a failing destination as an AbortError; keep the reader's own error.
  let readFailure: unknown;
  try {
    await pipeline(createReadStream(archivePath), createGunzip(), async (source: AsyncIterable<Buffer>) =>
      readTar(source, (entry): TarEntrySink | undefined => {
        const segments = entry.path.split(/[/\\]+/);
        if (
          entry.path.startsWith('/') ||
          /^[A-Za-z]:/.test(entry.path) ||
          segments.includes('..') ||
          entry.path.includes('\0')
        ) {
          throw refuse(`entry "${entry.path}" points outside the archive's folder`);
        }
        if (entry.type === 'symlink' || entry.type === 'hardlink') {
          throw refuse(
            `entry "${entry.path}" is a ${entry.type} to "${entry.linkTarget}"; envtest archives hold only plain files`,
          );
        }
        if (entry.type === 'other')
          throw refuse(`entry "${entry.path}" has type "${entry.typeflag}"; envtest archives hold only plain files`);
        const name = segments.filter((segment) => segment !== '' && segment !== '.').at(-1);
        const binary = CONTROL_PLANE_BINARIES.find((candidate) => candidate === name);
        if (entry.type !== 'file' || !binary) return undefined;
        if (found.has(binary)) throw refuse(`it holds ${binary} twice`);
        if (entry.size > MAX_BYTES) throw refuse(`${binary} is ${entry.size} bytes, more than kop accepts`);
        found.add(binary);
        // Only the fixed binary names are ever written, so no entry name reaches the file system.
        const fd = openSync(join(targetDir, binary), 'wx', 0o755);
        openFile = fd;
        return {
          write: (chunk) => writeAll(fd, chunk),
          end: () => {
            openFile = undefined;
            closeSync(fd);
          },
        };
      }).catch((error: unknown) => {
        readFailure = error;
        throw error;
      }),
    );
  } catch (pipelineError) {
    const error = readFailure ?? pipelineError;
    if (error instanceof EnvtestDownloadError) throw error;
    const code = (error as { code?: string }).code;
    const reason =
      error instanceof TarFormatError
        ? error.message
        : code === 'Z_BUF_ERROR'
          ? 'the gzip stream ends early: it is truncated'
          : code === 'Z_DATA_ERROR'
            ? `it is not gzip data (${(error as Error).message})`
            : (error as Error).message;
    throw new EnvtestDownloadError(`${archiveName} cannot be unpacked: ${reason}; nothing was installed`, {
      cause: error,
    });
  } finally {
    if (openFile !== undefined) closeSync(openFile);
  }
  const missing = CONTROL_PLANE_BINARIES.filter((binary) => !found.has(binary));
  if (missing.length > 0) throw refuse(`it has no ${missing.join(', ')}`);
}

function writeAll(fd: number, chunk: Buffer): void {
  for (let written = 0; written < chunk.length;) written += writeSync(fd, chunk, written);
}

/**
 * Moves the verified binaries into binDir: the whole staging folder in one rename when binDir does not
 * exist yet, else one rename per binary (each atomic; other files in binDir stay).
 */
function moveIntoPlace(stagedDir: string, binDir: string): void {
  try {
    renameSync(stagedDir, binDir);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EISDIR' && code !== 'ENOTDIR') throw error;
  }
  for (const file of readdirSync(stagedDir)) renameSync(join(stagedDir, file), join(binDir, file));
}

/** Streams a URL (or file: path) to `target`, hashing as it goes. */
async function downloadTo(
  url: string,
  target: string,
  what: string,
  idleTimeoutMs: number,
): Promise<{ bytes: number; sha512: string }> {
  const body = await openBody(url, what, idleTimeoutMs);
  const hash = createHash('sha512');
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      body.touch();
      if (bytes > MAX_BYTES) return callback(new EnvtestDownloadError(`${what} is larger than ${MAX_BYTES} bytes`));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(body.stream, counter, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    throw body.wrap(error, bytes);
  } finally {
    body.dispose();
  }
  if (body.expectedBytes !== undefined && bytes !== body.expectedBytes) {
    throw new EnvtestDownloadError(`downloading ${url} ended after ${bytes} of ${body.expectedBytes} bytes`);
  }
  return { bytes, sha512: hash.digest('hex') };
}

async function fetchBytes(url: string, what: string, idleTimeoutMs: number, limit: number): Promise<Buffer> {
  const body = await openBody(url, what, idleTimeoutMs);
  const parts: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body.stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      body.touch();
      if (bytes > limit) throw new EnvtestDownloadError(`${what} (${url}) is larger than ${limit} bytes`);
      parts.push(chunk);
    }
  } catch (error) {
    throw body.wrap(error, bytes);
  } finally {
    body.dispose();
  }
  return Buffer.concat(parts);
}

interface OpenedBody {
  stream: Readable;
  expectedBytes?: number;
  /** Restarts the idle timer; called for every chunk read. */
  touch(): void;
  /** Turns a stream failure into an EnvtestDownloadError naming the URL (and the idle timeout when that fired). */
  wrap(error: unknown, bytesSoFar: number): EnvtestDownloadError;
  dispose(): void;
}

/** Opens `http:`/`https:` with fetch (aborted after `idleTimeoutMs` without a byte) or `file:` from disk. */
async function openBody(url: string, what: string, idleTimeoutMs: number): Promise<OpenedBody> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EnvtestDownloadError(`${what} URL "${url}" is not a URL`);
  }
  if (parsed.protocol === 'file:') {
    const stream = createReadStream(fileURLToPath(parsed));
    const opened = await new Promise<Error | undefined>((resolve) => {
      stream.once('open', () => resolve(undefined));
      stream.once('error', resolve);
    });
    if (opened) throw new EnvtestDownloadError(`cannot read ${what} ${url}: ${opened.message}`, { cause: opened });
    return {
      stream,
      touch: () => undefined,
      wrap: (error) => asDownloadError(error, `reading ${url} failed`),
      dispose: () => stream.destroy(),
    };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new EnvtestDownloadError(`${what} URL "${url}" must be https:, http: or file:`);
  }
  const controller = new AbortController();
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      controller.abort();
    }, idleTimeoutMs);
  };
  arm();
  let response: Response;
  try {
    response = await fetch(parsed, { signal: controller.signal, redirect: 'follow' });
  } catch (error) {
    clearTimeout(timer);
    const reason = idle ? `no answer within ${idleTimeoutMs / 1000} s` : describeNetworkError(error);
    throw new EnvtestDownloadError(`cannot fetch ${what} ${url}: ${reason}`, { cause: error });
  }
  if (response.status !== 200 || !response.body) {
    clearTimeout(timer);
    await response.body?.cancel().catch(() => undefined);
    throw new EnvtestDownloadError(
      `cannot fetch ${what} ${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    );
  }
  const length = Number(response.headers.get('content-length') ?? NaN);
  const stream = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  return {
    stream,
    touch: arm,
    expectedBytes:
      Number.isSafeInteger(length) && response.headers.get('content-encoding') === null ? length : undefined,
    wrap: (error, bytesSoFar) =>
      idle
        ? new EnvtestDownloadError(
            `downloading ${url} stalled: no data for ${idleTimeoutMs / 1000} s after ${bytesSoFar} bytes`,
            { cause: error },
          )
        : asDownloadError(error, `downloading ${url} failed after ${bytesSoFar} bytes`),
    dispose: () => {
      clearTimeout(timer);
      stream.destroy();
    },
  };
}

function asDownloadError(error: unknown, context: string): EnvtestDownloadError {
  if (error instanceof EnvtestDownloadError) return error;
  return new EnvtestDownloadError(`${context}: ${describeNetworkError(error)}`, { cause: error });
}

/** fetch says "fetch failed" and hides the reason (ENOTFOUND, ECONNREFUSED...) in its cause. */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code)
    return cause.message?.includes(cause.code)
      ? cause.message
      : `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  if (cause?.message) return cause.message;
  return (error as Error).message;
}

/** The index's checksum is only as trustworthy as the channel it came through. */
function warnIfUnencrypted(url: string, what: string, progress: (message: string) => void): void {
  try {
    const parsed = new URL(url);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
    if (parsed.protocol === 'http:' && !loopback)
      progress(`warning: the envtest ${what} comes over plain http (${url}); anyone on the path can replace it`);
  } catch {
    // an invalid URL is reported where it is fetched
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
