/**
 * What the scaffolded tests of a project kind need to know about its types: the fields a valid
 * object must carry (for the kind's test fixture, `valid<Kind>()`) and whether its status has
 * conditions (for the reconciler's Ready condition). Read syntactically from the types file,
 * so it works for `create api` types, imported CRDs and hand-written kinds alike: a kind with
 * only `data`, or only `status`, gets a fixture and a reconciler that compile.
 */
import { posix } from 'node:path';
import type { ts as TypeScript } from 'ts-morph';
import { loadTsMorph } from '../base/index.js';
import { renderTemplateDir, type VirtualTree } from '../scaffold/index.js';
import { FIXTURE_TEMPLATES } from './kind-template-data.js';

/** The facts about one kind's types. */
export interface KindShape {
  /**
   * Object-literal lines (each ending in a comma) for the root's required fields other than
   * apiVersion, kind, metadata and status, with the least value the type allows (`spec: {}`).
   */
  fixtureFields: string[];
  /** True when the root has `status` whose type declares `conditions` (kop/api's Condition list). */
  hasConditions: boolean;
}

const ROOT_FIELDS_SET_ELSEWHERE = new Set(['apiVersion', 'kind', 'metadata', 'status']);
const NUMBER_NAMES = new Set(['number', 'int32', 'int64', 'float32', 'float64']);

/** Reads `kind`'s root interface in `typesText`; undefined when the file declares no such interface. */
export async function readKindShape(typesText: string, kind: string): Promise<KindShape | undefined> {
  const { ts } = loadTsMorph();
  const source = ts.createSourceFile('types.ts', typesText, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const declarations = new Map<string, TypeScript.InterfaceDeclaration | TypeScript.TypeAliasDeclaration>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement))
      declarations.set(statement.name.text, statement);
  }
  const root = declarations.get(kind);
  if (root === undefined || !ts.isInterfaceDeclaration(root)) return undefined;

  const nameOf = (member: TypeScript.TypeElement): string | undefined =>
    member.name !== undefined && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))
      ? member.name.text
      : undefined;
  const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replace(/'/g, "\\'")}'`);

  // The least value of a type, as source text; undefined when there is none to write (a type
  // kop cannot see into): the fixture then leaves the field for the user, and tsc says so.
  const leastValue = (type: TypeScript.TypeNode | undefined, seen: Set<string>): string | undefined => {
    if (type === undefined) return undefined;
    if (ts.isParenthesizedTypeNode(type)) return leastValue(type.type, seen);
    if (type.kind === ts.SyntaxKind.StringKeyword) return "''";
    if (type.kind === ts.SyntaxKind.NumberKeyword) return '0';
    if (type.kind === ts.SyntaxKind.BooleanKeyword) return 'false';
    if (ts.isArrayTypeNode(type)) return '[]';
    if (ts.isTypeLiteralNode(type)) return objectOf(type.members, seen);
    if (ts.isLiteralTypeNode(type)) {
      const literal = type.literal;
      if (ts.isStringLiteral(literal)) return `'${literal.text.replace(/'/g, "\\'")}'`;
      if (ts.isNumericLiteral(literal)) return literal.text;
      if (literal.kind === ts.SyntaxKind.TrueKeyword) return 'true';
      if (literal.kind === ts.SyntaxKind.FalseKeyword) return 'false';
      return undefined;
    }
    if (ts.isUnionTypeNode(type)) {
      for (const member of type.types) {
        const value = leastValue(member, seen);
        if (value !== undefined) return value;
      }
      return undefined;
    }
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
      const name = type.typeName.text;
      if (name === 'Array' || name === 'ReadonlyArray') return '[]';
      if (name === 'Record') return '{}';
      if (NUMBER_NAMES.has(name)) return '0';
      const declaration = declarations.get(name);
      if (declaration === undefined || seen.has(name)) return undefined;
      const inner = new Set(seen).add(name);
      return ts.isInterfaceDeclaration(declaration)
        ? declaration.heritageClauses === undefined
          ? objectOf(declaration.members, inner)
          : undefined
        : leastValue(declaration.type, inner);
    }
    return undefined;
  };
  const objectOf = (members: TypeScript.NodeArray<TypeScript.TypeElement>, seen: Set<string>): string | undefined => {
    const parts: string[] = [];
    for (const member of members) {
      if (ts.isIndexSignatureDeclaration(member)) continue;
      if (!ts.isPropertySignature(member)) return undefined;
      if (member.questionToken !== undefined) continue;
      const name = nameOf(member);
      const value = leastValue(member.type, seen);
      if (name === undefined || value === undefined) return undefined;
      parts.push(`${key(name)}: ${value}`);
    }
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  };

  const fixtureFields: string[] = [];
  let hasConditions = false;
  for (const member of root.members) {
    if (!ts.isPropertySignature(member)) continue;
    const name = nameOf(member);
    if (name === undefined) continue;
    if (name === 'status') {
      const type = member.type;
      const status =
        type !== undefined && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)
          ? declarations.get(type.typeName.text)
          : undefined;
      hasConditions =
        status !== undefined &&
        ts.isInterfaceDeclaration(status) &&
        status.members.some((m) => nameOf(m) === 'conditions');
    }
    if (ROOT_FIELDS_SET_ELSEWHERE.has(name) || member.questionToken !== undefined) continue;
    const value = leastValue(member.type, new Set([kind]));
    // Without a value the field stays out: tsc names it, here, as the one place to fill in.
    if (value !== undefined) fixtureFields.push(`${key(name)}: ${value},`);
  }
  return { fixtureFields, hasConditions };
}

/** Where a kind's fixture lives: test/fixtures/ mirrors the types file's place under api/. */
export function fixtureFileOf(typesFile: string): string {
  const underApi = typesFile.replace(/^api\//, '').replace(/\.types\.ts$/, '');
  return `test/fixtures/${underApi}.ts`;
}

/** A relative module specifier (`../x.js`) from the file `from` to the TypeScript file `to`. */
export function moduleFrom(from: string, to: string): string {
  const relative = posix.relative(posix.dirname(from), to.replace(/\.ts$/, '.js'));
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** The kind a fixture is written for. */
export interface FixtureTarget {
  kind: string;
  kindLower: string;
  apiVersion: string;
  namespaced: boolean;
  /** The kind's types file, relative to the project root. */
  typesFile: string;
}

/**
 * Scaffolds `valid<Kind>()` in the kind's fixture file unless it exists (it is the user's once
 * written), and returns its path and the kind's shape. The types file must be in the tree.
 */
export async function scaffoldKindFixture(
  tree: VirtualTree,
  target: FixtureTarget,
  licenseHeaderTs: string,
): Promise<{ file: string; shape: KindShape }> {
  const file = fixtureFileOf(target.typesFile);
  const typesText = await tree.read(target.typesFile);
  const shape = (typesText === undefined ? undefined : await readKindShape(typesText, target.kind)) ?? {
    fixtureFields: [],
    hasConditions: false,
  };
  const [rendered] = await renderTemplateDir(FIXTURE_TEMPLATES, {
    kind: target.kind,
    kindLower: target.kindLower,
    apiVersion: target.apiVersion,
    namespaced: target.namespaced,
    licenseHeaderTs,
    fixtureTypesModule: moduleFrom(file, target.typesFile),
    fixtureFields: shape.fixtureFields,
  });
  await tree.scaffold(file, rendered!.content, { ifExists: 'skip' });
  return { file, shape };
}
