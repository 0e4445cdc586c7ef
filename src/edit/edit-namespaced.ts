/**
 * `kop edit --namespaced[=false]`: switches a project between a manager that watches the whole
 * cluster (ClusterRole) and one that watches only WATCH_NAMESPACE (Role), the way `kop init` and
 * `kop init --namespaced` scaffold them. The files that differ between those two scaffolds are
 * exactly the ones changed: each user-owned one by a three-way merge (kop's rendering without
 * the flag as the base, the user's file as ours, kop's rendering with it as theirs), so the
 * user's edits stay; the generated RBAC role is rebuilt from the source markers, as `kop generate` does.
 */
import type { Context } from '../base/index.js';
import { INIT_TEMPLATES, initTemplateData } from '../init/index.js';
import { CREATE_API_PATHS, withShardingExampleOf, type ProjectFile } from '../project/index.js';
import { buildRoles, formatRoles, parseRbacMarkers, RBAC_SCAN_PREFIX } from '../rbac/index.js';
import { mergeLines, renderTemplateDir, type VirtualTree } from '../scaffold/index.js';
import { collectCommentMarkers } from '../markers/index.js';
import type { Obstacles } from './edit-multigroup.js';

/** The manager's Deployment, whose container sets WATCH_NAMESPACE in a namespaced project. */
const MANAGER_FILE = 'config/manager/manager.yaml';

/** The generated RBAC role: rebuilt, never merged. */
const ROLE_FILE = 'config/rbac/role.yaml';

/**
 * Stages the switch to `namespaced` and records it in `project`. A file whose merge conflicts (the
 * user changed the lines the switch changes) is an obstacle; with `force` it gets kop's rendering
 * instead, and `rewire` puts the project's lines back at its markers.
 */
export async function stageNamespacedEdit(
  tree: VirtualTree,
  project: ProjectFile,
  namespaced: boolean,
  force: boolean,
  obstacles: Obstacles,
  context: Pick<Context, 'now'>,
): Promise<{ notes: string[]; replaced: string[] }> {
  const notes: string[] = [];
  const replaced: string[] = [];
  const answers = {
    domain: project.domain,
    projectName: project.projectName,
    // Only the header lines depend on these; a three-way merge keeps the project's own.
    owner: 'the project authors',
    license: 'apache2' as const,
    multigroup: project.multigroup === true,
    kopSource: project.kopSource ?? 'kop',
  };
  const render = async (flag: boolean) =>
    new Map(
      (await renderTemplateDir(INIT_TEMPLATES, initTemplateData({ ...answers, namespaced: flag }, context))).map(
        (file) => [file.path, file],
      ),
    );
  const base = await render(!namespaced);
  const theirs = await render(namespaced);
  for (const [file, wanted] of theirs) {
    const old = base.get(file);
    if (old === undefined || old.content === wanted.content || file === ROLE_FILE) continue;
    const ours = await tree.read(file);
    if (ours === undefined) {
      notes.push(`${file} is not there (removed?): left out`);
      continue;
    }
    // create api has named a kind in main.ts's sharding example: kop's own line, not the user's edit.
    const [baseText, theirText] =
      file === CREATE_API_PATHS.main
        ? [withShardingExampleOf(ours, old.content), withShardingExampleOf(ours, wanted.content)]
        : [old.content, wanted.content];
    const merge = mergeLines(baseText, ours, theirText, { ours: 'yours', theirs: 'kop' });
    if (merge.conflicts === 0) {
      if (merge.text !== ours) tree.write(file, merge.text, { kind: 'inserted' });
      continue;
    }
    // The manager's env list may hold other variables (deploy-image's images) right where the
    // scaffold's WATCH_NAMESPACE goes: then the variable is added to or taken out of the list.
    const switched =
      file === MANAGER_FILE
        ? switchWatchNamespace(ours, namespaced ? wanted.content : old.content, namespaced)
        : undefined;
    if (switched !== undefined) {
      if (switched !== ours) tree.write(file, switched, { kind: 'inserted' });
      continue;
    }
    obstacles.push(
      `${file}: your edits overlap the lines --namespaced=${namespaced} changes (${merge.conflicts} conflicting block(s))`,
    );
    if (force) {
      tree.write(file, wanted.content, { kind: 'inserted' });
      replaced.push(file);
    }
  }
  if (await tree.exists(ROLE_FILE))
    tree.write(ROLE_FILE, await managerRoles(tree.root, namespaced), { kind: 'generated' });
  project.namespaced = namespaced;
  notes.push(
    namespaced
      ? 'the manager now watches only WATCH_NAMESPACE, with a Role'
      : 'the manager now watches every namespace, with a ClusterRole',
  );
  return { notes, replaced };
}

/** config/rbac/role.yaml as `kop generate` writes it for the project's markers. */
async function managerRoles(root: string, namespaced: boolean): Promise<string> {
  const found = await collectCommentMarkers(root, [RBAC_SCAN_PREFIX]);
  let roles = buildRoles(parseRbacMarkers(found.get(RBAC_SCAN_PREFIX)!));
  if (namespaced)
    roles = roles.map((role) =>
      role.kind === 'ClusterRole'
        ? { ...role, kind: 'Role', metadata: { ...role.metadata, namespace: 'system' } }
        : role,
    );
  return formatRoles(roles);
}

/**
 * Adds the scaffold's WATCH_NAMESPACE variable (the lines of `namespacedManager`, kop's namespaced
 * rendering of config/manager/manager.yaml) at the top of the manager's `env:` list in `text`, or
 * takes exactly those lines out (and `env:` with them when nothing else is left in it). Undefined
 * when `text` has no such place: the user's file is too far from kop's to edit safely.
 */
export function switchWatchNamespace(text: string, namespacedManager: string, namespaced: boolean): string | undefined {
  const scaffold = namespacedManager.split('\n');
  const first = scaffold.findIndex((line) => /^\s*- name: WATCH_NAMESPACE\s*$/.test(line));
  if (first < 1 || !/^\s*env:\s*$/.test(scaffold[first - 1]!)) return undefined;
  const envLine = scaffold[first - 1]!;
  const itemIndent = /^\s*/.exec(scaffold[first]!)![0];
  let end = first + 1;
  while (end < scaffold.length && /^\s*/.exec(scaffold[end]!)![0].length > itemIndent.length) end++;
  const block = scaffold.slice(first, end);
  const lines = text.split('\n');
  const at = lines.findIndex((_, i) => block.every((line, j) => lines[i + j] === line));
  if (namespaced) {
    if (at !== -1) return text;
    const env = lines.indexOf(envLine);
    if (env === -1) return undefined;
    return [...lines.slice(0, env + 1), ...block, ...lines.slice(env + 1)].join('\n');
  }
  if (at === -1) return lines.some((line) => line.includes('WATCH_NAMESPACE')) ? undefined : text;
  const rest = [...lines.slice(0, at), ...lines.slice(at + block.length)];
  // `env:` with nothing left under it goes too (a comment, such as a kop marker, keeps it).
  const env = at - 1;
  if (rest[env] === envLine && !(rest[env + 1] ?? '').startsWith(`${itemIndent}`)) rest.splice(env, 1);
  return rest.join('\n');
}
