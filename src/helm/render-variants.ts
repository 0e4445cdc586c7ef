import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Context } from '../base/index.js';
import { renderKustomization, type ManifestObject } from '../deploy/index.js';

/**
 * The optional parts of config/default the chart offers as values, by their toggle names in
 * config/default/kustomization.yaml (`# [NAME] ...` followed by commented YAML lines).
 */
export const CHART_TOGGLES = ['NETWORK-POLICY', 'PROMETHEUS', 'CERTMANAGER', 'METRICS-WITH-CERTS'] as const;

/** config/default built twice: as the project has it, and with every optional part turned on. */
export interface ConfigVariants {
  /** What `kop deploy` installs: decides the defaults in values.yaml. */
  base: ManifestObject[];
  /** With {@link CHART_TOGGLES} on: every object the chart can render. */
  full: ManifestObject[];
  /** config/default's namespace and namePrefix, which the chart replaces with the release's. */
  namespace: string;
  namePrefix: string;
}

/**
 * Builds both variants with `kubectl kustomize`; the full one from a temporary copy of config/
 * whose default/kustomization.yaml has the toggles uncommented, so the project is not touched.
 */
export async function renderConfigVariants(context: Context): Promise<ConfigVariants> {
  const defaultKustomization = await readFile(path.join(context.cwd, 'config/default/kustomization.yaml'), 'utf8');
  const settings = (parseYaml(defaultKustomization) ?? {}) as { namespace?: string; namePrefix?: string };
  const base = await renderKustomization('config/default', context);
  const copy = await mkdtemp(path.join(tmpdir(), 'kop-chart-'));
  try {
    await cp(path.join(context.cwd, 'config'), path.join(copy, 'config'), { recursive: true, dereference: true });
    await writeFile(
      path.join(copy, 'config/default/kustomization.yaml'),
      turnOnToggles(defaultKustomization, CHART_TOGGLES),
    );
    const full = await renderKustomization(path.join(copy, 'config/default'), context);
    return { base, full, namespace: settings.namespace ?? 'default', namePrefix: settings.namePrefix ?? '' };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/**
 * Uncomments the YAML lines under each `# [NAME]` toggle named: comment lines that start with
 * `#-` or `#  ` (the convention of kop's and Kubebuilder's config/default), up to the next toggle,
 * marker or line that is not a comment. Explanatory lines (`# text`) stay comments.
 */
export function turnOnToggles(text: string, toggles: readonly string[]): string {
  const lines = text.split('\n');
  const present = new Set(lines.filter((line) => !line.trimStart().startsWith('#')).map((line) => line.trim()));
  let active = false;
  // An item already on (create webhook inserts `- ../certmanager` at the marker) is not added twice.
  let skippingItem = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trimStart();
    const toggle = /^# \[([A-Z0-9-]+)\]/.exec(trimmed);
    if (toggle) {
      active = toggles.includes(toggle[1]!);
      continue;
    }
    if (!trimmed.startsWith('#') || trimmed.startsWith('# +kop:scaffold')) {
      active = false;
      continue;
    }
    if (!active) continue;
    if (trimmed.startsWith('#-')) {
      const uncommented = line.replace('#', '');
      skippingItem = present.has(uncommented.trim());
      if (!skippingItem) lines[index] = uncommented;
    } else if (trimmed.startsWith('#  ') && !skippingItem) {
      lines[index] = line.replace('#', '');
    }
  }
  return lines.join('\n');
}
