/**
 * Stage 4 of `kop import crd`: declarations to the text of a types file, with doc comments that
 * kop's comment reader (schema/comments.ts) gives back exactly: a JSDoc block, or `//` lines
 * when some line holds `*\/`, which would end a block.
 */
import { WELL_KNOWN_MODULE } from '../schema/index.js';
import { propertyKey } from './schema-to-types.js';
import type { KindTypes } from './type-declarations.js';

/** The text of `api/<group>/<version>/<kind>.types.ts`. */
export function renderTypesFile(
  types: KindTypes,
  header: { licenseHeader: string; banner: readonly string[] },
): string {
  const out: string[] = [];
  if (header.licenseHeader) out.push(header.licenseHeader.trimEnd(), '');
  const imports = [...types.imports]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, local]) => (name === local ? name : `${name} as ${local}`));
  if (imports.length > 0) out.push(`import type { ${imports.join(', ')} } from '${WELL_KNOWN_MODULE}';`, '');
  for (const line of header.banner) out.push(line === '' ? '//' : `// ${line}`);
  for (const declaration of types.declarations) {
    out.push('');
    const comment = renderComment(declaration.doc, declaration.markers, '');
    if (comment) out.push(comment);
    if (declaration.kind === 'alias') {
      out.push(`export type ${declaration.name} = ${declaration.aliasOf};`);
      continue;
    }
    if (declaration.fields.length === 0) {
      out.push(`export interface ${declaration.name} {}`);
      continue;
    }
    out.push(`export interface ${declaration.name} {`);
    for (const field of declaration.fields) {
      const fieldComment = renderComment(field.doc, field.markers, '  ');
      if (fieldComment) out.push(fieldComment);
      out.push(`  ${propertyKey(field.name)}${field.optional ? '?' : ''}: ${field.type};`);
    }
    out.push('}');
  }
  return `${out.join('\n')}\n`;
}

/** A doc comment holding `doc` and then the marker lines; '' when there is nothing to say. */
export function renderComment(doc: string, markers: readonly string[], indent: string): string {
  const lines = [...(doc === '' ? [] : doc.split('\n')), ...markers];
  if (lines.length === 0) return '';
  // A doc comment cannot hold a star-slash, and reads an escaped one (`*\/`) in a description as
  // one: `//` lines keep both as they are. (Marker values escape it inside JSON quotes, where `\/` is `/` anyway.)
  if (lines.some((line) => line.includes('*/')) || doc.includes('*\\/'))
    return lines.map((line) => (line === '' ? `${indent}//` : `${indent}// ${line}`)).join('\n');
  if (lines.length === 1 && !lines[0]!.startsWith(' ') && lines[0]!.length < 100) return `${indent}/** ${lines[0]} */`;
  return [
    `${indent}/**`,
    ...lines.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)),
    `${indent} */`,
  ].join('\n');
}
