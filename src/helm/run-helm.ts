import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { type Context, KopError } from '../base/index.js';
import type { ProjectFile } from '../project/index.js';
import { type FlushResult, GENERATED_HEADER, type VirtualTree } from '../scaffold/index.js';
import { chartYaml, HELMIGNORE, helpersTpl, valuesYaml } from './chart-files.js';
import { ChartBuilder } from './chart-templates.js';
import { mergeValues } from './merge-values.js';
import { renderConfigVariants } from './render-variants.js';

/** Options of the helm plugin of `kop edit`. */
export interface HelmChartOptions {
  /** Replace values.yaml with kop's instead of merging. */
  force?: boolean;
  /** PROJECT's `output` of the plugin: the chart goes in `<output>/chart`; default dist. */
  output?: unknown;
}

/** The folder the chart's folder goes in (Kubebuilder's `output`), as Kubebuilder's helm plugin puts it. */
export const DEFAULT_OUTPUT = 'dist';
/** kop's values of the last run, in the chart: the base of the three-way merge of values.yaml (left out of packages by .helmignore). */
const VALUES_BASE_FILE = '.kop-values-base.yaml';

/** `<output>/chart`, for an `output` inside the project; anything else is an error naming PROJECT's key. */
export function chartDirectory(output: unknown = DEFAULT_OUTPUT): string {
  const folder = typeof output === 'string' ? output.replace(/\/+$/, '') : undefined;
  if (
    folder === undefined ||
    folder === '' ||
    path.posix.isAbsolute(folder) ||
    folder.includes('\\') ||
    folder.split('/').some((part) => part === '..' || part === '.' || part === '')
  ) {
    throw new KopError(
      `PROJECT: plugins.helm.kubebuilder.io/v2-alpha.output: ${JSON.stringify(output)} is not a folder inside the project`,
      'give a project-relative folder such as dist (the chart goes in <output>/chart)',
    );
  }
  return `${folder}/chart`;
}

/**
 * The helm plugin of `kop edit` (src/plugins registers it): stages a Helm chart of the operator
 * in <output>/chart (dist/chart) from config/default (built with `kubectl kustomize`, with and without its
 * optional parts). Templates are generated and rewritten on every run; Chart.yaml is written
 * once (its version is yours to bump); values.yaml is merged: settings you changed stay, new
 * ones are added (see {@link mergeValues}). Returns what to print once the tree was applied.
 */
export async function stageHelmChart(
  tree: VirtualTree,
  project: ProjectFile,
  options: HelmChartOptions,
  context: Context,
): Promise<(result: FlushResult) => void> {
  const chartDir = chartDirectory(options.output);
  const valuesBase = `${chartDir}/${VALUES_BASE_FILE}`;
  const variants = await renderConfigVariants(context);
  const builder = new ChartBuilder(project.projectName, variants);
  const version = await projectVersion(tree);

  const templates = builder.templates();
  const written = new Set<string>();
  const header = `{{/* ${GENERATED_HEADER} */}}\n`;
  for (const template of templates) {
    const file = `${chartDir}/templates/${template.path}`;
    tree.write(file, header + template.content, { kind: 'generated' });
    written.add(file);
  }
  const notes = `${chartDir}/templates/NOTES.txt`;
  tree.write(notes, header + builder.notes(), { kind: 'generated' });
  written.add(notes);
  const helpers = `${chartDir}/templates/_helpers.tpl`;
  tree.write(helpers, helpersTpl(project.projectName), { kind: 'generated' });
  written.add(helpers);
  // Templates of objects config/ no longer has: only files kop wrote (its header) are removed.
  for (const file of await listFiles(context.cwd, `${chartDir}/templates`)) {
    if (written.has(file)) continue;
    const content = await tree.read(file);
    if (content !== undefined && content.startsWith(header)) tree.remove(file);
  }
  tree.write(`${chartDir}/.helmignore`, HELMIGNORE, { kind: 'generated' });
  // Written once: its version and appVersion are the user's to bump with each release.
  if (!(await tree.exists(`${chartDir}/Chart.yaml`)))
    await tree.scaffold(`${chartDir}/Chart.yaml`, chartYaml(project.projectName, version));

  const values = valuesYaml(builder.defaults());
  const valuesFile = `${chartDir}/values.yaml`;
  const existing = await tree.read(valuesFile);
  if (existing === undefined || options.force) {
    tree.write(valuesFile, values, { kind: 'scaffolded' });
  } else {
    const base = await tree.read(valuesBase);
    let merge;
    try {
      merge = mergeValues(existing, values, base === undefined ? undefined : stripHeader(base));
    } catch (error) {
      throw new KopError(
        `${valuesFile}: ${(error as Error).message}`,
        "fix it, or pass --force to replace it with kop's",
      );
    }
    tree.write(valuesFile, merge.text, { kind: 'scaffolded' });
    for (const setting of merge.added) context.out.debug(`values.yaml: added ${setting}`);
    for (const setting of merge.updated) context.out.debug(`values.yaml: ${setting} follows kop's new default`);
    for (const setting of merge.removed)
      context.out.debug(`values.yaml: removed ${setting}, which kop no longer writes`);
    if (merge.kept.length > 0) context.out.debug(`values.yaml: kept your ${merge.kept.join(', ')}`);
  }
  tree.write(
    valuesBase,
    `# ${GENERATED_HEADER}\n# kop's values.yaml of the last \`kop edit --plugins helm\`: the base of the next merge.\n${values}`,
    { kind: 'generated' },
  );

  return (result) => {
    if (
      result.written &&
      result.changes.some((change) => change.action === 'create' && change.path === `${chartDir}/values.yaml`)
    ) {
      context.out.info(
        `\nNext: helm install ${project.projectName} ${chartDir} --namespace ${variants.namespace} --create-namespace --set manager.image.repository=<image>,manager.image.tag=<tag>`,
      );
    }
  };
}

function stripHeader(text: string): string {
  return text
    .split('\n')
    .filter((line, index) => !(index < 2 && line.startsWith('#')))
    .join('\n');
}

/** The project's package.json version, the chart's first version and appVersion. */
async function projectVersion(tree: VirtualTree): Promise<string> {
  const text = await tree.read('package.json');
  if (text === undefined) return '0.1.0';
  try {
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' && /^\d+\.\d+\.\d+/.test(version) ? version : '0.1.0';
  } catch {
    return '0.1.0';
  }
}

/** Files below `dir` (project-relative, `/`-separated); none when it does not exist. */
async function listFiles(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(path.join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}
