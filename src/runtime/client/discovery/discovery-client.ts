import type { CallOptions, RestClient } from '../rest/rest-client.js';
import type { ResourceType } from '../resource/options.js';

/** The apiserver's /version answer. */
export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  buildDate?: string;
  goVersion?: string;
  platform?: string;
}

/** An API group and its versions, preferred version first. */
export interface DiscoveredGroup {
  /** '' for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** A resource served at one group/version, as discovery reports it. */
export interface DiscoveredResource extends ResourceType {
  singular?: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /** Subresource names, e.g. `status`, `scale`. */
  subresources: string[];
}

/** Everything discovery knows, from one pass over the server. */
export interface DiscoverySnapshot {
  groups: DiscoveredGroup[];
  resources: DiscoveredResource[];
}

const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      resources?: {
        resource: string;
        responseKind?: { kind?: string };
        scope?: 'Namespaced' | 'Cluster';
        singularResource?: string;
        verbs?: string[];
        shortNames?: string[];
        categories?: string[];
        subresources?: { subresource: string }[];
      }[];
    }[];
  }[];
}

interface LegacyGroupList {
  kind?: string;
  groups?: { name: string; versions: { version: string }[]; preferredVersion?: { version: string } }[];
  versions?: string[];
}

interface LegacyResourceList {
  resources: {
    name: string;
    singularName?: string;
    namespaced: boolean;
    kind: string;
    verbs?: string[];
    shortNames?: string[];
    categories?: string[];
  }[];
}

/**
 * Asks the apiserver what it serves: version, groups, and resources with their scope and verbs.
 * Uses aggregated discovery (two requests for everything) and falls back to per-group-version
 * discovery on servers that do not offer it.
 */
export class DiscoveryClient {
  constructor(readonly rest: RestClient) {}

  /** The server's version (GET /version). */
  serverVersion(options: CallOptions = {}): Promise<ServerVersion> {
    return this.rest.get<ServerVersion>('/version', undefined, options);
  }

  /** Every group with its versions. */
  async serverGroups(options: CallOptions = {}): Promise<DiscoveredGroup[]> {
    return (await this.discover(options)).groups;
  }

  /** Every resource of every served group/version (subresources listed on their parent). */
  async serverResources(options: CallOptions = {}): Promise<DiscoveredResource[]> {
    return (await this.discover(options)).resources;
  }

  /** The resources of one group/version (GET /api/v1 or /apis/<group>/<version>). */
  async serverResourcesForGroupVersion(
    group: string,
    version: string,
    options: CallOptions = {},
  ): Promise<DiscoveredResource[]> {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const list = await this.rest.get<LegacyResourceList>(path, undefined, options);
    return fromLegacyResources(group, version, list);
  }

  /** Groups and resources in one snapshot. */
  async discover(options: CallOptions = {}): Promise<DiscoverySnapshot> {
    const [core, named] = await Promise.all([
      this.rest.request<AggregatedList & LegacyGroupList>({
        method: 'GET',
        path: '/api',
        accept: AGGREGATED_ACCEPT,
        ...options,
      }),
      this.rest.request<AggregatedList & LegacyGroupList>({
        method: 'GET',
        path: '/apis',
        accept: AGGREGATED_ACCEPT,
        ...options,
      }),
    ]);
    if (core.kind === 'APIGroupDiscoveryList' && named.kind === 'APIGroupDiscoveryList') {
      return fromAggregated([...(core.items ?? []), ...(named.items ?? [])]);
    }
    return this.discoverLegacy(core, named, options);
  }

  private async discoverLegacy(
    core: LegacyGroupList,
    named: LegacyGroupList,
    options: CallOptions,
  ): Promise<DiscoverySnapshot> {
    const groups: DiscoveredGroup[] = [];
    const coreVersions = core.versions ?? ['v1'];
    groups.push({ name: '', versions: coreVersions, preferredVersion: coreVersions[0] ?? 'v1' });
    for (const g of named.groups ?? []) {
      const preferred = g.preferredVersion?.version ?? g.versions[0]?.version ?? '';
      const versions = [preferred, ...g.versions.map((v) => v.version).filter((v) => v !== preferred)];
      groups.push({ name: g.name, versions, preferredVersion: preferred });
    }
    const lists = await Promise.all(
      groups.flatMap((g) => g.versions.map((v) => this.serverResourcesForGroupVersion(g.name, v, options))),
    );
    return { groups, resources: lists.flat() };
  }
}

function fromAggregated(items: NonNullable<AggregatedList['items']>): DiscoverySnapshot {
  const groups: DiscoveredGroup[] = [];
  const resources: DiscoveredResource[] = [];
  for (const item of items) {
    const name = item.metadata?.name ?? '';
    const versions = (item.versions ?? []).map((v) => v.version);
    groups.push({ name, versions, preferredVersion: versions[0] ?? '' });
    for (const v of item.versions ?? []) {
      for (const r of v.resources ?? []) {
        resources.push({
          group: name,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? '',
          namespaced: r.scope === 'Namespaced',
          singular: r.singularResource,
          verbs: r.verbs ?? [],
          shortNames: r.shortNames ?? [],
          categories: r.categories ?? [],
          subresources: (r.subresources ?? []).map((s) => s.subresource),
        });
      }
    }
  }
  return { groups, resources };
}

function fromLegacyResources(group: string, version: string, list: LegacyResourceList): DiscoveredResource[] {
  const byName = new Map<string, DiscoveredResource>();
  const subs: [string, string][] = [];
  for (const r of list.resources) {
    const slash = r.name.indexOf('/');
    if (slash >= 0) {
      subs.push([r.name.slice(0, slash), r.name.slice(slash + 1)]);
      continue;
    }
    byName.set(r.name, {
      group,
      version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      singular: r.singularName || undefined,
      verbs: r.verbs ?? [],
      shortNames: r.shortNames ?? [],
      categories: r.categories ?? [],
      subresources: [],
    });
  }
  for (const [parent, sub] of subs) byName.get(parent)?.subresources.push(sub);
  return [...byName.values()];
}
