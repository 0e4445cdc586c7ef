/**
 * Which example a project kind's scaffolded webhooks carry. `kop create api` declares
 * `spec.foo?: string` as its sample field, and the webhook example defaults and validates that
 * field; but a kind's types may no longer have it (the user replaced it, as the types file asks)
 * or never had it (deploy-image kinds, kinds of other templates). Such a kind gets the example the
 * built-in and external kinds get (a label), so the scaffold compiles for any kind.
 */
import type { ts as TypeScript } from 'ts-morph';
import { loadTsMorph } from '../base/index.js';

/**
 * True when `<kind>Spec` in the types file has `foo` typed `string` and every member optional:
 * the webhook example sets and checks `spec.foo`, and its tests create objects with `spec: {}`
 * and `spec: { foo: ... }`, which compile only then.
 */
export async function specFitsFooExample(typesText: string, kind: string): Promise<boolean> {
  const { ts } = loadTsMorph();
  const source = ts.createSourceFile('types.ts', typesText, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const spec = source.statements.find(
    (s): s is TypeScript.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === `${kind}Spec`,
  );
  if (spec === undefined || spec.heritageClauses !== undefined || spec.typeParameters !== undefined) return false;
  let foo = false;
  for (const member of spec.members) {
    if (!ts.isPropertySignature(member) || member.questionToken === undefined) return false;
    const name = ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : undefined;
    if (name === 'foo') foo = member.type !== undefined && member.type.kind === ts.SyntaxKind.StringKeyword;
  }
  return foo;
}
