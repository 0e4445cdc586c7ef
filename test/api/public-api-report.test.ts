/**
 * The API report: every public entry point of kop (kop/runtime and its subpaths, kop/testing)
 * with each exported name and its signature, as the TypeScript checker sees them. The reports
 * live in test/api/reports/; a change of the public surface fails this test until the report is
 * updated (KOP_UPDATE_GOLDEN=1), so every such change shows in review. The kop/api types are
 * generated from the apiserver's OpenAPI and checked by core-types.test.ts instead.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type TS from 'typescript';
import { describe, expect, it } from 'vitest';
import { CLIENT_NODE_INDEX_LEFT_OUT } from '../helpers/ts-program-options.js';
import { ts } from '../helpers/typescript.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REPORTS = path.join(repo, 'test/api/reports');
const UPDATE = process.env.KOP_UPDATE_GOLDEN === '1';

/** Package subpath -> source entry, as package.json's exports map them (checked below). */
const ENTRIES: Record<string, string> = {
  'kop/runtime': 'src/runtime/index.ts',
  'kop/runtime/builtin': 'src/runtime/builtin/index.ts',
  'kop/runtime/client': 'src/runtime/client/index.ts',
  'kop/runtime/cache': 'src/runtime/cache/index.ts',
  'kop/runtime/queue': 'src/runtime/queue/index.ts',
  'kop/runtime/controller': 'src/runtime/controller/index.ts',
  'kop/runtime/manager': 'src/runtime/manager/index.ts',
  'kop/runtime/webhook': 'src/runtime/webhook/index.ts',
  'kop/testing': 'src/testing/index.ts',
};

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;

function report(program: TS.Program, entry: string): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path.join(repo, entry))!;
  const module = checker.getSymbolAtLocation(source)!;
  const lines: string[] = [];
  // Types named by the module they come from read as their plain names.
  const relative = (text: string): string => text.replace(/import\("[^"]*"(?:, \{ with: \{ [^}]* \} \})?\)\./g, '');
  for (const exported of [...checker.getExportsOfModule(module)].sort((a, b) =>
    a.getName().localeCompare(b.getName()),
  )) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const name = exported.getName();
    const declaration = symbol.declarations?.[0];
    if (!declaration) continue;
    if (symbol.flags & ts.SymbolFlags.Class) {
      lines.push(`class ${name}`);
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      for (const member of checker.getPropertiesOfType(instance)) {
        if (
          member.getName().startsWith('#') ||
          (member.valueDeclaration &&
            ts.getCombinedModifierFlags(member.valueDeclaration) &
              (ts.ModifierFlags.Private | ts.ModifierFlags.Protected))
        )
          continue;
        lines.push(
          `  ${member.getName()}: ${relative(checker.typeToString(checker.getTypeOfSymbolAtLocation(member, declaration), undefined, FLAGS))}`,
        );
      }
    } else if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
      lines.push(
        `${symbol.flags & ts.SymbolFlags.Function ? 'function' : 'const'} ${name}: ${relative(checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), undefined, FLAGS))}`,
      );
    } else if (symbol.flags & ts.SymbolFlags.Interface) {
      lines.push(`interface ${name}`);
      for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
        lines.push(
          `  ${member.getName()}${optional}: ${relative(checker.typeToString(checker.getTypeOfSymbolAtLocation(member, declaration), undefined, FLAGS))}`,
        );
      }
    } else if (symbol.flags & ts.SymbolFlags.TypeAlias) {
      lines.push(
        `type ${name} = ${relative(checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), undefined, FLAGS | ts.TypeFormatFlags.InTypeAlias))}`,
      );
    } else {
      lines.push(`${ts.SymbolFlags[symbol.flags] ?? 'export'} ${name}`);
    }
  }
  return `# API report: ${entry}\n\n\`\`\`ts\n${lines.join('\n')}\n\`\`\`\n`;
}

describe('public API report', () => {
  const program = ts.createProgram(
    Object.values(ENTRIES).map((entry) => path.join(repo, entry)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // tsconfig.json's lib: without it, ES2022's default lib brings the DOM's declarations, which src/ never sees.
      lib: ['lib.es2023.d.ts'],
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      // client-node's index left out: most of the program, and no exported signature takes a type from it.
      paths: CLIENT_NODE_INDEX_LEFT_OUT,
      // For the check of kop/runtime/client's declarations below: this program serves it too, rather than a
      // second one over the same files. noCheck only spares emit the full check of each file (tsc --noEmit
      // checks src/ already); the checker answers the reports' questions the same.
      declaration: true,
      emitDeclarationOnly: true,
      noCheck: true,
    },
  );

  it('package.json exports exactly these entry points', async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    const code = Object.entries(pkg.exports).filter(([key]) => key.startsWith('./runtime') || key === './testing');
    expect(
      Object.fromEntries(
        code.map(([key, value]) => [
          `kop${key.slice(1)}`,
          value.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'),
        ]),
      ),
    ).toEqual(ENTRIES);
  });

  for (const [subpath, entry] of Object.entries(ENTRIES)) {
    it(`${subpath} matches test/api/reports`, async () => {
      const file = path.join(REPORTS, `${subpath.replace(/\//g, '-')}.api.md`);
      const actual = report(program, entry);
      if (UPDATE) {
        await fs.mkdir(REPORTS, { recursive: true });
        await fs.writeFile(file, actual);
      }
      expect(
        actual,
        'the public API changed: check the change, then run with KOP_UPDATE_GOLDEN=1 to update the report',
      ).toBe(await fs.readFile(file, 'utf8'));
    });
  }

  it('the public face stays small: at most 40 names at the kop/runtime root, 200 over all entry points', async () => {
    // Counted from the reports, one per exported name, so the limits hold for what review sees.
    const counts: Record<string, number> = {};
    for (const subpath of Object.keys(ENTRIES)) {
      const text = await fs.readFile(path.join(REPORTS, `${subpath.replace(/\//g, '-')}.api.md`), 'utf8');
      counts[subpath] = text.split('\n').filter((line) => /^[A-Za-z]\S* \S/.test(line)).length;
    }
    expect(counts['kop/runtime']).toBeLessThanOrEqual(40);
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(200);
  });

  it('no name is exported by two entry points: each has one import path', () => {
    const checker = program.getTypeChecker();
    const owners = new Map<string, string[]>();
    for (const [subpath, entry] of Object.entries(ENTRIES)) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(path.join(repo, entry))!)!;
      for (const symbol of checker.getExportsOfModule(module))
        owners.set(symbol.getName(), [...(owners.get(symbol.getName()) ?? []), subpath]);
    }
    const shared = [...owners]
      .filter(([, subpaths]) => subpaths.length > 1)
      .map(([name, subpaths]) => `${name}: ${subpaths.join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('kop/runtime/client declares no `any` in its emitted declarations', () => {
    const clientDir = path.join(repo, 'src/runtime/client') + path.sep;
    const clientSources = program.getSourceFiles().filter((file) => path.resolve(file.fileName).startsWith(clientDir));
    expect(clientSources.length).toBeGreaterThan(0);
    const offenders: string[] = [];
    for (const file of clientSources) {
      program.emit(
        file,
        (fileName, text) => {
          const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
          const visit = (node: TS.Node): void => {
            if (node.kind === ts.SyntaxKind.AnyKeyword)
              offenders.push(`${path.basename(fileName)}: ${node.parent.getText(source)}`);
            ts.forEachChild(node, visit);
          };
          visit(source);
        },
        undefined,
        /* emitOnlyDtsFiles */ true,
      );
    }
    expect(offenders).toEqual([]);
  });

  it('kop/runtime keeps internals and the built-in descriptors off its root', () => {
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(path.join(repo, ENTRIES['kop/runtime']!))!)!;
    const names = checker.getExportsOfModule(module).map((s) => s.getName());
    for (const internal of ['Transport', 'TokenBucket', 'Informer', 'WorkQueue', 'RestClient', 'ResourceClient']) {
      expect(names).not.toContain(internal);
    }
    expect(names.filter((name) => /^[a-z]\w*V\d\w*Type$|^[a-z]\w*Type$/.test(name))).toEqual([]);
  });
});
