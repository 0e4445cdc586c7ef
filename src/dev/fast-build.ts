import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { KopError } from '../base/index.js';

/**
 * The parts of esbuild's API `kop dev` uses. esbuild is the project's own devDependency (kop
 * init adds it for `npm run bundle`), loaded from the project, so kop itself does not depend on it.
 */
interface Esbuild {
  context(options: Record<string, unknown>): Promise<EsbuildContext>;
  formatMessages(
    messages: EsbuildMessage[],
    options: { kind: 'error' | 'warning'; color?: boolean },
  ): Promise<string[]>;
}

interface EsbuildContext {
  rebuild(): Promise<{
    errors: EsbuildMessage[];
    warnings: EsbuildMessage[];
    outputFiles?: Array<{ path: string; contents: Uint8Array }>;
  }>;
  dispose(): Promise<void>;
}

interface EsbuildMessage {
  text: string;
  [field: string]: unknown;
}

/** The outcome of one {@link FastBuild.build}. */
export type BuildResult =
  { ok: true; changed: boolean; ms: number; warnings: string[] } | { ok: false; ms: number; message: string };

/** Options of {@link FastBuild.create}. */
export interface FastBuildOptions {
  /** The project root. */
  root: string;
  /** The entry point, relative to the root (`src/main.ts`). */
  entry: string;
  /** The file to write, absolute (`<root>/.kop/dev/build/main.mjs`), with its source map beside it. */
  outfile: string;
  /** Colour in error messages. */
  color?: boolean;
}

/**
 * Builds the manager for `kop dev` with esbuild: the entry point and every file of the project
 * it imports (api/ and src/) into one ES module, packages left to node_modules, with a source
 * map (the manager runs with --enable-source-maps, so stacks name the .ts lines). The context
 * is kept between builds, so a rebuild takes milliseconds. esbuild only strips types; type
 * errors are for `npm run build`, `npm test` and the editor.
 */
export class FastBuild {
  private lastHash: string | undefined;

  private constructor(
    private readonly esbuild: Esbuild,
    private readonly context: EsbuildContext,
    private readonly options: FastBuildOptions,
  ) {}

  /** Loads the project's esbuild and prepares the build; a project without esbuild gets an error naming the fix. */
  static async create(options: FastBuildOptions): Promise<FastBuild> {
    const esbuild = await loadProjectEsbuild(options.root);
    const context = await esbuild.context({
      absWorkingDir: options.root,
      entryPoints: [options.entry],
      outfile: options.outfile,
      bundle: true,
      packages: 'external',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      format: 'esm',
      sourcemap: 'linked',
      write: false,
      logLevel: 'silent',
    });
    return new FastBuild(esbuild, context, options);
  }

  /**
   * Rebuilds; writes the output only when it differs from the last good build (`changed`), so a
   * comment-only edit restarts nothing. A failure leaves the last good output in place.
   */
  async build(): Promise<BuildResult> {
    const started = performance.now();
    let result;
    try {
      result = await this.context.rebuild();
    } catch (error) {
      const errors = (error as { errors?: EsbuildMessage[] }).errors;
      const message =
        errors && errors.length > 0
          ? (await this.esbuild.formatMessages(errors, { kind: 'error', color: this.options.color ?? false }))
              .join('')
              .trimEnd()
          : (error as Error).message;
      return { ok: false, ms: performance.now() - started, message };
    }
    const warnings =
      result.warnings.length > 0
        ? await this.esbuild.formatMessages(result.warnings, { kind: 'warning', color: this.options.color ?? false })
        : [];
    const files = result.outputFiles ?? [];
    const code = files.find((file) => file.path === this.options.outfile);
    const hash = createHash('sha1')
      .update(code?.contents ?? new Uint8Array())
      .digest('hex');
    const changed = hash !== this.lastHash;
    if (changed) {
      await mkdir(path.dirname(this.options.outfile), { recursive: true });
      // The map first, and each file renamed into place, so a manager starting now never reads half a file.
      for (const file of [...files].sort((a, b) =>
        a.path === this.options.outfile ? 1 : b.path === this.options.outfile ? -1 : 0,
      )) {
        const temporary = `${file.path}.${process.pid}.tmp`;
        await writeFile(temporary, file.contents);
        await rename(temporary, file.path);
      }
      this.lastHash = hash;
    }
    return { ok: true, changed, ms: performance.now() - started, warnings };
  }

  /** Ends esbuild's service process. */
  async dispose(): Promise<void> {
    await this.context.dispose();
  }
}

/** Imports esbuild as the project resolves it (its node_modules), never kop's. */
async function loadProjectEsbuild(root: string): Promise<Esbuild> {
  let resolved: string;
  try {
    resolved = createRequire(path.join(root, 'package.json')).resolve('esbuild');
  } catch {
    throw new KopError(
      'kop dev builds the manager with esbuild, which this project does not have',
      'npm install --save-dev esbuild (projects made by kop init list it in devDependencies)',
    );
  }
  const module = (await import(pathToFileURL(resolved).href)) as Esbuild & { default?: Esbuild };
  const esbuild = typeof module.context === 'function' ? module : module.default;
  if (!esbuild || typeof esbuild.context !== 'function') {
    throw new KopError(
      `the esbuild at ${resolved} has no context() API`,
      'kop dev needs esbuild 0.17 or newer: npm install --save-dev esbuild@latest',
    );
  }
  return esbuild;
}
