import { UsageError } from '../base/index.js';
import { LAYOUT } from '../project/index.js';

/**
 * The names `kop init --plugins` accepts for kop's one project layout: Kubebuilder's Go layout
 * plugin (short and full names, so a Kubebuilder command line ports as it is) and kop's own
 * layout name. All of them mean the same TypeScript layout: kop has no Go scaffold. (src/plugins/registry.ts
 * holds the plugins of `kop edit` and `kop create api`; init sits below it and names none of them.)
 */
export const INIT_LAYOUT_NAMES = ['go/v4', 'go.kubebuilder.io/v4', LAYOUT] as const;

/**
 * Checks `kop init --plugins`: every name must be one of {@link INIT_LAYOUT_NAMES}; any other is a
 * usage error listing them and pointing at the commands that take the other plugins. Returns the info line to print (the layout kop writes), or undefined without --plugins.
 */
export function checkInitPlugins(values: readonly string[] | string | undefined): string | undefined {
  if (values === undefined) return undefined;
  const names = (typeof values === 'string' ? [values] : values)
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError('--plugins: name a plugin', `kop init accepts ${INIT_LAYOUT_NAMES.join(', ')}`);
  for (const name of names) {
    if ((INIT_LAYOUT_NAMES as readonly string[]).includes(name)) continue;
    throw new UsageError(
      `--plugins: unknown plugin "${name}" for kop init; kop init wrote nothing`,
      `kop init accepts ${INIT_LAYOUT_NAMES.join(', ')} (each means kop's TypeScript layout ${LAYOUT}); add other plugins after init with \`kop edit --plugins <name>\` or \`kop create api --plugins <name>\` (\`kop edit --help\` lists them)`,
    );
  }
  return `--plugins ${names.join(',')}: kop scaffolds its TypeScript layout ${LAYOUT} (the counterpart of Kubebuilder's go/v4; no Go code is written)`;
}
