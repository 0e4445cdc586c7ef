import { KopError } from '../base/index.js';
import type { VirtualTree } from './tree.js';

/** The project's Prettier settings, which `kop init` scaffolds. */
export const PRETTIER_CONFIG_FILE = '.prettierrc.json';

/** What Prettier formats of the files kop scaffolds (YAML under config/ and Markdown keep their layout). */
const FORMATTED = /\.(?:ts|mts|cts|js|mjs|cjs|json)$/;

/**
 * Formats the files a command scaffolds with the project's Prettier settings before they are
 * planned and written, as Kubebuilder runs goimports on the Go files it scaffolds: the scaffold
 * passes `npm run format:check` whatever the length of the names put into it, and re-running a
 * command compares formatted text with formatted text. Only scaffolded files are touched (never
 * generated ones, which Prettier ignores, nor a user's file kop inserts a line into), and only in
 * a project that has a Prettier configuration (one made by an older kop has none).
 */
export async function formatScaffoldedFiles(tree: VirtualTree): Promise<void> {
  const formatted = (file: string, kind: string) => kind === 'scaffolded' && FORMATTED.test(file);
  if (tree.stagedFiles(formatted).length === 0) return;
  const configText = await tree.read(PRETTIER_CONFIG_FILE);
  if (configText === undefined) return;
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(configText) as Record<string, unknown>;
  } catch (error) {
    throw new KopError(
      `${PRETTIER_CONFIG_FILE} is not valid JSON: ${(error as Error).message}`,
      'fix it, or remove it to scaffold without formatting',
    );
  }
  delete config.$schema;
  // Loaded only here: a command that scaffolds nothing (and `kop --help`) never pays for it.
  const prettier = await import('prettier');
  await tree.rewriteStaged(formatted, async (file, content) => {
    try {
      return await prettier.format(content, { ...config, filepath: file });
    } catch (error) {
      // A template rendered to invalid code is kop's bug: say which file, and write nothing.
      throw new KopError(
        `cannot format ${file}, which kop scaffolded: ${(error as Error).message.split('\n')[0]}`,
        'this is a bug in kop; please report it with the command you ran',
      );
    }
  });
}
