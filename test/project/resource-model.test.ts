import { describe, expect, it } from 'vitest';
import { LAYOUT, type ProjectFile, type ProjectResource } from '../../src/project/project-file.js';
import { originOf, resolveResource } from '../../src/project/resource-model.js';

const own: ProjectResource = {
  group: 'cache',
  version: 'v1',
  kind: 'Memcached',
  plural: 'memcacheds',
  domain: 'example.com',
  path: 'api/cache/v1/memcached.types.ts',
  api: { crdVersion: 'v1', namespaced: true },
};
const ownV2: ProjectResource = { ...own, version: 'v2', path: 'api/cache/v2/memcached.types.ts' };
const imported: ProjectResource = {
  group: 'cert-manager',
  version: 'v1',
  kind: 'Issuer',
  plural: 'issuers',
  domain: 'io',
  path: 'api/cert-manager.io/v1/issuer.types.ts',
  external: true,
};
const fromCrdModule: ProjectResource = { ...imported, kind: 'ClusterIssuer', module: './issuers.yaml' };
const fromPackage: ProjectResource = {
  group: 'acme',
  version: 'v1',
  kind: 'Certificate',
  plural: 'certificates',
  domain: 'example.org',
  path: '@acme/issuer-api/v1',
  module: '@acme/issuer-api@^1.2.0',
  external: true,
};
const builtin: ProjectResource = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  domain: '',
  core: true,
  path: 'k8s.io/api/apps/v1',
  controller: true,
};

function projectOf(resources: ProjectResource[]): ProjectFile {
  return { version: '1', layout: [LAYOUT], domain: 'example.com', projectName: 'demo', resources };
}

describe('originOf: where a recorded kind comes from, from PROJECT keys alone', () => {
  it.each([
    { name: 'own kind', given: own, want: { type: 'own', path: own.path } },
    { name: 'kop import crd', given: imported, want: { type: 'imported', path: imported.path } },
    {
      name: 'CRD module (--external-api-module <crd>)',
      given: fromCrdModule,
      want: { type: 'imported', path: imported.path, module: './issuers.yaml' },
    },
    {
      name: 'npm package module',
      given: fromPackage,
      want: { type: 'package', path: '@acme/issuer-api/v1', module: '@acme/issuer-api@^1.2.0' },
    },
    { name: 'built-in kind', given: builtin, want: { type: 'builtin', path: 'k8s.io/api/apps/v1' } },
  ])('$name', ({ given, want }) => {
    expect(originOf(given)).toEqual(want);
  });
});

describe('resolveResource: one lookup for every command', () => {
  const project = projectOf([own, ownV2, imported, fromCrdModule, fromPackage, builtin]);

  it('finds an own kind by its short group, with its versions', () => {
    const found = resolveResource(project, { group: 'cache', version: 'v2', kind: 'Memcached' });
    expect(found?.type).toBe('own');
    expect(found?.resource?.entry).toBe(ownV2);
    expect(found?.resource?.fullGroup).toBe('cache.example.com');
    expect(found?.versions).toEqual([own, ownV2]);
  });

  it('reports the versions of a kind that lacks the one asked for', () => {
    const found = resolveResource(project, { group: 'cache', version: 'v3', kind: 'Memcached' });
    expect(found?.type).toBe('own');
    expect(found?.resource).toBeUndefined();
    expect(found?.versions.map((r) => r.version)).toEqual(['v1', 'v2']);
  });

  it.each([
    { name: 'by its group', query: { group: 'cert-manager' } },
    { name: 'by its full group', query: { group: 'cert-manager.io' } },
    { name: 'by group and --external-api-domain', query: { group: 'cert-manager', externalDomain: 'io' } },
  ])('finds an imported kind $name', ({ query }) => {
    const found = resolveResource(project, { version: 'v1', kind: 'Issuer', ...query });
    expect(found?.type).toBe('imported');
    expect(found?.resource?.entry).toBe(imported);
  });

  it('finds a kind of an npm package', () => {
    const found = resolveResource(project, { group: 'acme', version: 'v1', kind: 'Certificate' });
    expect(found?.resource?.origin).toEqual({
      type: 'package',
      path: '@acme/issuer-api/v1',
      module: '@acme/issuer-api@^1.2.0',
    });
  });

  it('skips own kinds when only an external one will do', () => {
    const clash = { ...imported, group: 'cache', domain: 'other.io', kind: 'Memcached' };
    const both = projectOf([own, clash]);
    expect(resolveResource(both, { group: 'cache', version: 'v1', kind: 'Memcached' })?.type).toBe('own');
    const external = resolveResource(both, { group: 'cache', version: 'v1', kind: 'Memcached', externalOnly: true });
    expect(external?.resource?.entry).toBe(clash);
  });

  it('refuses a group that could mean several external kinds, naming their domains', () => {
    const twice = projectOf([imported, { ...imported, domain: 'example.org' }]);
    expect(() => resolveResource(twice, { group: 'cert-manager', version: 'v1', kind: 'Issuer' })).toThrow(
      'Issuer of group cert-manager could be any of the external kinds Issuer cert-manager.io, Issuer cert-manager.example.org',
    );
  });

  it('finds a recorded built-in kind with its descriptor', () => {
    const found = resolveResource(project, { group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(found?.type).toBe('builtin');
    expect(found?.resource?.recorded).toBe(true);
    expect(found?.resource?.entry).toBe(builtin);
    expect(found?.resource?.origin.type === 'builtin' && found.resource.origin.builtin?.descriptor).toBe(
      'appsV1DeploymentType',
    );
  });

  it('makes the PROJECT entry of a built-in kind seen for the first time, not yet recorded', () => {
    const found = resolveResource(projectOf([]), { group: 'core', version: 'v1', kind: 'Pod' });
    expect(found?.resource?.recorded).toBe(false);
    expect(found?.resource?.fullGroup).toBe('');
    expect(found?.resource?.entry).toEqual({
      group: 'core',
      version: 'v1',
      kind: 'Pod',
      plural: 'pods',
      domain: '',
      core: true,
      path: 'k8s.io/api/core/v1',
    });
  });

  it('finds nothing for a kind that is none of these', () => {
    expect(resolveResource(project, { group: 'web', version: 'v1', kind: 'Site' })).toBeUndefined();
  });
});
