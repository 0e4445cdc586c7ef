import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import type { Project, Type } from 'ts-morph';
import { loadTsMorph } from '../../src/base/index.js';
import { CLIENT_NODE_INDEX_LEFT_OUT } from './ts-program-options.js';

/** One `templateFolder<T>('dir')` declaration, with the keys of T. */
export interface FolderDeclaration {
  dir: string;
  /** T as written, for messages. */
  typeText: string;
  keys: ReadonlySet<string>;
  /** file:line of the declaration. */
  where: string;
}

/**
 * Every `templateFolder<T>('dir')` call in `files`, with the keys T has, read by the TypeScript
 * checker (a union's keys are those of any member: `{ a } | { b }` may carry either).
 */
export function folderDeclarations(files: readonly string[], root: string): FolderDeclaration[] {
  const project = sharedProject(root);
  const { Node } = loadTsMorph();
  const out: FolderDeclaration[] = [];
  for (const file of files) {
    const source = project.getSourceFile(file) ?? project.addSourceFileAtPath(file);
    for (const call of source.getDescendants().filter(Node.isCallExpression)) {
      if (call.getExpression().getText() !== 'templateFolder') continue;
      const [typeArgument] = call.getTypeArguments();
      const [dir] = call.getArguments();
      const where = `${path.relative(root, file)}:${call.getStartLineNumber()}`;
      if (typeArgument === undefined || dir === undefined || !Node.isStringLiteral(dir))
        throw new Error(`${where}: templateFolder needs a type argument and a string literal folder`);
      out.push({
        dir: dir.getLiteralText(),
        typeText: typeArgument.getText(),
        keys: keysOf(typeArgument.getType()),
        where,
      });
    }
  }
  return out;
}

const projects = new Map<string, Project>();

/**
 * Lets the shared projects go: call it after the last check of a test file. The unit project's
 * workers run file after file in one heap (isolate: false), and a project kept alive there (a few
 * hundred MB with its program and checker) makes every full collection after it slower: the
 * informer test that collects three times took 5.4 s after this file, 1.2 s without it.
 */
export function forgetSharedProjects(): void {
  projects.clear();
}

/** One ts-morph project per repository root: its checker loads most of src/, which takes a while. */
function sharedProject(root: string): Project {
  let project = projects.get(root);
  if (project === undefined) {
    // ts-morph loaded as kop loads it (see there): an ESM import costs more CPU in every worker thread.
    project = new (loadTsMorph().Project)({
      tsConfigFilePath: path.join(root, 'tsconfig.json'),
      skipAddingFilesFromTsConfig: true,
      compilerOptions: { paths: CLIENT_NODE_INDEX_LEFT_OUT },
    });
    projects.set(root, project);
  }
  return project;
}

function keysOf(type: Type): Set<string> {
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  return new Set(members.flatMap((member) => member.getProperties().map((p) => p.getName())));
}

/**
 * The names a template reads at the top level of its data: `{{name}}`, `{{#if name}}`,
 * `{{#each name}}`, helper arguments (`{{json name}}`), `name.field`, `../name` from inside an
 * `each`/`with` block and `@root.name`. Inside such a block, plain names are the item's, not the data's.
 */
export function templateReads(source: string): Set<string> {
  const reads = new Set<string>();
  const visit = (node: hbs.AST.Node | null | undefined, nesting: number): void => {
    if (!node) return;
    switch (node.type) {
      case 'Program':
        for (const statement of (node as hbs.AST.Program).body) visit(statement, nesting);
        return;
      case 'PathExpression': {
        const expression = node as hbs.AST.PathExpression;
        const [first, second] = expression.parts;
        if (expression.data) {
          if (first === 'root' && second !== undefined) reads.add(second);
        } else if (expression.depth === nesting && first !== undefined) {
          reads.add(first);
        }
        return;
      }
      case 'MustacheStatement':
      case 'SubExpression':
      case 'BlockStatement': {
        const call = node as hbs.AST.MustacheStatement | hbs.AST.BlockStatement;
        // With arguments the path names a helper (json, if, each, ...); alone it is a value.
        const helper = call.params.length > 0 || (call.hash?.pairs.length ?? 0) > 0;
        if (!helper) visit(call.path, nesting);
        for (const param of call.params) visit(param, nesting);
        for (const pair of call.hash?.pairs ?? []) visit(pair.value, nesting);
        if (node.type === 'BlockStatement') {
          const block = node as hbs.AST.BlockStatement;
          const name = (block.path as hbs.AST.PathExpression).original;
          // if/unless keep the data as context; each, with and a section without arguments enter a value.
          const keepsContext = helper && (name === 'if' || name === 'unless');
          visit(block.program, keepsContext ? nesting : nesting + 1);
          visit(block.inverse, nesting);
        }
        return;
      }
      case 'PartialStatement':
      case 'PartialBlockStatement':
      case 'DecoratorBlock':
      case 'Decorator':
        throw new Error(`templates use no ${node.type}: the check cannot follow one`);
      default:
        return;
    }
  };
  visit(Handlebars.parse(source), 0);
  return reads;
}

/** Every file under `dir`, `/`-separated and relative to it. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? listFiles(dir, relative) : [relative];
  });
}

/** What one template file reads: its `.hbs` body and the `__name__` placeholders of its path. */
function fileReads(templatesRoot: string, file: string): Set<string> {
  const reads = new Set([...file.matchAll(/__([A-Za-z][A-Za-z0-9]*)__/g)].map((m) => m[1]!));
  if (file.endsWith('.hbs'))
    for (const key of templateReads(readFileSync(path.join(templatesRoot, file), 'utf8'))) reads.add(key);
  return reads;
}

/**
 * What disagrees between the templates under `templatesRoot` and the folder declarations:
 * a template reading a key its folder's type lacks, a key of a folder's type that no template of
 * the folder reads, and a template (an `.hbs` file or one with a placeholder) under no declared folder.
 */
export function templateDataProblems(templatesRoot: string, declarations: readonly FolderDeclaration[]): string[] {
  const problems: string[] = [];
  const rendered = listFiles(templatesRoot).filter((file) => file.endsWith('.hbs') || /__[A-Za-z]/.test(file));
  const covered = new Set<string>();
  const seen = new Map<string, string>();
  for (const declaration of declarations) {
    const { dir, typeText, keys, where } = declaration;
    if (seen.has(dir)) problems.push(`${where}: ${dir} is declared already at ${seen.get(dir)}`);
    seen.set(dir, where);
    const files = rendered.filter((file) => file.startsWith(`${dir}/`));
    if (files.length === 0) problems.push(`${where}: templates/${dir} has no templates`);
    const readByFolder = new Set<string>();
    for (const file of files) {
      covered.add(file);
      for (const key of fileReads(templatesRoot, file)) {
        readByFolder.add(key);
        if (!keys.has(key)) problems.push(`templates/${file} reads "${key}", which ${typeText} (${where}) lacks`);
      }
    }
    for (const key of keys)
      if (!readByFolder.has(key))
        problems.push(`${typeText} (${where}) has "${key}", which no template of ${dir} reads`);
  }
  for (const file of rendered)
    if (!covered.has(file)) problems.push(`templates/${file}: no templateFolder<...>() declares its folder`);
  return problems;
}
