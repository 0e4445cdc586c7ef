/**
 * The one YAML writer of kop's generators: CRDs, roles, webhook configurations, the
 * kustomize files `kop generate` writes. A small emitter for JSON data: sorted keys, block
 * sequences at the parent's indentation (as controller-gen writes them), `|-` blocks for
 * multi-line text, plain scalars where YAML reads them back as the same string and JSON
 * double quotes otherwise. It exists because CRDs embedding core types run to megabytes
 * and a general YAML library spends most of `kop generate manifests` formatting them.
 */

import { GENERATED_HEADER } from './header.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json } | undefined;

/** Serialises JSON data as YAML (one document, ending with a newline). */
export function toYaml(value: unknown): string {
  const out: string[] = [];
  emitValue(value as Json, '', out, 'top');
  return out.join('');
}

/**
 * A generated YAML file of one document: the generated-file header, then `notes` as comment
 * lines (what the file is for), then the document, with no `---`.
 */
export function generatedYaml(value: unknown, notes: readonly string[] = []): string {
  return `# ${GENERATED_HEADER}\n${notes.map((note) => `# ${note}\n`).join('')}${toYaml(value)}`;
}

/** A generated YAML file of several objects: the generated-file header, then each object as a `---` document. */
export function generatedYamlDocuments(documents: readonly unknown[]): string {
  return `# ${GENERATED_HEADER}\n${documents.map((document) => `---\n${toYaml(document)}`).join('')}`;
}

function emitValue(value: Json, indent: string, out: string[], position: 'top' | 'mapValue' | 'seqItem'): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return void out.push(position === 'top' ? '[]\n' : ' []\n');
    if (position === 'mapValue') out.push('\n');
    value.forEach((item, i) => {
      // A sequence item continues the line of "- "; the first key of a mapping item sits on that line.
      out.push(i === 0 && position === 'seqItem' ? '- ' : `${indent}- `);
      emitValue(item, `${indent}  `, out, 'seqItem');
    });
    return;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort(compareKeys);
    if (keys.length === 0) return void out.push(position === 'top' ? '{}\n' : ' {}\n');
    if (position === 'mapValue') out.push('\n');
    keys.forEach((key, i) => {
      const prefix = i === 0 && position === 'seqItem' ? '' : indent;
      out.push(`${prefix}${scalarKey(key)}:`);
      const child = value[key]!;
      emitValue(child, Array.isArray(child) ? indent : `${indent}  `, out, 'mapValue');
    });
    return;
  }
  const separator = position === 'mapValue' ? ' ' : '';
  if (typeof value === 'string' && isBlockText(value)) {
    out.push(`${separator}|-\n`);
    for (const line of value.split('\n')) out.push(line === '' ? '\n' : `${indent}${line}\n`);
    return;
  }
  out.push(`${separator}${scalar(value ?? null)}\n`);
}

/** Keys in code-point order, like Go's sorted map keys. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function scalarKey(key: string): string {
  return isPlainSafe(key) ? key : JSON.stringify(key);
}

function scalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as YAML`);
    return JSON.stringify(value);
  }
  return isPlainSafe(value) ? value : JSON.stringify(value);
}

/** Words YAML 1.1 or 1.2 parsers read as booleans or null. */
const RESERVED = /^(?:true|false|yes|no|y|n|on|off|null|~)$/i;
/** Anything a YAML parser may read as a number (ints, floats, hex, octal, sexagesimal, .inf, .nan). */
const NUMBER_LIKE = /^[-+]?(?:\.?[0-9]|\.(?:inf|nan)$)|^0[xo]|^[-+]?\.(?:inf|nan)$|^\.(?:inf|nan)$/i;

/** True when `text` written plain reads back as the same string. */
function isPlainSafe(text: string): boolean {
  if (text === '' || text.trim() !== text) return false;
  if (RESERVED.test(text) || NUMBER_LIKE.test(text)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text)) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f-\u009f\ufeff\u2028\u2029]/.test(text)) return false;
  if (text.includes(': ') || text.includes(' #') || text.endsWith(':')) return false;
  return true;
}

/** Multi-line text that a literal block keeps exactly: no trailing spaces or newline, no leading space, printable. */
function isBlockText(text: string): boolean {
  if (!text.includes('\n') || text.endsWith('\n') || text.startsWith(' ') || text.startsWith('\n')) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufeff\u2028\u2029]/.test(text)) return false;
  return text.split('\n').every((line) => line === line.trimEnd());
}
