/**
 * The book (docs/, a VitePress site and an npm package of its own) builds, has no dead links, and
 * works in a real browser. The build is VitePress's own, which fails on a link to a missing page;
 * on top of that every internal link of the built HTML is followed here, anchors included (VitePress
 * does not check those). Then a headless Chromium (the system's /usr/bin/chromium, driven by
 * playwright-core from docs/'s dependencies) loads the site from a static server on a free port:
 * the home page, a how-to page, and the local search, which must find a term and navigate to it.
 * Outside CI a machine without Chromium skips the browser half with a message; in CI it fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const docs = path.join(repo, 'docs');
const CHROMIUM = '/usr/bin/chromium';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** The tutorials are written apart from the rest of the book; until one exists the site leaves it out. */
const TUTORIALS = ['/tutorial/cronjob', '/tutorial/multiversion'];

let outDir = '';

beforeAll(async () => {
  if (!existsSync(path.join(docs, 'node_modules/.bin/vitepress'))) {
    await run('npm', ['ci', '--prefix', 'docs', '--no-audit', '--no-fund'], { cwd: repo });
  }
  outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-book-'));
  // The committed pages as they are: the reference pages' freshness is test/repository/docs-reference.test.ts's.
  await run(path.join(docs, 'node_modules/.bin/vitepress'), ['build', '.', '--outDir', outDir], {
    cwd: docs,
    maxBuffer: 32 * 1024 * 1024,
  });
}, 900_000);

afterAll(async () => {
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
});

/** The built file a site path is served from (cleanUrls: `/howto/testing` is howto/testing.html). */
function fileFor(urlPath: string): string | undefined {
  const clean = decodeURIComponent(urlPath.split(/[?#]/)[0]!);
  const candidates = clean.endsWith('/')
    ? [path.join(outDir, clean, 'index.html')]
    : [path.join(outDir, clean), path.join(outDir, `${clean}.html`), path.join(outDir, clean, 'index.html')];
  return candidates.find((file) => file.startsWith(outDir) && existsSync(file) && !file.endsWith(path.sep));
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.filter((entry) => entry.endsWith('.html')).map((entry) => path.join(dir, entry));
}

describe('the book builds', () => {
  it('every page is built, and every internal link and anchor of the site resolves', async () => {
    for (const page of ['index.html', 'guide/quick-start.html', 'howto/testing.html', 'kubebuilder.html']) {
      expect(existsSync(path.join(outDir, page)), page).toBe(true);
    }
    for (const page of ['reference/cli.html', 'reference/markers.html', 'reference/runtime.html']) {
      expect(existsSync(path.join(outDir, page)), page).toBe(true);
    }
    // Pages include code from the golden projects kop's tests generate (`<<< @/../test/golden/...`), not pasted copies.
    const testing = await fs.readFile(path.join(outDir, 'howto/testing.html'), 'utf8');
    expect(testing).toContain('RedisClusterReconciler');
    expect(testing).not.toMatch(/no such file/i);
    const ids = new Map<string, Set<string>>();
    const idsOf = async (file: string): Promise<Set<string>> => {
      let found = ids.get(file);
      if (!found) {
        const html = await fs.readFile(file, 'utf8');
        found = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
        ids.set(file, found);
      }
      return found;
    };
    const dead: string[] = [];
    const pages = await htmlFiles(outDir);
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) {
      if (page.endsWith('404.html')) continue;
      const html = await fs.readFile(page, 'utf8');
      const from = '/' + path.relative(outDir, page);
      for (const [, href] of html.matchAll(/<a [^>]*href="([^"]+)"/g)) {
        if (/^(https?:|mailto:)/.test(href!)) continue;
        // Relative links resolve against the page's own address, as the browser resolves them.
        const resolved = new URL(href!, `http://book${from}`);
        const [target, anchor] = [resolved.pathname, resolved.hash.slice(1)];
        if (TUTORIALS.includes(target!) && !fileFor(target!)) continue;
        const file = fileFor(target!);
        if (!file) {
          dead.push(`${from}: ${href}`);
          continue;
        }
        if (anchor && file.endsWith('.html') && !(await idsOf(file)).has(decodeURIComponent(anchor))) {
          dead.push(`${from}: ${href} (no such anchor)`);
        }
      }
    }
    expect(dead).toEqual([]);
  });
});

/** The part of playwright-core this test drives (its types live in docs/'s dependencies, not kop's). */
interface Locator {
  click(): Promise<void>;
  fill(text: string): Promise<void>;
  first(): Locator;
  textContent(): Promise<string | null>;
  waitFor(options?: { state?: 'visible' | 'attached'; timeout?: number }): Promise<void>;
  count(): Promise<number>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string, options?: { hasText?: string }): Locator;
  title(): Promise<string>;
  url(): string;
  waitForURL(url: RegExp, options?: { timeout?: number }): Promise<void>;
  on(event: 'pageerror', listener: (error: Error) => void): void;
}
interface BrowserContext {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: {
    launchPersistentContext(
      userDataDir: string,
      options: { executablePath: string; headless: boolean; args: string[]; timeout?: number },
    ): Promise<BrowserContext>;
  };
}

function staticServer(root: string): Promise<Server> {
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.woff2': 'font/woff2',
  };
  const server = createServer((request, response) => {
    const file = fileFor(new URL(request.url ?? '/', 'http://localhost').pathname);
    void (file ? fs.readFile(file) : fs.readFile(path.join(root, '404.html'))).then(
      (body) => {
        response.writeHead(file ? 200 : 404, {
          'content-type': types[path.extname(file ?? '.html')] ?? 'application/octet-stream',
        });
        response.end(body);
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(
    `the book's browser check: ${CHROMIUM} not found, so the browser checks are skipped (apt-get install chromium; in CI they fail)`,
  );
}

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('the book in headless Chromium', () => {
  let server: Server | undefined;
  let context: BrowserContext | undefined;
  let profile = '';
  let base = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM)
      throw new Error(`CI: ${CHROMIUM} is required for the book's browser check (.ci/run installs it)`);
    server = await staticServer(outDir);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    profile = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-book-chromium-'));
    const { chromium } = createRequire(path.join(docs, 'package.json'))('playwright-core') as Playwright;
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 120_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (profile) await fs.rm(profile, { recursive: true, force: true });
  });

  async function open(urlPath: string): Promise<Page> {
    const page = await context!.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${urlPath}: ${error.message}`));
    await page.goto(base + urlPath);
    return page;
  }

  it('renders the home page', async () => {
    const page = await open('/');
    expect(await page.title()).toContain('The kop book');
    await page.locator('.VPHero .name').waitFor();
    expect(await page.locator('.VPHero .name').textContent()).toContain('kop');
    expect(await page.locator('.VPFeature').count()).toBeGreaterThanOrEqual(3);
    expect(pageErrors).toEqual([]);
  });

  it('renders a how-to page with the sidebar', async () => {
    const page = await open('/howto/testing');
    await page.locator('.vp-doc h1').waitFor();
    expect(await page.locator('.vp-doc h1').textContent()).toContain('Testing against a real API server');
    expect(await page.locator('.VPSidebar a[href="/howto/webhooks"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('searches: the search box opens, finds a term and navigates to it', async () => {
    const page = await open('/guide/introduction');
    await page.locator('.DocSearch-Button').click();
    const input = page.locator('#localsearch-input');
    await input.waitFor();
    await input.fill('GetFieldIndexer');
    const result = page.locator('.results a.result').first();
    await result.waitFor({ timeout: 30_000 });
    await result.click();
    await page.waitForURL(/\/kubebuilder(#.*)?$/, { timeout: 30_000 });
    // The router changes the URL before it swaps the page in: until then, the old page's h1 is there.
    await page.locator('.vp-doc h1', { hasText: 'Coming from Kubebuilder' }).waitFor({ timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  });
});
