import type { DiscoveredResource, DiscoveryClient } from './discovery-client.js';
import type { CallOptions } from '../rest/rest-client.js';

/** No served resource matches a group/kind (or group/resource). */
export class NoMatchError extends Error {
  constructor(what: string) {
    super(`no resource of the server matches ${what}; is the CRD installed and established?`);
    this.name = 'NoMatchError';
  }
}

/** A group and kind, optionally pinned to one version (otherwise the preferred one). */
export interface GroupKind {
  group: string;
  kind: string;
  version?: string;
}

/** A group and plural resource name, optionally pinned to one version. */
export interface GroupResource {
  group: string;
  resource: string;
  version?: string;
}

/**
 * Maps group/kind to resource name and scope, from a cached discovery snapshot. A miss refreshes
 * the cache once (a CRD may have been installed since), so new kinds are found without a restart.
 */
export class RestMapper {
  private snapshot: Promise<{ resources: DiscoveredResource[]; preferred: Map<string, string> }> | undefined;

  constructor(private readonly discovery: DiscoveryClient) {}

  /** The resource serving a kind; throws NoMatchError when none does even after a refresh. */
  async mapping(gk: GroupKind, options: CallOptions = {}): Promise<DiscoveredResource> {
    const what = `kind ${gk.kind} in group "${gk.group}"${gk.version ? ` version ${gk.version}` : ''}`;
    return this.find((r) => r.group === gk.group && r.kind === gk.kind, gk.group, gk.version, what, options);
  }

  /** The resource with a plural name (or singular or short name). */
  async resourceFor(gr: GroupResource, options: CallOptions = {}): Promise<DiscoveredResource> {
    const what = `resource ${gr.resource} in group "${gr.group}"${gr.version ? ` version ${gr.version}` : ''}`;
    const name = gr.resource.toLowerCase();
    return this.find(
      (r) => r.group === gr.group && (r.resource === name || r.singular === name || r.shortNames.includes(name)),
      gr.group,
      gr.version,
      what,
      options,
    );
  }

  /** Drops the cache; the next lookup re-runs discovery. */
  reset(): void {
    this.snapshot = undefined;
  }

  private async find(
    match: (r: DiscoveredResource) => boolean,
    group: string,
    version: string | undefined,
    what: string,
    options: CallOptions,
  ): Promise<DiscoveredResource> {
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) this.reset();
      const fresh = !this.snapshot;
      const snap = await this.load(options);
      const candidates = snap.resources.filter(match);
      const wanted = version ?? snap.preferred.get(group);
      const hit = candidates.find((r) => r.version === wanted) ?? (version ? undefined : candidates[0]);
      if (hit) return hit;
      if (fresh) break; // this pass already used a fresh snapshot
    }
    throw new NoMatchError(what);
  }

  private load(options: CallOptions): Promise<{ resources: DiscoveredResource[]; preferred: Map<string, string> }> {
    this.snapshot ??= this.discovery.discover(options).then(
      (s) => ({ resources: s.resources, preferred: new Map(s.groups.map((g) => [g.name, g.preferredVersion])) }),
      (err: unknown) => {
        this.snapshot = undefined;
        throw err;
      },
    );
    return this.snapshot;
  }
}
