/**
 * One model of a resource for the commands that work on a kind (create api, create webhook, and
 * alpha generate/update through {@link originOf}): its names and where it comes from, decided
 * here and nowhere else (Kubebuilder's `resource.Resource` with its `External`/`Core` flags and `Path`).
 */
import { UsageError } from '../base/index.js';
import { findBuiltinKind } from './builtin-kinds.js';
import { fullGroup, type ProjectFile, type ProjectResource } from './project-file.js';
import { originOf, type ResourceOrigin, type ResourceOriginType } from './resource-origin.js';

export { originOf, type ResourceOrigin, type ResourceOriginType };

/** A kind/version of the project (or one it is about to record), resolved once per command. */
export interface Resource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  domain: string;
  /** The API group: `<group>.<domain>`, `""` for the core group. */
  fullGroup: string;
  origin: ResourceOrigin;
  /** Its PROJECT entry: the recorded one, or a new one for a built-in kind seen for the first time. */
  entry: ProjectResource;
  /** False when `entry` is not in PROJECT yet: the command that records something adds it. */
  recorded: boolean;
  /** Every PROJECT entry of the same kind and group (its versions), `entry` among them once recorded. */
  versions: ProjectResource[];
}

/** The model of a recorded PROJECT entry. */
export function resourceOf(entry: ProjectResource, project: ProjectFile, recorded = true): Resource {
  const group = fullGroup(entry);
  return {
    group: entry.group,
    version: entry.version,
    kind: entry.kind,
    plural: entry.plural,
    domain: entry.domain,
    fullGroup: group,
    origin: originOf(entry),
    entry,
    recorded,
    versions: project.resources.filter(
      (r) => r.kind === entry.kind && fullGroup(r) === group && originOf(r).type === originOf(entry).type,
    ),
  };
}

/** A kind as the command line names it: `--group` (without the domain), `--version`, `--kind`. */
export interface KindQuery {
  group: string;
  version: string;
  kind: string;
  /**
   * `--external-api-domain`: the kind is another project's, of group `<group>.<domain>`; without
   * it an external kind is found by `--group` as its group or its full group.
   */
  externalDomain?: string;
  /** Only another project's kind will do (an --external-api-* flag was given): own kinds are not looked at. */
  externalOnly?: boolean;
}

/** What {@link resolveResource} found: the kind's origin, the requested version and the kind's versions. */
export interface ResolvedKind {
  type: ResourceOriginType;
  /** The requested version; undefined when the kind has other versions only. */
  resource: Resource | undefined;
  versions: ProjectResource[];
}

/**
 * Finds the kind a command names, in this order:
 * 1. one of this project's own kinds (`<group>.<domain>` of PROJECT), unless `externalOnly`;
 * 2. another project's kind PROJECT records (imported or of a package), by its full group
 *    (`--group` plus `--external-api-domain`, or `--group` itself) or its group;
 * 3. a built-in kind kop/runtime has a descriptor for (`--group core|apps|batch|...`), recorded or not.
 *
 * For 1 and 2, `resource` is the requested version, undefined when the kind has other versions
 * only (`versions` lists them). Undefined when the kind is none of these. Several external kinds
 * the query could mean are a usage error that names the domains.
 */
export function resolveResource(project: ProjectFile, query: KindQuery): ResolvedKind | undefined {
  const { group, version, kind } = query;
  const pick = (type: ResourceOriginType, versions: ProjectResource[]): ResolvedKind => {
    const entry = versions.find((r) => r.version === version);
    return { type, resource: entry && { ...resourceOf(entry, project), versions }, versions };
  };

  if (query.externalOnly !== true) {
    const ownGroup = fullGroup({ group, domain: project.domain });
    const own = project.resources.filter(
      (r) => originOf(r).type === 'own' && r.kind === kind && fullGroup(r) === ownGroup,
    );
    if (own.length > 0) return pick('own', own);
  }

  const wanted = query.externalDomain !== undefined ? `${group}.${query.externalDomain}` : undefined;
  const externals = project.resources.filter((r) => {
    const type = originOf(r).type;
    if ((type !== 'imported' && type !== 'package') || r.kind !== kind) return false;
    return wanted !== undefined ? fullGroup(r) === wanted : r.group === group || fullGroup(r) === group;
  });
  const groups = [...new Set(externals.map((r) => fullGroup(r)))];
  if (groups.length > 1) {
    throw new UsageError(
      `${kind} of group ${group} could be any of the external kinds ${groups.map((g) => `${kind} ${g}`).join(', ')}`,
      `name the group's domain: --external-api-domain ${groups.map((g) => g.slice(group.length + 1)).join(' or ')}`,
    );
  }
  if (externals.length > 0) return pick(originOf(externals[0]!).type, externals);

  const builtin = findBuiltinKind(group, version, kind);
  if (builtin === undefined) return undefined;
  const recorded = project.resources.find(
    (r) => r.core === true && r.kind === kind && r.version === version && r.group === builtin.project.group,
  );
  // kop's key order (group, version, kind, plural, domain), then Kubebuilder's core flag and path.
  const entry: ProjectResource = recorded ?? {
    group: builtin.project.group,
    version,
    kind,
    plural: builtin.type.resource,
    domain: builtin.project.domain,
    core: true,
    path: builtin.project.path,
  };
  const resource: Resource = {
    ...resourceOf(entry, project, recorded !== undefined),
    // The API group as the apiserver serves it (`""` for core, `events.k8s.io`).
    fullGroup: builtin.type.group,
    origin: { type: 'builtin', path: entry.path, builtin },
    versions: [entry],
  };
  return { type: 'builtin', resource, versions: [entry] };
}
