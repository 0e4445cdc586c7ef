/**
 * `--external-api-module <Go module>`: fetching from a module proxy (GOPROXY's list semantics,
 * case-encoded paths), verifying the zip's h1: hash (go.sum, else the checksum database's signed
 * answer), caching, and finding the kind's CRD, against a fake proxy on a local port.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCreateApi } from '../../../src/create-api/run-create-api.js';
import { runCreateWebhook } from '../../../src/create-webhook/run-create-webhook.js';
import {
  fetchGoModule,
  resolveGoModuleVersion,
  type FetchGoModuleOptions,
} from '../../../src/import/go-module/fetch-go-module.js';
import { readGoEnv } from '../../../src/import/go-module/go-env.js';
import { findModuleCrd } from '../../../src/import/go-module/module-crds.js';
import { escapeModulePath, matchesGlobList } from '../../../src/import/go-module/module-path.js';
import { runInit } from '../../../src/init/run-init.js';
import { parseProjectFile } from '../../../src/project/project-file.js';
import { tempDir, testContext } from '../../helpers/fake-context.js';
import { buildLog, expectedHash, makeZip, startFakeServer, sumDbKey, treeNote } from './fake-goproxy.js';

const MODULE = 'example.com/Acme/ops';
const VERSION = 'v1.2.0';
const PREFIX = `${MODULE}@${VERSION}/`;
const ESCAPED = 'example.com/!acme/ops';

const widgetCrd = (kind: string, group: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${kind.toLowerCase()}s.${group}
spec:
  group: ${group}
  names: { kind: ${kind}, listKind: ${kind}List, plural: ${kind.toLowerCase()}s, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
`;

const FILES = [
  { name: `${PREFIX}go.mod`, data: `module ${MODULE}\n\ngo 1.24\n` },
  { name: `${PREFIX}main.go`, data: 'package main\n' },
  { name: `${PREFIX}config/crd/bases/ops.example.com_widgets.yaml`, data: widgetCrd('Widget', 'ops.example.com') },
  // A Helm template of the same CRD: not plain YAML, passed over.
  {
    name: `${PREFIX}deploy/chart/templates/crd.yaml`,
    data: `{{- if .Values.crds }}\n${widgetCrd('Widget', 'ops.example.com')}{{- end }}\n`,
  },
  // A test copy of another version: testdata/ is not searched.
  { name: `${PREFIX}internal/testdata/old.yaml`, data: widgetCrd('Widget', 'ops.example.com') },
];
const GO_MOD = FILES[0]!.data;
/** The module's record in the test's checksum database log. */
const RECORD_ID = 270;

describe('Go module as --external-api-module', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  let routes: Map<string, string | Buffer | number>;
  let key: ReturnType<typeof sumDbKey>;
  let cacheDir: string;
  const warnings: string[] = [];

  /**
   * Serves the module under /proxy, and the checksum database through the proxy: a log of 300
   * records with the module's at RECORD_ID, its tiles, and a lookup answer with the signed tree
   * head (`sent` replaces the record text the answer carries, to forge one).
   */
  const serve = (
    files = FILES,
    recorded = expectedHash(files),
    signer = key,
    sent?: string,
    log: { filler?: string; appended?: number } = {},
  ) => {
    const zip = makeZip(files);
    const base = `/proxy/${ESCAPED}/@v`;
    routes.set(`${base}/list`, `v1.0.0\n${VERSION}\nv1.3.0-rc.1\n`);
    routes.set(`${base}/${VERSION}.info`, JSON.stringify({ Version: VERSION, Time: '2026-01-01T00:00:00Z' }));
    routes.set(`${base}/${VERSION}.mod`, GO_MOD);
    routes.set(`${base}/${VERSION}.zip`, zip);
    routes.set('/proxy/sumdb/sum.example.org/supported', '');
    const goModHash = expectedHash([{ name: 'go.mod', data: GO_MOD }]);
    const record = `${MODULE} ${VERSION} ${recorded}\n${MODULE} ${VERSION}/go.mod ${goModHash}\n`;
    const others = Array.from(
      { length: 299 },
      (_, i) => `example.com/${log.filler ?? 'm'}${i} v1.0.0 h1:${i}=\nexample.com/m${i} v1.0.0/go.mod h1:${i}=\n`,
    );
    const later = Array.from({ length: log.appended ?? 0 }, (_, i) => `example.com/later${i} v1.0.0 h1:${i}=\n`);
    const tree = buildLog([...others.slice(0, RECORD_ID), record, ...others.slice(RECORD_ID), ...later]);
    for (const [tile, data] of tree.tiles) routes.set(`/proxy/sumdb/sum.example.org/${tile}`, data);
    routes.set(
      `/proxy/sumdb/sum.example.org/lookup/${ESCAPED}@${VERSION}`,
      `${RECORD_ID}\n${sent ?? record}\n${treeNote(signer, tree.size, tree.root)}`,
    );
    return { record, goModHash };
  };
  const options = (env: NodeJS.ProcessEnv = {}): FetchGoModuleOptions => ({
    cwd: dir,
    cacheDir,
    env: { GOENV: 'off', GOPROXY: `${server.url}/proxy`, GOSUMDB: key.verifier, ...env },
    warn: (m) => warnings.push(m),
  });
  const cached = () => readFile(path.join(cacheDir, ESCAPED, '@v', `${VERSION}.zip`)).catch(() => undefined);

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    cacheDir = path.join(dir, '..', 'cache');
    routes = new Map();
    server = await startFakeServer(routes);
    key = sumDbKey('sum.example.org');
    warnings.length = 0;
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server.close();
    await cleanup();
  });

  it('fetches the case-encoded module, checks it against the signed checksum database answer, then reads it from the cache', async () => {
    serve();
    const fetched = await fetchGoModule(`${MODULE}@${VERSION}`, options());
    expect(fetched).toMatchObject({
      path: MODULE,
      version: VERSION,
      hash: expectedHash(FILES),
      verification: 'checksum database',
      sumDb: 'sum.example.org',
      fromCache: false,
    });
    expect(server.requests).toContain(`/proxy/${ESCAPED}/@v/${VERSION}.zip`);
    expect(server.requests).toContain(`/proxy/sumdb/sum.example.org/lookup/${ESCAPED}@${VERSION}`);
    expect(await cached()).toBeDefined();
    server.requests.length = 0;
    const again = await fetchGoModule(`${MODULE}@${VERSION}`, options());
    expect(again).toMatchObject({ fromCache: true, verification: 'checksum database', hash: fetched.hash });
    expect(server.requests).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('refuses a zip whose hash is not the one the checksum database records, and caches nothing', async () => {
    serve(FILES, expectedHash([{ name: 'other', data: 'x' }]));
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options())).rejects.toThrow(
      /example\.com\/Acme\/ops@v1\.2\.0: checksum mismatch: downloaded h1:.*, but sum\.example\.org has h1:/,
    );
    expect(await cached()).toBeUndefined();
  });

  it('refuses an answer the checksum database key did not sign', async () => {
    serve(FILES, expectedHash(FILES), sumDbKey('sum.example.org'));
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options())).rejects.toThrow(
      /is not signed by sum\.example\.org's key/,
    );
    expect(await cached()).toBeUndefined();
  });

  it('refuses a record the signed tree does not hold, and tiles that do not hash to the signed root', async () => {
    // A database that signs one tree but answers this client with a record it never logged.
    const { goModHash } = serve();
    const forged = `${MODULE} ${VERSION} ${expectedHash(FILES)}\n${MODULE} ${VERSION}/go.mod ${goModHash}\n`;
    serve(FILES, expectedHash([{ name: 'other', data: 'x' }]), key, forged);
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options())).rejects.toThrow(
      'example.com/Acme/ops@v1.2.0: the checksum database sum.example.org answered with a record that is not in its signed tree (record 270 of 300 holds other hashes); nothing was written',
    );
    expect(await cached()).toBeUndefined();
    // A proxy that serves a tile of another tree.
    serve();
    const tile = Buffer.from(routes.get('/proxy/sumdb/sum.example.org/tile/8/0/001.p/44') as Buffer);
    tile[40] = tile[40]! ^ 0x80;
    routes.set('/proxy/sumdb/sum.example.org/tile/8/0/001.p/44', tile);
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options())).rejects.toThrow(
      /example\.com\/Acme\/ops@v1\.2\.0: the checksum database sum\.example\.org served tiles that do not match its signed tree head: its tiles \(.*tile\/8\/0\/001\.p\/44.*\) do not hash to the root of the signed tree of 300 records; nothing was written/,
    );
    expect(await cached()).toBeUndefined();
    expect(server.requests).toContain('/proxy/sumdb/sum.example.org/tile/8/1/000.p/1');
  });

  it('keeps the last signed tree head and refuses a later one that is not its extension (a forked log)', async () => {
    serve();
    await fetchGoModule(`${MODULE}@${VERSION}`, options());
    const latest = path.join(cacheDir, 'sumdb', 'sum.example.org', 'latest');
    expect(await readFile(latest, 'utf8')).toMatch(/^go\.sum database tree\n300\n/);
    const refetch = async () => {
      await rm(path.join(cacheDir, 'example.com'), { recursive: true, force: true });
      return fetchGoModule(`${MODULE}@${VERSION}`, options());
    };
    // The log grew by ten records: consistent, and the newer head is kept.
    serve(FILES, expectedHash(FILES), key, undefined, { appended: 10 });
    expect((await refetch()).verification).toBe('checksum database');
    expect(await readFile(latest, 'utf8')).toMatch(/^go\.sum database tree\n310\n/);
    // Another history of the same records, signed with the same key: one of the two is a lie.
    serve(FILES, expectedHash(FILES), key, undefined, { filler: 'n', appended: 20 });
    await expect(refetch()).rejects.toThrow(
      /example\.com\/Acme\/ops@v1\.2\.0: the checksum database sum\.example\.org signed a tree of 320 records that is not consistent with the tree of 310 records it signed before \(kept in .*latest\)/,
    );
    // An older head than the kept one must be a prefix of it: the original 300-record tree is.
    serve();
    expect((await refetch()).verification).toBe('checksum database');
    expect(await readFile(latest, 'utf8')).toMatch(/^go\.sum database tree\n310\n/);
    serve(FILES, expectedHash(FILES), key, undefined, { filler: 'n' });
    await expect(refetch()).rejects.toThrow(/signed a tree of 300 records that is not consistent with the tree of 310/);
  });

  it("checks the project's go.sum line first: a match needs no database, a mismatch fails", async () => {
    serve(FILES, expectedHash([{ name: 'other', data: 'x' }]));
    await writeFile(path.join(dir, 'go.sum'), `${MODULE} ${VERSION} ${expectedHash(FILES)}\n`);
    const fetched = await fetchGoModule(`${MODULE}@${VERSION}`, options());
    expect(fetched.verification).toBe('go.sum');
    expect(server.requests.some((r) => r.includes('/lookup/'))).toBe(false);
    await rm(cacheDir, { recursive: true });
    await writeFile(path.join(dir, 'go.sum'), `${MODULE} ${VERSION} h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n`);
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options())).rejects.toThrow(/checksum mismatch.*go\.sum has/);
  });

  it('refuses when the checksum database cannot be reached, unless GONOSUMDB names the module (then it warns)', async () => {
    serve();
    routes.delete('/proxy/sumdb/sum.example.org/supported');
    // The database's own URL: a port nothing listens on.
    const unreachable = `${key.verifier} http://127.0.0.1:9`;
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options({ GOSUMDB: unreachable }))).rejects.toThrow(
      /cannot verify its checksum: checksum database sum\.example\.org: .*nothing was written/,
    );
    expect(await cached()).toBeUndefined();
    const fetched = await fetchGoModule(
      `${MODULE}@${VERSION}`,
      options({ GOSUMDB: unreachable, GONOSUMDB: 'example.com/*' }),
    );
    expect(fetched.verification).toBe('unverified');
    expect(warnings.join('\n')).toMatch(/its checksum was not verified \(GONOSUMDB\/GOPRIVATE\)/);
  });

  it("follows GOPROXY's list: past a 404 after ',', past any error after '|', and stops at off or direct", async () => {
    serve();
    routes.set('/broken/example.com/!acme/ops/@v/v1.2.0.info', 500);
    const other = `${server.url}/nothing-here`;
    expect(
      (await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${other},${server.url}/proxy` }))).hash,
    ).toBe(expectedHash(FILES));
    await rm(cacheDir, { recursive: true });
    await expect(
      fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${server.url}/broken,${server.url}/proxy` })),
    ).rejects.toThrow(/broken\/example\.com\/!acme\/ops\/@v\/v1\.2\.0\.info: HTTP 500/);
    expect(
      (await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${server.url}/broken|${server.url}/proxy` })))
        .verification,
    ).toBe('checksum database');
    await rm(cacheDir, { recursive: true });
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: 'off' }))).rejects.toThrow(/GOPROXY=off/);
    await expect(fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${other},direct` }))).rejects.toThrow(
      /not found on the module proxies of GOPROXY \(.*nothing-here.*HTTP 404.*kop does not fetch from version control/,
    );
  });

  it('resolves @latest (or no version) to the highest release of @v/list that its go.mod does not retract', async () => {
    serve();
    expect((await fetchGoModule(MODULE, options())).version).toBe(VERSION);
    expect((await fetchGoModule(`${MODULE}@latest`, options())).version).toBe(VERSION);
    // v1.3.0 is out, but retracts itself.
    routes.set(`/proxy/${ESCAPED}/@v/list`, `v1.0.0\n${VERSION}\nv1.3.0\n`);
    routes.set(`/proxy/${ESCAPED}/@v/v1.3.0.mod`, `module ${MODULE}\n\nretract v1.3.0 // published by mistake\n`);
    expect(await resolveGoModuleVersion(`${MODULE}@latest`, { env: options().env })).toEqual({
      path: MODULE,
      version: VERSION,
    });
    expect(server.requests.some((r) => r.endsWith('/@latest'))).toBe(false);
  });

  it('sends GONOPROXY (GOPRIVATE) modules to version control, which kop refuses, unless GONOPROXY=none', async () => {
    serve();
    for (const env of [{ GOPRIVATE: 'example.com/*' }, { GOPRIVATE: 'example.com/*', GONOPROXY: '' }])
      await expect(fetchGoModule(`${MODULE}@${VERSION}`, options(env))).rejects.toThrow(
        /^example\.com\/Acme\/ops: GONOPROXY \(from GOPRIVATE\) says the go command fetches it from version control \("direct"\)/,
      );
    await expect(fetchGoModule(`${MODULE}@latest`, options({ GONOPROXY: 'example.com' }))).rejects.toMatchObject({
      hint: expect.stringContaining('set GONOPROXY=none') as unknown,
    });
    expect(server.requests).toEqual([]);

    // A corporate proxy serving the private module: GONOPROXY=none; GOPRIVATE still keeps it from the checksum database.
    const fetched = await fetchGoModule(
      `${MODULE}@${VERSION}`,
      options({ GOPRIVATE: 'example.com/*', GONOPROXY: 'none' }),
    );
    expect(fetched.verification).toBe('unverified');
    expect(server.requests.some((r) => r.includes('/sumdb/'))).toBe(false);
    expect(warnings).toEqual([
      `${MODULE}@${VERSION}: its checksum was not verified (GONOSUMDB/GOPRIVATE); its hash is ${expectedHash(FILES)}`,
    ]);
    // ...unless the project's go.sum has its line.
    await rm(cacheDir, { recursive: true });
    await writeFile(path.join(dir, 'go.sum'), `${MODULE} ${VERSION} ${expectedHash(FILES)}\n`);
    expect(
      (await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPRIVATE: 'example.com/*', GONOPROXY: 'none' })))
        .verification,
    ).toBe('go.sum');
  });

  it('skips the checksum database for GOSUMDB=off, but not for GOINSECURE (which only concerns version control)', async () => {
    serve();
    expect((await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOSUMDB: 'off' }))).verification).toBe('unverified');
    expect(warnings.join('\n')).toMatch(/its checksum was not verified \(GOSUMDB=off\)/);
    await rm(cacheDir, { recursive: true });
    expect((await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOINSECURE: 'example.com/*' }))).verification).toBe(
      'checksum database',
    );
    // An empty GOSUMDB is Go's default, not an error.
    expect(readGoEnv({ GOENV: 'off', GOSUMDB: '', GOPROXY: '' })).toMatchObject({
      GOSUMDB: 'sum.golang.org',
      GOPROXY: 'https://proxy.golang.org,direct',
    });
  });

  it("asks the checksum database through GOPROXY's list: past a 404 after ',', past any error after '|'", async () => {
    serve();
    // A proxy that serves the module but fails on the database.
    for (const [route, body] of [...routes])
      if (route.startsWith('/proxy/') && !route.includes('/sumdb/'))
        routes.set(route.replace('/proxy/', '/flaky/'), body);
    routes.set('/flaky/sumdb/sum.example.org/supported', 503);
    await expect(
      fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${server.url}/flaky,${server.url}/proxy` })),
    ).rejects.toThrow(
      /cannot verify its checksum: checksum database sum\.example\.org: HTTP 503 \(.*\/flaky\/sumdb\/sum\.example\.org\/supported/,
    );
    expect(
      (await fetchGoModule(`${MODULE}@${VERSION}`, options({ GOPROXY: `${server.url}/flaky|${server.url}/proxy` })))
        .sumDb,
    ).toBe('sum.example.org');
    expect(server.requests).toContain('/proxy/sumdb/sum.example.org/tile/8/0/001.p/44');
  });

  it('fetches anew when the cached zip was damaged', async () => {
    serve();
    await fetchGoModule(`${MODULE}@${VERSION}`, options());
    const zipFile = path.join(cacheDir, ESCAPED, '@v', `${VERSION}.zip`);
    await writeFile(zipFile, makeZip([{ name: `${PREFIX}go.mod`, data: 'module evil\n' }]));
    const again = await fetchGoModule(`${MODULE}@${VERSION}`, options());
    expect(again).toMatchObject({ fromCache: false, hash: expectedHash(FILES) });
  });

  it("finds the kind's CRD outside testdata/ and Helm templates, and names what it searched when there is none", async () => {
    serve();
    const fetched = await fetchGoModule(`${MODULE}@${VERSION}`, options());
    const found = findModuleCrd(fetched, { group: 'ops.example.com', kind: 'Widget' });
    expect(found.file).toBe('config/crd/bases/ops.example.com_widgets.yaml');
    expect(() => findModuleCrd(fetched, { group: 'ops.example.com', kind: 'Gadget' })).toThrow(
      'example.com/Acme/ops@v1.2.0: no CustomResourceDefinition of Gadget in group ops.example.com among its 2 .yaml, .yml and .json files (outside testdata/ and vendor/); 1 that mention CustomResourceDefinition are not plain YAML (Helm templates?) and were passed over; its CRDs are Widget ops.example.com; nothing was written',
    );
  });

  it('escapes upper case and matches GOPRIVATE-style globs by leading path elements', () => {
    expect(escapeModulePath('github.com/Azure/azure-sdk')).toBe('github.com/!azure/azure-sdk');
    expect(matchesGlobList('example.com/*', MODULE)).toBe(true);
    expect(matchesGlobList('*.corp,example.com/Acme', MODULE)).toBe(true);
    expect(matchesGlobList('example.com/other', MODULE)).toBe(false);
  });

  it('create api imports the kind from the module, records it at the version @latest resolved to and copies the CRD to test/crds/', async () => {
    serve();
    await runInit(
      { projectName: 'demo', domain: 'example.com', kopSource: 'file:../kop', skipInstall: true },
      testContext({ cwd: dir }),
    );
    vi.stubEnv('GOENV', 'off');
    vi.stubEnv('GOPROXY', `${server.url}/proxy`);
    vi.stubEnv('GOSUMDB', key.verifier);
    vi.stubEnv('XDG_CACHE_HOME', path.join(dir, '..', 'xdg'));
    const context = testContext({ cwd: dir });
    await runCreateApi(
      {
        group: 'ops',
        version: 'v1',
        kind: 'Widget',
        resource: false,
        controller: true,
        externalApiDomain: 'example.com',
        externalApiPath: 'example.com/Acme/ops/api/v1',
        externalApiModule: `${MODULE}@latest`,
      },
      context,
    );
    expect(await readFile(path.join(dir, 'api/ops/v1/widget.types.ts'), 'utf8')).toContain('size?: int;');
    const entry = parseProjectFile(await readFile(path.join(dir, 'PROJECT'), 'utf8')).resources.find(
      (r) => r.kind === 'Widget',
    );
    // As resolved, so that a re-run (alpha generate, upgrade) imports the same CRD.
    expect(entry).toMatchObject({ external: true, module: `${MODULE}@${VERSION}`, domain: 'example.com' });
    expect(context.out.lines.join('\n')).toContain(
      `${MODULE}@latest resolves to ${MODULE}@${VERSION}, which PROJECT records`,
    );
    // A copy for the tests' control plane, which installs other projects' CRDs from test/crds/.
    expect(await readFile(path.join(dir, 'test/crds/ops.example.com_widgets.yaml'), 'utf8')).toContain('kind: Widget');

    // A webhook of the kind, from the same module: not imported again; its CRD requires spec, so the tests' object has one.
    await runCreateWebhook(
      {
        group: 'ops',
        version: 'v1',
        kind: 'Widget',
        defaulting: true,
        externalApiDomain: 'example.com',
        externalApiPath: 'example.com/Acme/ops/api/v1',
        externalApiModule: `${MODULE}@${VERSION}`,
      },
      testContext({ cwd: dir }),
    );
    // The test's object comes from the kind's fixture, valid<Kind>(), which fills in the required spec.
    expect(await readFile(path.join(dir, 'test/webhooks/ops/v1/widget.defaulter.test.ts'), 'utf8')).toContain(
      'validWidget(environment().namespace)',
    );
    expect(await readFile(path.join(dir, 'test/fixtures/ops/v1/widget.ts'), 'utf8')).toMatch(/^\s*spec: {},$/m);
  });
});
