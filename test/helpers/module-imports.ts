import { readFileSync } from 'node:fs';
import { ts } from './typescript.js';

/** One import or re-export of a TypeScript file, read from its syntax alone. */
export interface ModuleImport {
  specifier: string;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
}

/** The static imports and re-exports of `file` (dynamic `import()` calls are not listed). */
export function moduleImports(file: string): ModuleImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: ModuleImport[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const spec = statement.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec)) continue;
    const typeOnly = ts.isImportDeclaration(statement)
      ? statement.importClause?.isTypeOnly === true
      : statement.isTypeOnly;
    found.push({ specifier: spec.text, typeOnly });
  }
  return found;
}
