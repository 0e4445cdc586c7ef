/**
 * `kop edit --multigroup[=false]`: moves a project's reconcilers (and their tests) between the
 * single-group layout (src/controllers/<name>.controller.ts) and Kubebuilder's multigroup one
 * (src/controllers/<group>/<name>.controller.ts), and rewrites what refers to them: relative
 * imports in every TypeScript file of src/ and test/, the reconcilers' lines in src/main.ts and
 * the unnamed reconcilers' controller names (`bar` <-> `foo-bar`). Webhooks live by group in
 * either layout (src/webhooks/<group>/<version>/), so they stay where they are; their imports in
 * src/webhooks/setup.ts and their names (`name=` of the webhook marker) take the layout's prefix.
 */
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { KopError } from '../base/index.js';
import {
  type ProjectFile,
  controllersOf,
  controllerWiringLines,
  CREATE_API_PATHS,
  resourceNamesOf,
  type ControllerNames,
  admissionWebhookName,
  WEBHOOK_PATHS,
  webhookNamePrefix,
  webhookRegistration,
  type WebhookRegistration,
} from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';

/** One reconciler file that changes place. */
interface Move {
  from: string;
  to: string;
}

/** What a layout edit could not do safely: each is refused unless --force. */
export type Obstacles = string[];

/**
 * Stages the move of every reconciler to the layout `multigroup` asks for, and records it in
 * `project`. Problems that a user's edit causes are collected in `obstacles` (nothing is staged
 * for them when `force` is off: the caller refuses the whole edit).
 */
export async function stageMultigroupEdit(
  tree: VirtualTree,
  project: ProjectFile,
  multigroup: boolean,
  force: boolean,
  obstacles: Obstacles,
): Promise<{ notes: string[]; vacated: string[] }> {
  const notes: string[] = [];
  const before = { multigroup: project.multigroup === true };
  const after = { multigroup };
  const pairs: { from: ControllerNames; to: ControllerNames }[] = [];
  for (const resource of project.resources) {
    const old = controllersOf(resource, before);
    const fresh = controllersOf(resource, after);
    old.forEach((controller, index) => pairs.push({ from: controller, to: fresh[index]! }));
  }
  // Flattening needs distinct files and class names: the same kind in two groups cannot share src/controllers/.
  const seen = new Map<string, ControllerNames>();
  for (const { to } of pairs) {
    const file = CREATE_API_PATHS.namedControllerFile(to);
    const other = seen.get(file) ?? [...seen.values()].find((c) => c.localName === to.localName || c.name === to.name);
    if (other) {
      throw new KopError(
        `--multigroup=false: two reconcilers would share ${seen.has(file) ? file : other.localName === to.localName ? `the class name ${to.localName}` : `the controller name ${to.name}`} in the single-group layout; kop edit wrote nothing`,
        'keep the project multigroup, or give one of them another --controller-name first',
      );
    }
    seen.set(file, to);
  }

  const moves: Move[] = [];
  for (const { from, to } of pairs) {
    for (const file of [CREATE_API_PATHS.namedControllerFile, CREATE_API_PATHS.namedControllerTestFile]) {
      const move = { from: file(from), to: file(to) };
      if (move.from === move.to) continue;
      if (!(await tree.exists(move.from))) {
        notes.push(`${move.from} is not there (removed?): nothing to move`);
        continue;
      }
      if (await tree.exists(move.to)) {
        obstacles.push(`${move.to} already exists, so ${move.from} cannot move there`);
        if (!force) continue;
      }
      moves.push(move);
    }
  }
  const moved = new Map(moves.map((m) => [m.from, m.to]));

  // Every TypeScript file of src/ and test/ may import a moved file, and a moved file's own relative imports change with its folder.
  for (const file of await typeScriptFiles(tree, ['src', 'test'])) {
    const text = await tree.read(file);
    if (text === undefined) continue;
    const destination = moved.get(file) ?? file;
    let rewritten = rewriteRelativeImports(text, file, destination, moved);
    if (destination !== file) {
      const pair = pairs.find((p) => CREATE_API_PATHS.namedControllerFile(p.from) === file);
      if (pair && pair.from.name !== pair.to.name) {
        const oldCall = `.controller('${pair.from.name}')`;
        if (rewritten.includes(oldCall)) rewritten = rewritten.replace(oldCall, `.controller('${pair.to.name}')`);
        else
          obstacles.push(
            `${file}: no \`${oldCall}\` to rename to \`.controller('${pair.to.name}')\` (Kubebuilder's ${multigroup ? 'multigroup' : 'single-group'} controller name); rename it by hand after --force`,
          );
      }
      tree.remove(file);
      tree.write(destination, rewritten, { kind: 'inserted' });
    } else if (rewritten !== text) {
      tree.write(file, rewritten, { kind: 'inserted' });
    }
  }

  // main.ts: kop's two lines per reconciler become the new layout's (import path above, class alias here).
  const main = await tree.read(CREATE_API_PATHS.main);
  if (main !== undefined) {
    let text = main;
    for (const { from, to } of pairs) {
      if (!moved.has(CREATE_API_PATHS.namedControllerFile(from))) continue;
      const oldLines = controllerWiringLines(from).map((line) =>
        rewriteRelativeImports(line.code, CREATE_API_PATHS.main, CREATE_API_PATHS.main, moved),
      );
      const newLines = controllerWiringLines(to).map((line) => line.code);
      oldLines.forEach((line, index) => {
        if (line === newLines[index]) return;
        if (text.includes(line)) text = text.replace(line, newLines[index]!);
        else
          obstacles.push(
            `${CREATE_API_PATHS.main}: the line \`${newLines[index]}\` replaces \`${line}\`, which is not there as kop wrote it`,
          );
      });
    }
    if (text !== main) tree.write(CREATE_API_PATHS.main, text, { kind: 'inserted' });
  }
  await renameWebhooks(tree, project, before, after, obstacles);
  if (multigroup) project.multigroup = true;
  else delete project.multigroup;
  notes.push(
    moves.length > 0
      ? `moved ${moves.length} reconciler file(s) to the ${multigroup ? 'multigroup' : 'single-group'} layout`
      : `no reconciler files to move`,
  );
  // The group folders the move leaves empty, for the caller to remove once the files are written.
  const vacated = [...new Set(moves.map((m) => path.posix.dirname(m.from)))].filter(
    (dir) => !/^(src|test)\/controllers$/.test(dir),
  );
  return { notes, vacated };
}

/**
 * The webhooks' lines in src/webhooks/setup.ts and the names in their markers, from the old
 * layout's prefix to the new one's; a line not there as kop wrote it is an obstacle.
 */
async function renameWebhooks(
  tree: VirtualTree,
  project: ProjectFile,
  before: { multigroup: boolean },
  after: { multigroup: boolean },
  obstacles: Obstacles,
): Promise<void> {
  const setup = await tree.read(WEBHOOK_PATHS.setup);
  let setupText = setup;
  for (const resource of project.resources) {
    const webhooks = resource.webhooks;
    if (!webhooks) continue;
    const names = resourceNamesOf(resource, project.resources);
    const oldPrefix = webhookNamePrefix(resource, { ...before, resources: project.resources });
    const newPrefix = webhookNamePrefix(resource, { ...after, resources: project.resources });
    if (oldPrefix === newPrefix) continue;
    const kinds: ('defaulting' | 'validation' | { spoke: string })[] = [
      ...(webhooks.defaulting ? (['defaulting'] as const) : []),
      ...(webhooks.validation ? (['validation'] as const) : []),
      ...(webhooks.spoke ?? []).map((spoke) => ({ spoke })),
    ];
    for (const what of kinds) {
      const from = webhookRegistration(names, oldPrefix, what);
      const to = webhookRegistration(names, newPrefix, what);
      for (const key of ['importLine', 'call'] as (keyof WebhookRegistration)[]) {
        if (setupText !== undefined && setupText.includes(from[key])) setupText = setupText.replace(from[key], to[key]);
        else
          obstacles.push(
            `${WEBHOOK_PATHS.setup}: the line \`${to[key]}\` replaces \`${from[key]}\`, which is not there as kop wrote it`,
          );
      }
      if (typeof what !== 'string') continue;
      // The webhook's name in its marker, unless the user named it otherwise (then it is theirs and stays).
      const file = what === 'defaulting' ? WEBHOOK_PATHS.defaulterFile(names) : WEBHOOK_PATHS.validatorFile(names);
      const type = what === 'defaulting' ? 'mutate' : 'validate';
      const oldName = `,name=${admissionWebhookName(type, names, oldPrefix === '' ? undefined : resource.group)},`;
      const newName = `,name=${admissionWebhookName(type, names, newPrefix === '' ? undefined : resource.group)},`;
      const text = await tree.read(file);
      if (text !== undefined && text.includes(oldName))
        tree.write(file, text.replace(oldName, newName), { kind: 'inserted' });
    }
  }
  if (setupText !== undefined && setupText !== setup) tree.write(WEBHOOK_PATHS.setup, setupText, { kind: 'inserted' });
}

/** Relative module specifiers in static imports, re-exports and `import('...')`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]*)\2/g;

/**
 * Rewrites the relative specifiers of a file that moves from `file` to `destination`, pointing
 * each at the same module (or at that module's new place when it moved too). `.js` specifiers
 * name `.ts` sources, as TypeScript's NodeNext resolution does.
 */
export function rewriteRelativeImports(
  text: string,
  file: string,
  destination: string,
  moved: ReadonlyMap<string, string>,
): string {
  return text.replace(SPECIFIER, (whole, lead: string, quote: string, specifier: string) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const source = target.replace(/\.js$/, '.ts');
    const movedTo = moved.get(source);
    const newTarget = movedTo === undefined ? target : movedTo.replace(/\.ts$/, target.endsWith('.js') ? '.js' : '.ts');
    let relative = path.posix.relative(path.posix.dirname(destination), newTarget);
    if (!relative.startsWith('.')) relative = `./${relative}`;
    return relative === specifier ? whole : `${lead}${quote}${relative}${quote}`;
  });
}

/** The .ts files under `dirs`, project-relative, as the tree sees them (staged ones included). */
async function typeScriptFiles(tree: VirtualTree, dirs: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(tree.root, dir), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules') await walk(relative);
      else if (entry.isFile() && entry.name.endsWith('.ts')) found.push(relative);
    }
  };
  for (const dir of dirs) await walk(dir);
  return found.sort();
}
