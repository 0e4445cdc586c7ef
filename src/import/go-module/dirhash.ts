/**
 * The `h1:` hash go.sum and the checksum database record for a module: SHA-256 over the lines
 * `<sha256 hex of file>  <file name>\n` of the module's files sorted by name, base64-encoded
 * (golang.org/x/mod/sumdb/dirhash, Hash1).
 */
import { createHash } from 'node:crypto';
import type { ZipEntry } from './zip-reader.js';

/** Hash1 of named file contents. */
export function hash1(files: ReadonlyArray<{ name: string; data: Buffer }>): string {
  const lines = [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, data }) => {
      if (name.includes('\n')) throw new Error(`file name with a newline: ${JSON.stringify(name)}`);
      return `${createHash('sha256').update(data).digest('hex')}  ${name}\n`;
    });
  return `h1:${createHash('sha256').update(lines.join('')).digest('base64')}`;
}

/** Hash1 of a module zip, over its entries as named in the zip (`<module>@<version>/...`). */
export function hashZip(entries: readonly ZipEntry[]): string {
  return hash1(entries.map((e) => ({ name: e.name, data: e.read() })));
}

/** Hash1 of a go.mod file, as the `/go.mod` line of go.sum records it. */
export function hashGoMod(goMod: Buffer): string {
  return hash1([{ name: 'go.mod', data: goMod }]);
}
