/**
 * `kop create api --external-api-module=github.com/cert-manager/cert-manager@v1.20.2`, as
 * Kubebuilder's testdata script writes it, against the real module proxy and checksum database
 * (GOPROXY and GOSUMDB as the machine has them): the module is downloaded into an empty cache,
 * its hash is the one go.sum files record for it, and Certificate is imported from deploy/crds/.
 * Skipped with a message when the module proxy cannot be reached, outside CI.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCreateApi } from '../../../src/create-api/run-create-api.js';
import { fetchGoModule } from '../../../src/import/go-module/fetch-go-module.js';
import { runInit } from '../../../src/init/run-init.js';
import { parseProjectFile } from '../../../src/project/project-file.js';
import { tempDir, testContext } from '../../helpers/fake-context.js';
import { reachableOrCi } from './online.js';

const MODULE = 'github.com/cert-manager/cert-manager@v1.20.2';
const online = await reachableOrCi('https://proxy.golang.org/');

describe.skipIf(!online)('cert-manager from the Go module proxy', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir('demo'));
    vi.stubEnv('XDG_CACHE_HOME', path.join(dir, '..', 'cache'));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await cleanup();
  });

  it('create api imports Certificate from the module, verified, then reads it from the cache', async () => {
    await runInit(
      { projectName: 'demo', domain: 'testproject.org', kopSource: 'file:../kop', skipInstall: true },
      testContext({ cwd: dir }),
    );
    const context = testContext({ cwd: dir });
    await runCreateApi(
      {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Certificate',
        resource: false,
        controller: true,
        externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        externalApiDomain: 'io',
        externalApiModule: MODULE,
      },
      context,
    );
    expect(context.out.lines.join('\n')).toMatch(
      /github\.com\/cert-manager\/cert-manager@v1\.20\.2 \(downloaded, verified by .*\): Certificate from deploy\/crds\/cert-manager\.io_certificates\.yaml/,
    );
    const types = await readFile(path.join(dir, 'api/cert-manager/v1/certificate.types.ts'), 'utf8');
    expect(types).toContain('export interface Certificate {');
    expect(types).toContain('secretName: string;');
    const entry = parseProjectFile(await readFile(path.join(dir, 'PROJECT'), 'utf8')).resources.find(
      (r) => r.kind === 'Certificate',
    );
    expect(entry).toMatchObject({ external: true, module: MODULE, group: 'cert-manager', domain: 'io' });

    const cached = await fetchGoModule(MODULE, { cwd: dir, warn: () => {} });
    expect(cached.fromCache).toBe(true);
    // The hash go.sum files carry for this version.
    expect(cached.hash).toBe('h1:CimnY00nLqB2lmxhoSuEC4GDMFDK7JCXqyjwMM9ndIQ=');
  }, 180_000);
});
