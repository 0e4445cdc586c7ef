/**
 * A reader of the zip files the Go module proxy serves. Node has no unzip, and a module zip is
 * the simple case the Go toolchain guarantees (golang.org/x/mod/zip): regular files only, stored
 * or deflated, under 500 MiB, no zip64, no encryption. A few dozen lines over node:zlib cover it,
 * where a dependency would bring a general reader (and its advisories) to every kop install.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { KopError } from '../../base/index.js';

/** One file of a zip: its name and a function that inflates it (and checks its CRC-32). */
export interface ZipEntry {
  name: string;
  size: number;
  read(): Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** Go refuses module zips whose content exceeds this; so does kop. */
export const MAX_MODULE_ZIP_BYTES = 500 << 20;

/** The entries of `zip`, in the order of its central directory; `where` names the zip in errors. */
export function readZip(zip: Buffer, where: string): ZipEntry[] {
  const bad = (why: string) => new KopError(`${where}: not a valid module zip (${why})`);
  // The end record is the last 22 bytes, plus a comment of at most 64 KiB.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw bad('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  const directorySize = zip.readUInt32LE(end + 12);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw bad('zip64 archives are not module zips');
  if (at + directorySize > end) throw bad('central directory out of bounds');
  const entries: ZipEntry[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw bad(`central directory entry ${i}`);
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 1) throw bad(`${name} is encrypted`);
    if (method !== 0 && method !== 8) throw bad(`${name} uses compression method ${method}`);
    total += size;
    if (total > MAX_MODULE_ZIP_BYTES) throw bad('more than 500 MiB of content');
    entries.push({
      name,
      size,
      read() {
        if (localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER)
          throw bad(`local header of ${name}`);
        const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
        if (start + compressedSize > zip.length) throw bad(`${name} runs past the end`);
        const raw = zip.subarray(start, start + compressedSize);
        const data = method === 0 ? Buffer.from(raw) : inflateRawSync(raw, { maxOutputLength: size + 1 });
        if (data.length !== size || crc32(data) !== crc) throw bad(`${name} fails its CRC or size`);
        return data;
      },
    });
  }
  return entries;
}
