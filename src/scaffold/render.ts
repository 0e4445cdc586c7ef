import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import { parse as parseYaml } from 'yaml';
import { KopError, templatesRoot } from '../base/index.js';
import { withHeader } from './header.js';
import type { FileKind } from './tree.js';

/**
 * A folder under templates/ and the data its templates read (`{{name}}`, `{{#if name}}`, `__name__` in file
 * names). Declared once per folder, beside the code that builds the data, with {@link templateFolder}, so
 * renderTemplateDir takes only that data: a misspelled or missing key fails to compile, and
 * test/scaffold/template-data.test.ts checks the type against what the templates read.
 */
export interface TemplateFolder<in T extends object> {
  /** The folder, relative to templates/. */
  readonly dir: string;
  /** Values added to the data the folder is rendered with (see {@link withTemplateData}). */
  readonly extra?: object;
  /**
   * Type only, never set: makes a folder that reads less usable where one reading more is expected,
   * never the other way round.
   */
  readonly reads?: (data: T) => void;
}

/** Declares a folder of templates/ and the data its templates read. */
export function templateFolder<T extends object>(dir: string): TemplateFolder<T> {
  return { dir };
}

/**
 * `folder`, bringing `extra` itself: rendered with the data of a folder it replaces (a plugin's templates in
 * place of a command's), which lacks what only the replacement reads.
 */
export function withTemplateData<T extends object, E extends object>(
  folder: TemplateFolder<T & E>,
  extra: E,
): TemplateFolder<T> {
  return { dir: folder.dir, extra: { ...folder.extra, ...extra } };
}

/** One file produced from a template directory. */
export interface RenderedFile {
  /** Project-relative path with placeholders resolved, `/`-separated. */
  path: string;
  content: string;
  kind: FileKind;
  /** File mode for new files, from the template's front matter (e.g. 0o755). */
  mode?: number;
}

/**
 * A private handlebars instance: HTML escaping is off because we render code, so
 * values that end up inside strings must go through the `json`/`yaml` helpers, and
 * names are validated before rendering (see project/resource.ts).
 */
const engine = Handlebars.create();

/** `{{json value}}`: a JSON literal, which is also a valid TypeScript and YAML (double-quoted) literal. */
engine.registerHelper('json', (value: unknown) => jsonLiteral(value));
/**
 * `{{jsonData value}}`: a JSON literal as JSON.stringify writes it, for JSON files that npm rewrites
 * (package.json): `>` stays `>`, so a file npm wrote back compares equal on the next run.
 */
engine.registerHelper('jsonData', (value: unknown) => JSON.stringify(value ?? null));
/** `{{yaml value}}`: a YAML scalar that cannot break out of its line. */
engine.registerHelper('yaml', (value: unknown) => yamlScalar(value));
/** `{{comment value}}`: text safe on one comment line (newlines and comment terminators removed). */
engine.registerHelper('comment', (value: unknown) => commentText(String(value)));
engine.registerHelper('lower', (value: unknown) => String(value).toLowerCase());
engine.registerHelper('upper', (value: unknown) => String(value).toUpperCase());
engine.registerHelper('eq', (a: unknown, b: unknown) => a === b);

/**
 * A value as a JSON literal. `<`, `>`, `&` and the line separators U+2028/2029 are
 * escaped too, so the literal is inert inside HTML, template literals and old JS parsers.
 */
export function jsonLiteral(value: unknown): string {
  return JSON.stringify(value ?? null)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A value as a single-line YAML scalar: plain when that reads back as the same string,
 * otherwise a JSON double-quoted string (JSON strings are valid YAML), so no value can
 * add lines, keys or comments to the document.
 */
export function yamlScalar(value: unknown): string {
  if (typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(value)) {
    try {
      if (parseYaml(value) === value) return value;
    } catch {
      // fall through to quoting
    }
  }
  return jsonLiteral(value);
}

/** Text that stays inside a single-line comment of any syntax kop writes. */
export function commentText(value: string): string {
  return value
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/\*\//g, '* /')
    .replace(/-->/g, '-- >');
}

/**
 * Compiled templates by source text: compiling costs far more than running the compiled function, and
 * one process renders a template more than once (`kop alpha generate` replays `create api` per kind;
 * kop's tests scaffold hundreds of projects). The sources are kop's template files, so the map stays small.
 */
const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Renders a handlebars template string; a missing variable is an error (strict mode), not an empty string. */
export function renderTemplate(source: string, data: object, name = 'template'): string {
  try {
    let template = compiled.get(source);
    if (template === undefined) {
      template = engine.compile(source, { noEscape: true, strict: true });
      compiled.set(source, template);
    }
    return template(data);
  } catch (error) {
    throw new KopError(`cannot render ${name}: ${(error as Error).message}`);
  }
}

const FRONT_MATTER = /^\{\{!--\s*kop:([^]*?)--\}\}\r?\n/;

interface FrontMatter {
  kind: FileKind;
  header: boolean;
  mode?: number;
}

/**
 * Reads the optional first-line front matter of a template, e.g.
 * `{{!-- kop: kind=generated header=false mode=755 --}}`. Defaults: scaffolded, with header.
 */
function parseFrontMatter(source: string, name: string): { front: FrontMatter; body: string } {
  const match = FRONT_MATTER.exec(source);
  const front: FrontMatter = { kind: 'scaffolded', header: true };
  if (!match) return { front, body: source };
  for (const pair of match[1]!.trim().split(/\s+/).filter(Boolean)) {
    const [key, value] = pair.split('=');
    if (key === 'kind' && (value === 'generated' || value === 'scaffolded' || value === 'inserted')) front.kind = value;
    else if (key === 'header' && (value === 'true' || value === 'false')) front.header = value === 'true';
    else if (key === 'mode' && value !== undefined && /^[0-7]{3}$/.test(value)) front.mode = parseInt(value, 8);
    else throw new KopError(`template ${name} has unknown front matter "${pair}"`);
  }
  return { front, body: source.slice(match[0].length) };
}

/**
 * Resolves a template file name: `__key__` becomes `data[key]` (which must be a safe
 * path segment), a leading `_` becomes `.` (npm drops real dotfiles such as
 * .gitignore from published packages), and a trailing `.hbs` is removed.
 */
export function templatePathToOutput(relative: string, data: object): string {
  return relative
    .split(/[\\/]/)
    .map((segment) => {
      let out = segment.replace(/__([A-Za-z][A-Za-z0-9]*)__/g, (_match, key: string) => {
        const value = (data as { [key: string]: unknown })[key];
        if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) || value.includes('..')) {
          throw new KopError(
            `template path ${relative}: placeholder ${key} has no safe value (${JSON.stringify(value)})`,
          );
        }
        return value;
      });
      if (out.startsWith('_')) out = '.' + out.slice(1);
      return out;
    })
    .join('/')
    .replace(/\.hbs$/, '');
}

/**
 * Renders every file of `folder`: `.hbs` files through handlebars, other files verbatim, each
 * headed per its kind (see header.ts). Sorted by output path. `data` is the folder's own type
 * (NoInfer: the folder alone decides it), so an object literal with a key the folder does not
 * declare, or without one it does, fails to compile.
 */
export async function renderTemplateDir<T extends object>(
  folder: TemplateFolder<T>,
  given: NoInfer<T>,
  root = templatesRoot(),
): Promise<RenderedFile[]> {
  const { dir } = folder;
  const data: object = folder.extra === undefined ? given : { ...given, ...folder.extra };
  const base = path.join(root, dir);
  // Read synchronously: a folder is a few dozen small files, and the promise API's round trips through
  // libuv's thread pool (open, stat, read, close for each) cost more CPU than the reading.
  let relatives: string[];
  try {
    relatives = listFiles(base);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new KopError(`kop's templates are missing (${base}): ${code ?? message}`, 'reinstall kop');
  }
  const files: RenderedFile[] = [];
  for (const relative of relatives) {
    const absolute = path.join(base, relative);
    const raw = readFileSync(absolute, 'utf8');
    const { front, body } = parseFrontMatter(raw, `${dir}/${relative}`);
    const outPath = templatePathToOutput(relative, data);
    const rendered = relative.endsWith('.hbs') ? renderTemplate(body, data, `${dir}/${relative}`) : body;
    files.push({
      path: outPath,
      content: front.header ? withHeader(outPath, rendered, front.kind) : rendered,
      kind: front.kind,
      mode: front.mode,
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every file below `dir`, as `/`-separated relative paths. */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(dir, relative));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}
