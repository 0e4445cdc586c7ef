import { KopError } from '../base/index.js';
import type { VirtualTree } from './tree.js';

/** The project's Prettier settings, which `kop init` scaffolds. */
export const PRETTIER_CONFIG_FILE = '.prettierrc.json';

/** What Prettier formats of the files kop scaffolds (YAML under config/ and Markdown keep their layout). */
const FORMATTED = /\.(?:ts|mts|cts|js|mjs|cjs|json)$/;

/** Texts formatted in this process, by settings, path and text (see {@link formatScaffoldedFiles}). */
const formattedBefore = new Map<string, string>();
/** At most this many are kept (a scaffold is a few dozen files), so a long-lived process does not grow. */
const FORMATTED_BEFORE_LIMIT = 500;

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
    // The same text, path and settings always format the same way, so a text formatted before in this
    // process is not formatted again: a process that scaffolds one project many times (kop's own tests,
    // a tool that drives kop's commands) formats each file once. The path picks the parser and overrides.
    const key = `${configText}\0${file}\0${content}`;
    const known = formattedBefore.get(key);
    if (known !== undefined) return known;
    try {
      const result = await prettier.format(content, { ...config, filepath: file });
      if (formattedBefore.size >= FORMATTED_BEFORE_LIMIT) formattedBefore.clear();
      formattedBefore.set(key, result);
      return result;
    } catch (error) {
      // A template rendered to invalid code is kop's bug: say which file, and write nothing.
      throw new KopError(
        `cannot format ${file}, which kop scaffolded: ${(error as Error).message.split('\n')[0]}`,
        'this is a bug in kop; please report it with the command you ran',
      );
    }
  });
}
