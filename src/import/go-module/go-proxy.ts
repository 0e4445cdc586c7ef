/**
 * The GOPROXY protocol (`<proxy>/<module>/@v/list`, `/@v/<version>.info|.mod|.zip`, `/@latest`)
 * over plain HTTPS (or file:// URLs), trying the proxies of GOPROXY in order as the go command
 * does: after a `,` only when a proxy has no such module or version (404, 410), after a `|` on
 * any error. `direct` (version control) needs the Go toolchain, so kop stops there; `off`
 * forbids downloads.
 */
import { promises as fs } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KopError } from '../../base/index.js';
import { escapeModulePath } from './module-path.js';

/** How kop fetches a URL: `fetch` in use, a local server's handler in tests. */
export type Fetcher = (url: string) => Promise<Response>;

/** One entry of GOPROXY. */
export interface ProxyEntry {
  /** A proxy's base URL, or the keywords `direct` and `off`. */
  url: string;
  /** Whether any error (not only 404/410) moves on to the next entry (the entry is followed by `|`). */
  fallThroughOnAnyError: boolean;
}

/** GOPROXY's list, `,`- and `|`-separated. */
export function parseGoProxy(value: string): ProxyEntry[] {
  const entries: ProxyEntry[] = [];
  for (const match of value.matchAll(/([^,|]*)([,|]?)/g)) {
    const url = match[1]!.trim();
    if (url === '') continue;
    entries.push({ url: url.replace(/\/+$/, ''), fallThroughOnAnyError: match[2] === '|' });
  }
  if (entries.length === 0) throw new KopError(`GOPROXY ${JSON.stringify(value)}: no proxy in it`);
  for (const e of entries)
    if (e.url !== 'direct' && e.url !== 'off' && !/^(https?|file):\/\//.test(e.url))
      throw new KopError(`GOPROXY: ${e.url} is not an http(s):// or file:// URL, direct or off`);
  return entries;
}

/** No proxy of GOPROXY has the file, up to the end of the list or to `direct`. */
export class ModuleNotFoundError extends KopError {}

/** A not-found answer (HTTP 404 or 410, or no such file): the next proxy of the list may have it. */
export class NotFoundError extends Error {}

/** Downloads `<module>/<suffix>` (suffix `@v/v1.2.3.zip`, `@latest`, ...) from the first proxy that has it. */
export async function proxyGet(
  entries: readonly ProxyEntry[],
  modulePath: string,
  suffix: string,
  fetcher: Fetcher,
): Promise<Buffer> {
  const tried: string[] = [];
  for (const entry of entries) {
    if (entry.url === 'off')
      throw new KopError(
        `${modulePath}: GOPROXY=off forbids downloading modules${tried.length > 0 ? ` (${tried.join('; ')})` : ''}`,
        'set GOPROXY to a module proxy (go env -w GOPROXY=https://proxy.golang.org,direct)',
      );
    if (entry.url === 'direct')
      throw new ModuleNotFoundError(
        `${modulePath}: not found on the module proxies of GOPROXY (${tried.join('; ') || 'none before direct'}), and kop does not fetch from version control (GOPROXY's direct), which needs the Go toolchain`,
        'check the module path and version; or download it with go mod download -json <module>@<version> and pass the CRD file or folder of its Dir as --external-api-module',
      );
    const url = `${entry.url}/${escapeModulePath(modulePath)}/${suffix}`;
    try {
      return await getUrl(url, fetcher);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      tried.push(`${url}: ${why}`);
      if (!(error instanceof NotFoundError) && !entry.fallThroughOnAnyError)
        throw new KopError(`${modulePath}: ${url}: ${why}`, 'check GOPROXY and the network');
    }
  }
  throw new ModuleNotFoundError(`${modulePath}: not found on the module proxies of GOPROXY (${tried.join('; ')})`);
}

/** The body of `url` (http(s) or file); NotFoundError for 404, 410 or a missing file, else an Error saying why. */
export async function getUrl(url: string, fetcher: Fetcher): Promise<Buffer> {
  if (url.startsWith('file://')) {
    try {
      return await fs.readFile(fileURLToPath(url));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError('no such file');
      throw error;
    }
  }
  let response: Response;
  try {
    response = await fetcher(url);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)), {
      cause: error,
    });
  }
  if (response.status === 404 || response.status === 410) {
    const text = (await response.text()).trim().split('\n')[0] ?? '';
    throw new NotFoundError(`HTTP ${response.status}${text === '' ? '' : ` ${text.slice(0, 200)}`}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  return Buffer.from(await response.arrayBuffer());
}
