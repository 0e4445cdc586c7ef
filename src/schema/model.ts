/**
 * Stage 2: the API model — groups, versions, kinds, their declarations, fields, markers
 * and doc comments — built from the syntax trees of program.ts without a type checker.
 * `kop generate manifests` turns it into CRDs; the typed-client generator reads the same
 * model, so types, CRDs and clients never drift.
 *
 * Entry point: `loadApiModel(projectRoot)`.
 */
import * as path from 'node:path';
import type { ts as TypeScript } from 'ts-morph';
import { createApiProgram, type ApiProgram } from './program.js';
import { findMarker, type Marker } from './markers.js';
import { CommentReader } from './comments.js';
import { collectKinds, stringValue } from './kinds.js';
export { allFields, compareKubeVersions } from './kinds.js';
import type { ApiModel, ApiPackage, FieldModel, LoadApiModelOptions, TypeDeclaration, TypeRef } from './model-types.js';
import { ApiPackageError, SchemaError, SchemaErrors, type SourceLocation } from './errors.js';
import { fullGroup, isDns1123Subdomain } from '../project/index.js';

/** The module specifier whose named imports are well-known types. */
export const WELL_KNOWN_MODULE = 'kop/api';

export type * from './model-types.js';

/**
 * Parses every API file of the project and builds the model. Throws a SchemaError
 * (file:line, what to write instead) for unknown or misplaced markers, kinds without
 * spec, and storage-version conflicts; type-level problems (unions, any, recursion)
 * surface when a consumer converts types (see to-openapi.ts).
 */
export async function loadApiModel(projectRoot: string, options: LoadApiModelOptions = {}): Promise<ApiModel> {
  const program = await createApiProgram(projectRoot, { files: options.files, sources: options.sources });
  return buildApiModel(program, options);
}

const VERSION_PATTERN = /^v\d+((alpha|beta)\d+)?$/;

interface FileState {
  sourceFile: TypeScript.SourceFile;
  relative: string;
  declarations: Map<string, { declaration: TypeDeclaration; node: TypeScript.Node }>;
  imports: Map<
    string,
    { wellKnown: string } | { file: string; name: string } | { namespace: true } | { namespaceFile: string }
  >;
  /** `export { A as B }` (no module): exported name -> local name. */
  exportAliases: Map<string, string>;
  /** `export * from './x.js'` (no names) and `export { A as B } from './x.js'` (exported name -> name in that file). */
  reexports: { file: string; names?: Map<string, string> }[];
  packageMarkers: Marker[];
  /** Pass 1 ran to its end (a problem in it leaves comments unread, which the sweep must not report). */
  indexed: boolean;
  resolved: boolean;
}

/** Builds the model from an already-created program (tests and benchmarks share programs). */
export function buildApiModel(program: ApiProgram, options: LoadApiModelOptions = {}): ApiModel {
  const builder = new ModelBuilder(program);
  return builder.build(options);
}

class ModelBuilder {
  private readonly ts: typeof TypeScript;
  private readonly files = new Map<string, FileState>();
  /** Problems found so far: a run reports all of them at once, not only the first. */
  private readonly errors: SchemaError[] = [];

  /** Runs `step`, keeping a SchemaError it throws for the report instead of stopping there. */
  private collect(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      this.errors.push(error);
    }
  }

  /** Throws what `collect` kept: the error itself when there is one, all of them together otherwise. */
  private throwCollected(): void {
    if (this.errors.length === 1) throw this.errors[0];
    if (this.errors.length > 1) throw new SchemaErrors(this.errors);
  }

  /** Stage: the comments of the API files, their docs and markers. */
  private readonly comments: CommentReader;

  constructor(private readonly program: ApiProgram) {
    this.ts = program.ts;
    this.comments = new CommentReader(
      program.ts,
      (absolute) => this.relative(absolute),
      (step) => this.collect(step),
    );
  }

  build(options: LoadApiModelOptions): ApiModel {
    const byDir = new Map<string, FileState[]>();
    for (const sourceFile of this.program.apiFiles) {
      this.collect(() => {
        const state = this.fileState(sourceFile);
        const dir = path.posix.dirname(state.relative);
        byDir.set(dir, [...(byDir.get(dir) ?? []), state]);
      });
    }
    for (const state of [...this.files.values()]) this.collect(() => this.resolveFile(state));
    for (const state of this.files.values())
      if (state.indexed && state.resolved) this.comments.refuseUnreadMarkers(state.sourceFile);
    if (!options.collectProblems) this.throwCollected();

    const packages: ApiPackage[] = [];
    for (const [dir, states] of [...byDir].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const markers = states.flatMap((s) => s.packageMarkers);
      if (findMarker(markers, 'kubebuilder:skip')) continue;
      const declarations = new Map<string, TypeDeclaration>();
      for (const state of states)
        for (const [name, { declaration }] of state.declarations) declarations.set(name, declaration);
      const versionMarker = findMarker(markers, 'versionName');
      const version = typeof versionMarker?.value === 'string' ? versionMarker.value : path.posix.basename(dir);
      const groupMarkers = markers.filter((m) => m.name === 'groupName');
      const distinctGroups = [...new Set(groupMarkers.map((m) => String(m.value)))];
      if (distinctGroups.length > 1) {
        throw new ApiPackageError(
          groupMarkers[1]!.location,
          dir,
          `the files of this API version name different groups (${distinctGroups.join(', ')})`,
          'keep one +groupName, in groupversion.ts',
        );
      }
      let group = stringValue(findMarker(markers, 'groupName'));
      if (group === undefined && options.project) {
        const resource =
          options.project.resources.find((r) => r.path !== undefined && path.posix.dirname(r.path) === dir) ??
          options.project.resources.find(
            (r) => dir === `api/${r.group}/${r.version}` || (dir === `api/${r.version}` && r.version === version),
          );
        if (resource) group = fullGroup(resource);
      }
      const hasRoot = [...declarations.values()].some((d) => findMarker(d.markers, 'kubebuilder:object:root'));
      if (!hasRoot) {
        if (group !== undefined || versionMarker)
          packages.push(this.makePackage(dir, group ?? '', version, states, markers, declarations));
        continue;
      }
      if (group === undefined) {
        throw new ApiPackageError(
          { file: states[0]!.relative, line: 1 },
          dir,
          'this API version has kinds but no group',
          `add "// +groupName=<group>.<domain>" at the top of ${dir}/groupversion.ts, separated from the first declaration by a blank line`,
        );
      }
      if (!isDns1123Subdomain(group) || !group.includes('.')) {
        // The apiserver refuses such a CRD; say so here, with the marker's line, not at kubectl apply.
        throw new ApiPackageError(
          findMarker(markers, 'groupName')?.location ?? { file: states[0]!.relative, line: 1 },
          dir,
          `group "${group}" is not a lower-case domain with at least one dot, which the apiserver requires of a CRD's group`,
          'write "+groupName=<group>.<domain>" in lower case, e.g. +groupName=cache.example.com',
        );
      }
      if (!VERSION_PATTERN.test(version)) {
        throw new ApiPackageError(
          { file: states[0]!.relative, line: 1 },
          dir,
          `"${version}" is not a Kubernetes version (v1, v1beta1, v2alpha3)`,
          'put the types in api/<group>/<version>/ or add "// +versionName=<version>" to the file header',
        );
      }
      packages.push(this.makePackage(dir, group, version, states, markers, declarations));
    }
    const kinds = collectKinds(packages, options.project);
    const files = this.files;
    return {
      root: this.program.root,
      packages,
      kinds,
      declaration(file, name) {
        return files.get(file)?.declarations.get(name)?.declaration;
      },
      problems: [...this.errors],
    };
  }

  private makePackage(
    dir: string,
    group: string,
    version: string,
    states: FileState[],
    markers: Marker[],
    declarations: Map<string, TypeDeclaration>,
  ): ApiPackage {
    return {
      group,
      version,
      dir,
      files: states.map((s) => s.relative),
      markers,
      declarations,
      defaultOptional: findMarker(markers, 'kubebuilder:validation:Optional') !== undefined,
    };
  }

  /** Project-relative paths by absolute path: every field's location asks, and path.relative is not cheap. */
  private readonly relativePaths = new Map<string, string>();

  private relative(absolute: string): string {
    let relative = this.relativePaths.get(absolute);
    if (relative === undefined) {
      relative = path.relative(this.program.root, absolute).split(path.sep).join('/');
      this.relativePaths.set(absolute, relative);
    }
    return relative;
  }

  private location(sourceFile: TypeScript.SourceFile, position: number): SourceLocation {
    return {
      file: this.relative(sourceFile.fileName),
      line: sourceFile.getLineAndCharacterOfPosition(position).line + 1,
    };
  }

  /** Indexes a file's declarations, imports and header markers (pass 1). */
  private fileState(sourceFile: TypeScript.SourceFile): FileState {
    const absolute = sourceFile.fileName;
    const relative = this.relative(absolute);
    const existing = this.files.get(relative);
    if (existing) return existing;
    const ts = this.ts;
    const node = sourceFile;
    const state: FileState = {
      sourceFile,
      relative,
      declarations: new Map(),
      imports: new Map(),
      exportAliases: new Map(),
      reexports: [],
      packageMarkers: [],
      indexed: false,
      resolved: false,
    };
    this.files.set(relative, state);
    const claimed = new Set<number>();
    for (const statement of node.statements) {
      const comments = this.comments.leadingComments(node, statement);
      if (
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)
      ) {
        const attached = comments.attached;
        for (const c of attached) claimed.add(c.pos);
        // The doc comment and the closest other group above it hold the type's markers alike (one
        // placement rule, markers/collect.ts), except markers only a package can carry (+groupName
        // in a file header right above the first type, +versionName, +kubebuilder:validation:Optional),
        // which are package markers wherever they stand there, as controller-gen sorts them.
        const { doc, markers } = this.comments.docAndMarkers(node, attached, 'type', statement.name.text, {
          packageMarkers: state.packageMarkers,
        });
        for (const c of comments.markerGroup) claimed.add(c.pos);
        markers.unshift(
          ...this.comments.docAndMarkers(node, comments.markerGroup, 'type', statement.name.text, {
            packageMarkers: state.packageMarkers,
          }).markers,
        );
        const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
        const declaration: TypeDeclaration = {
          name: statement.name.text,
          declarationKind: ts.isInterfaceDeclaration(statement) ? 'interface' : 'alias',
          file: relative,
          location: this.location(node, statement.name.getStart(node)),
          doc,
          markers,
          fields: [],
          extends: [],
          exported,
        };
        state.declarations.set(declaration.name, { declaration, node: statement });
      } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        this.indexImport(state, statement, absolute);
      } else if (ts.isExportDeclaration(statement)) {
        this.indexExport(state, statement, absolute);
      }
    }
    // Comments not attached to a type declaration may carry only package markers.
    for (const range of this.comments.allCommentRanges(node)) {
      if (claimed.has(range.pos)) continue;
      const { markers } = this.comments.docAndMarkers(node, [range], 'package', undefined);
      state.packageMarkers.push(...markers);
    }
    state.indexed = true;
    return state;
  }

  private indexImport(state: FileState, statement: TypeScript.ImportDeclaration, absolute: string): void {
    const ts = this.ts;
    const specifier = (statement.moduleSpecifier as TypeScript.StringLiteral).text;
    const clause = statement.importClause;
    if (!clause?.namedBindings) return;
    const wellKnown = specifier === WELL_KNOWN_MODULE || specifier.startsWith(`${WELL_KNOWN_MODULE}/`);
    const relativeFile = specifier.startsWith('.') ? this.resolveRelative(absolute, specifier) : undefined;
    if (ts.isNamespaceImport(clause.namedBindings)) {
      if (wellKnown) state.imports.set(clause.namedBindings.name.text, { namespace: true });
      else if (relativeFile) state.imports.set(clause.namedBindings.name.text, { namespaceFile: relativeFile });
      return;
    }
    for (const element of clause.namedBindings.elements) {
      const imported = (element.propertyName ?? element.name).text;
      if (wellKnown) state.imports.set(element.name.text, { wellKnown: imported });
      else if (relativeFile) state.imports.set(element.name.text, { file: relativeFile, name: imported });
    }
  }

  /** Re-exports, so a type can be imported from an index file or under an exported alias. */
  private indexExport(state: FileState, statement: TypeScript.ExportDeclaration, absolute: string): void {
    const ts = this.ts;
    const specifier =
      statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    const clause = statement.exportClause;
    if (specifier === undefined) {
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements)
          state.exportAliases.set(element.name.text, (element.propertyName ?? element.name).text);
      }
      return;
    }
    const file = specifier.startsWith('.') ? this.resolveRelative(absolute, specifier) : undefined;
    if (!file) return;
    if (!clause) state.reexports.push({ file });
    else if (ts.isNamedExports(clause)) {
      state.reexports.push({
        file,
        names: new Map(clause.elements.map((e) => [e.name.text, (e.propertyName ?? e.name).text])),
      });
    }
  }

  /** The state of a project-relative file, read and resolved on first use. */
  private stateOf(file: string): FileState {
    const state = this.files.get(file) ?? this.fileState(this.program.fileAt(path.join(this.program.root, file))!);
    this.resolveFile(state);
    return state;
  }

  /** The declaration a file exports as `name`: declared there, aliased, or re-exported from another file. */
  private exportedDeclaration(file: string, name: string, seen = new Set<string>()): TypeDeclaration | undefined {
    const key = `${file}#${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const state = this.stateOf(file);
    const local = state.declarations.get(name);
    if (local) return local.declaration;
    const alias = state.exportAliases.get(name);
    if (alias !== undefined) {
      const aliased = state.declarations.get(alias);
      if (aliased) return aliased.declaration;
      const imported = state.imports.get(alias);
      if (imported && 'file' in imported) return this.exportedDeclaration(imported.file, imported.name, seen);
    }
    for (const reexport of state.reexports) {
      const original = reexport.names ? reexport.names.get(name) : name;
      if (original === undefined) continue;
      const found = this.exportedDeclaration(reexport.file, original, seen);
      if (found) return found;
    }
    return undefined;
  }

  private resolveRelative(fromAbsolute: string, specifier: string): string | undefined {
    const base = path.resolve(path.dirname(fromAbsolute), specifier);
    const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts'), base];
    for (const candidate of candidates) {
      if (!candidate.endsWith('.ts')) continue;
      const file = this.program.fileAt(candidate);
      if (file) return this.relative(file.fileName);
    }
    return undefined;
  }

  /** Pass 2: resolves every declaration's types in a file. */
  private resolveFile(state: FileState): void {
    if (state.resolved) return;
    state.resolved = true;
    const ts = this.ts;
    const sourceFile = state.sourceFile;
    for (const { declaration, node } of state.declarations.values())
      this.collect(() => {
        if (ts.isInterfaceDeclaration(node)) {
          const index = node.members.find(ts.isIndexSignatureDeclaration);
          if (index) {
            // `interface X { [key: string]: T }` is a map; mixing it with properties has no schema.
            declaration.aliasOf =
              node.members.length === 1 && index.type && !node.heritageClauses
                ? (indexKeyError(ts, index, declaration.name) ?? {
                    kind: 'map',
                    values: this.typeRef(state, index.type, sourceFile, declaration.name),
                    text: declaration.name,
                  })
                : {
                    kind: 'unresolved',
                    text: declaration.name,
                    reason:
                      'it mixes properties with an index signature; use a struct or a map (Record<string, T>), not both',
                  };
            return;
          }
          declaration.fields = this.members(state, node.members, sourceFile, declaration.name);
          for (const clause of node.heritageClauses ?? []) {
            for (const heritage of clause.types) {
              declaration.extends.push(
                this.resolveName(
                  state,
                  heritage.expression.getText(sourceFile),
                  heritage.typeArguments,
                  heritage,
                  sourceFile,
                ),
              );
            }
          }
        } else if (ts.isTypeAliasDeclaration(node)) {
          declaration.aliasOf = this.typeRef(state, node.type, sourceFile, declaration.name);
        } else if (ts.isEnumDeclaration(node)) {
          declaration.aliasOf = this.enumRef(node, sourceFile);
        }
      });
  }

  /** A TypeScript enum whose members all have string or number initialisers is an enum of those values. */
  private enumRef(node: TypeScript.EnumDeclaration, sourceFile: TypeScript.SourceFile): TypeRef {
    const ts = this.ts;
    const text = node.name.text;
    const values: (string | number)[] = [];
    for (const member of node.members) {
      const init = member.initializer;
      if (init && (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init))) values.push(init.text);
      else if (init && ts.isNumericLiteral(init)) values.push(Number(init.text));
      else if (
        init &&
        ts.isPrefixUnaryExpression(init) &&
        init.operator === ts.SyntaxKind.MinusToken &&
        ts.isNumericLiteral(init.operand)
      )
        values.push(-Number(init.operand.text));
      else {
        return {
          kind: 'unresolved',
          text,
          reason: `enum member ${member.name.getText(sourceFile)} has no literal value`,
          fix: "give every member a string value (A = 'a')",
        };
      }
    }
    return { kind: 'enum', values, text };
  }

  private members(
    state: FileState,
    members: TypeScript.NodeArray<TypeScript.TypeElement>,
    sourceFile: TypeScript.SourceFile,
    owner: string,
  ): FieldModel[] {
    const ts = this.ts;
    const fields: FieldModel[] = [];
    for (const member of members) {
      if (ts.isMethodSignature(member) || ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) {
        // A JSON object has only data; dropping such a member would silently lose a field.
        const name = member.name.getText(sourceFile);
        const accessor = !ts.isMethodSignature(member);
        fields.push({
          name,
          type: {
            kind: 'unresolved',
            text: member.getText(sourceFile).replace(/\s+/g, ' '),
            reason: accessor ? 'an accessor is not a property of the JSON object' : 'a method is not data',
            fix: accessor
              ? `declare a property instead (${name}?: <type>)`
              : 'remove it: API types hold only properties, and functions belong in your controller code',
          },
          optional: true,
          doc: '',
          markers: [],
          location: this.location(sourceFile, member.name.getStart(sourceFile)),
        });
        continue;
      }
      if (!ts.isPropertySignature(member)) continue;
      this.collect(() => {
        const name =
          ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)
            ? member.name.text
            : member.name.getText(sourceFile);
        const { attached, markerGroup, earlier } = this.comments.leadingComments(sourceFile, member);
        this.comments.refuseUnattachedMarkers(sourceFile, earlier);
        const { doc, markers } = this.comments.docAndMarkers(
          sourceFile,
          attached,
          'field',
          `${owner}: field "${name}"`,
        );
        markers.unshift(
          ...this.comments.docAndMarkers(sourceFile, markerGroup, 'field', `${owner}: field "${name}"`).markers,
        );
        const location = this.location(sourceFile, member.name.getStart(sourceFile));
        const type: TypeRef = member.type
          ? this.typeRef(state, member.type, sourceFile, `${owner}.${name}`)
          : { kind: 'unresolved', text: name, reason: 'the property has no type annotation' };
        fields.push({ name, type, optional: member.questionToken !== undefined, doc, markers, location });
      });
    }
    // Comments after the last property, before the closing brace, attach to nothing.
    this.comments.refuseUnattachedMarkers(sourceFile, ts.getLeadingCommentRanges(sourceFile.text, members.end) ?? []);
    return fields;
  }

  private typeRef(
    state: FileState,
    node: TypeScript.TypeNode,
    sourceFile: TypeScript.SourceFile,
    owner?: string,
  ): TypeRef {
    const ts = this.ts;
    const text = node.getText(sourceFile);
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { kind: 'string', text };
      case ts.SyntaxKind.BooleanKeyword:
        return { kind: 'boolean', text };
      case ts.SyntaxKind.NumberKeyword:
        return { kind: 'number', text };
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.ObjectKeyword:
        return { kind: 'untyped', text };
    }
    if (ts.isParenthesizedTypeNode(node)) return this.typeRef(state, node.type, sourceFile, owner);
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
      return this.typeRef(state, node.type, sourceFile, owner);
    if (ts.isArrayTypeNode(node))
      return { kind: 'array', items: this.typeRef(state, node.elementType, sourceFile, owner), text };
    if (ts.isLiteralTypeNode(node)) {
      const literal = literalValue(ts, node);
      if (literal !== undefined) return { kind: 'enum', values: [literal], text };
      return { kind: 'unresolved', text, reason: 'null is not a type on its own' };
    }
    if (ts.isTypeLiteralNode(node)) {
      const index = node.members.find(ts.isIndexSignatureDeclaration);
      if (index && node.members.length === 1 && index.type) {
        const keyError = indexKeyError(ts, index, text);
        if (keyError) return keyError;
        return { kind: 'map', values: this.typeRef(state, index.type, sourceFile, owner), text };
      }
      if (index)
        return {
          kind: 'unresolved',
          text,
          reason: 'it mixes properties with an index signature; use a struct or a map (Record<string, T>), not both',
        };
      return { kind: 'object', fields: this.members(state, node.members, sourceFile, owner ?? 'object'), text };
    }
    if (ts.isUnionTypeNode(node)) {
      const members = node.types.filter(
        (t) =>
          t.kind !== ts.SyntaxKind.UndefinedKeyword &&
          !(ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword),
      );
      if (members.length === 1) return this.typeRef(state, members[0]!, sourceFile, owner);
      const literals = members.map((m) => (ts.isLiteralTypeNode(m) ? literalValue(ts, m) : undefined));
      if (literals.includes(true) && literals.includes(false) && literals.length === 2)
        return { kind: 'boolean', text };
      if (literals.every((l) => l !== undefined))
        return { kind: 'enum', values: literals as (string | number | boolean)[], text };
      if (
        members.every(
          (m) =>
            m.kind === ts.SyntaxKind.BooleanKeyword ||
            (ts.isLiteralTypeNode(m) && typeof literalValue(ts, m) === 'boolean'),
        )
      ) {
        return { kind: 'boolean', text };
      }
      return { kind: 'union', members: members.map((m) => this.typeRef(state, m, sourceFile, owner)), text };
    }
    if (ts.isIntersectionTypeNode(node))
      return { kind: 'intersection', members: node.types.map((t) => this.typeRef(state, t, sourceFile, owner)), text };
    if (ts.isTypeReferenceNode(node))
      return this.resolveName(state, node.typeName.getText(sourceFile), node.typeArguments, node, sourceFile, owner);
    return { kind: 'unresolved', text, reason: 'this form of type has no schema', fix: typeFormFix(ts, node) };
  }

  private resolveName(
    state: FileState,
    name: string,
    typeArguments: TypeScript.NodeArray<TypeScript.TypeNode> | undefined,
    node: TypeScript.Node,
    sourceFile: TypeScript.SourceFile,
    owner?: string,
  ): TypeRef {
    const text = node.getText(sourceFile);
    const args = typeArguments ?? [];
    if ((name === 'Array' || name === 'ReadonlyArray') && args.length === 1)
      return { kind: 'array', items: this.typeRef(state, args[0]!, sourceFile, owner), text };
    if (name === 'Record' && args.length === 2) {
      const key = this.typeRef(state, args[0]!, sourceFile, owner);
      if (key.kind !== 'string')
        return {
          kind: 'unresolved',
          text,
          reason: 'map keys must be string',
          fix: 'JSON object keys are strings: use Record<string, T>',
        };
      return { kind: 'map', values: this.typeRef(state, args[1]!, sourceFile, owner), text };
    }
    const builtin = BUILTIN_TYPE_FIXES[name];
    if (builtin && !state.declarations.has(name) && !state.imports.has(name))
      return { kind: 'unresolved', text, reason: builtin.reason, fix: builtin.fix };
    if (args.length > 0) {
      return {
        kind: 'unresolved',
        text,
        reason: 'generic types have no schema',
        fix: 'declare a non-generic interface or type alias with the concrete field types (a structural schema has no type parameters, like Go API types)',
      };
    }
    const dot = name.indexOf('.');
    if (dot > 0) {
      const namespace = state.imports.get(name.slice(0, dot));
      if (namespace && 'namespace' in namespace) return { kind: 'wellKnown', name: name.slice(dot + 1), text };
      if (namespace && 'namespaceFile' in namespace) {
        const member = name.slice(dot + 1);
        const declaration = member.includes('.')
          ? undefined
          : this.exportedDeclaration(namespace.namespaceFile, member);
        if (declaration) return { kind: 'reference', name: member, target: declaration, text };
        return {
          kind: 'unresolved',
          text,
          reason: `${namespace.namespaceFile} exports no interface or type "${member}"`,
        };
      }
      const outer = state.declarations.get(name.slice(0, dot));
      if (outer && this.ts.isEnumDeclaration(outer.node)) {
        return {
          kind: 'unresolved',
          text,
          reason: 'an enum member is not a type kop reads',
          fix: `use the member's string literal, or the whole enum ${name.slice(0, dot)}`,
        };
      }
      const declaredAs = otherDeclarationKind(this.ts, sourceFile, name.slice(0, dot));
      if (declaredAs === 'namespace') {
        return {
          kind: 'unresolved',
          text,
          reason: 'types inside a namespace are not read',
          fix: 'declare the type at the top level of an API file (or a relatively imported file)',
        };
      }
      return {
        kind: 'unresolved',
        text,
        reason: `"${name.slice(0, dot)}" is not a namespace import of ${WELL_KNOWN_MODULE}`,
      };
    }
    const local = state.declarations.get(name);
    if (local) return { kind: 'reference', name, target: local.declaration, text };
    const imported = state.imports.get(name);
    if (imported && 'wellKnown' in imported) return { kind: 'wellKnown', name: imported.wellKnown, text };
    if (imported && 'file' in imported) {
      const declaration = this.exportedDeclaration(imported.file, imported.name);
      if (declaration) return { kind: 'reference', name, target: declaration, text };
      return { kind: 'unresolved', text, reason: `${imported.file} exports no interface or type "${imported.name}"` };
    }
    const declaredAs = otherDeclarationKind(this.ts, sourceFile, name);
    if (declaredAs === 'class')
      return {
        kind: 'unresolved',
        text,
        reason: `"${name}" is a class`,
        fix: `declare ${name} as an interface: kop reads interfaces and type aliases`,
      };
    const owningDeclaration = owner ? state.declarations.get(owner.split('.')[0]!) : undefined;
    const owningNode = owningDeclaration?.node;
    const typeParameters =
      owningNode && (this.ts.isInterfaceDeclaration(owningNode) || this.ts.isTypeAliasDeclaration(owningNode))
        ? owningNode.typeParameters
        : undefined;
    if (typeParameters?.some((p) => p.name.text === name)) {
      return {
        kind: 'unresolved',
        text,
        reason: `"${name}" is a type parameter, and a structural schema has none`,
        fix: 'write the concrete type in a non-generic declaration',
      };
    }
    return {
      kind: 'unresolved',
      text,
      reason: `"${name}" is not declared in this file, imported from a relative file, or imported from ${WELL_KNOWN_MODULE}`,
    };
  }
}

function literalValue(ts: typeof TypeScript, node: TypeScript.LiteralTypeNode): string | number | boolean | undefined {
  const literal = node.literal;
  if (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) return literal.text;
  if (ts.isNumericLiteral(literal)) return Number(literal.text);
  if (
    ts.isPrefixUnaryExpression(literal) &&
    ts.isNumericLiteral(literal.operand) &&
    literal.operator === ts.SyntaxKind.MinusToken
  ) {
    return -Number(literal.operand.text);
  }
  if (literal.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (literal.kind === ts.SyntaxKind.FalseKeyword) return false;
  return undefined;
}

/** What to write instead of built-in types that have no JSON schema. */
const BUILTIN_TYPE_FIXES: Record<string, { reason: string; fix: string }> = {
  Date: { reason: 'a Date does not survive JSON', fix: `use Time from ${WELL_KNOWN_MODULE} (an RFC 3339 string)` },
  Map: { reason: 'a Map does not survive JSON', fix: 'use Record<string, T> (a JSON object)' },
  ReadonlyMap: { reason: 'a Map does not survive JSON', fix: 'use Record<string, T> (a JSON object)' },
  Set: { reason: 'a Set does not survive JSON', fix: 'use T[] with +listType=set' },
  ReadonlySet: { reason: 'a Set does not survive JSON', fix: 'use T[] with +listType=set' },
  Partial: {
    reason: 'utility types are not read',
    fix: 'declare an interface with the fields you need (optional ones with ?), or one that extends the base interface',
  },
  Required: {
    reason: 'utility types are not read',
    fix: 'declare an interface with the fields you need, or one that extends the base interface',
  },
  Readonly: {
    reason: 'utility types are not read',
    fix: 'use the type itself; readonly makes no difference to the schema',
  },
  Pick: {
    reason: 'utility types are not read',
    fix: 'declare an interface with the fields you need, or one that extends the base interface',
  },
  Omit: {
    reason: 'utility types are not read',
    fix: 'declare an interface with the fields you need, or one that extends the base interface',
  },
  Exclude: { reason: 'utility types are not read', fix: "write the remaining string literals as a union ('a' | 'b')" },
  Extract: { reason: 'utility types are not read', fix: "write the remaining string literals as a union ('a' | 'b')" },
  NonNullable: { reason: 'utility types are not read', fix: 'use the type itself' },
  String: { reason: 'the wrapper object type String is not a JSON type', fix: 'use string' },
  Number: {
    reason: 'the wrapper object type Number is not a JSON type',
    fix: `use int32 or int64 from ${WELL_KNOWN_MODULE}`,
  },
  Boolean: { reason: 'the wrapper object type Boolean is not a JSON type', fix: 'use boolean' },
  Object: {
    reason: 'the type Object says nothing about the value',
    fix: `use JSON (any JSON value) or RawExtension (an embedded object) from ${WELL_KNOWN_MODULE}`,
  },
  BigInt: { reason: 'a bigint does not survive JSON', fix: `use int64 from ${WELL_KNOWN_MODULE}` },
  Function: { reason: 'a function is not data', fix: 'remove it: API types hold only properties' },
};

/** An index signature whose key is not `string`: JSON object keys are strings, as `Record` requires. */
function indexKeyError(
  ts: typeof TypeScript,
  index: TypeScript.IndexSignatureDeclaration,
  text: string,
): TypeRef | undefined {
  const key = index.parameters[0]?.type;
  if (!key || key.kind === ts.SyntaxKind.StringKeyword) return undefined;
  return {
    kind: 'unresolved',
    text,
    reason: 'map keys must be string',
    fix: 'JSON object keys are strings: use { [key: string]: T } or Record<string, T>',
  };
}

/** Whether `name` is declared in the file as something kop does not read (a class or namespace). */
function otherDeclarationKind(
  ts: typeof TypeScript,
  sourceFile: TypeScript.SourceFile,
  name: string,
): 'class' | 'namespace' | undefined {
  for (const statement of sourceFile.statements) {
    if (ts.isClassDeclaration(statement) && statement.name?.text === name) return 'class';
    if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name) && statement.name.text === name)
      return 'namespace';
  }
  return undefined;
}

/** What to write instead of a form of type that has no schema. */
function typeFormFix(ts: typeof TypeScript, node: TypeScript.TypeNode): string {
  if (ts.isTupleTypeNode(node))
    return 'use an array (T[]) with +kubebuilder:validation:MinItems/MaxItems, or an object with named fields';
  if (node.kind === ts.SyntaxKind.BigIntKeyword) return `use int64 from ${WELL_KNOWN_MODULE}`;
  if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return 'remove it: API types hold only data';
  if (ts.isTemplateLiteralTypeNode(node)) return 'use string with +kubebuilder:validation:Pattern=<regular expression>';
  if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.KeyOfKeyword)
    return "write the keys as a union of string literals ('a' | 'b')";
  if (ts.isIndexedAccessTypeNode(node))
    return 'write the type of that property itself, or give it a name both places use';
  if (ts.isTypeQueryNode(node)) return 'write the type out instead of taking it from a value';
  return `write it as string, boolean, int32/int64 (${WELL_KNOWN_MODULE}), an array, Record<string, T>, an interface or a union of string literals`;
}
