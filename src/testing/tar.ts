/**
 * A small streaming reader of tar archives (POSIX ustar, with pax and GNU long-name headers), enough
 * for the envtest archives `kop setup-envtest` downloads. It only parses: what to do with each entry
 * (and whether its name is safe) is the caller's decision, and nothing here touches the file system.
 */

const BLOCK = 512;
/** Extended headers (pax, GNU long names) larger than this are refused rather than buffered. */
const MAX_EXTENDED_HEADER = 1024 * 1024;

/** The kinds of entry a tar archive holds, by typeflag. */
export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

/** One entry of an archive, with extended headers (pax `path`/`linkpath`/`size`, GNU `L`/`K`) applied. */
export interface TarEntry {
  /** The name as stored (ustar prefix joined), not normalised or checked. */
  path: string;
  type: TarEntryType;
  /** The raw typeflag character, for messages about `other` entries. */
  typeflag: string;
  size: number;
  mode: number;
  /** Target of a symlink or hardlink; empty otherwise. */
  linkTarget: string;
}

/** Receives the data of one entry; returned by the caller's `onEntry` for the entries it keeps. */
export interface TarEntrySink {
  write(chunk: Buffer): void;
  /** Called after the entry's last byte. */
  end(): void;
}

/** The archive is not a well-formed tar stream (corrupt header, truncated, oversized metadata). */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

type State =
  | { kind: 'header' }
  | { kind: 'data'; remaining: number; padding: number; sink?: TarEntrySink }
  | { kind: 'extended'; typeflag: string; remaining: number; padding: number; parts: Buffer[] }
  | { kind: 'padding'; remaining: number }
  | { kind: 'done' };

/**
 * Reads `source` (the decompressed archive, in chunks of any size) and calls `onEntry` for each entry
 * in order; the entry's data goes to the sink it returns, or is skipped when it returns undefined.
 * Rejects with {@link TarFormatError} on a bad header checksum, an unparsable size, or a stream that
 * ends before the end-of-archive marker (a truncated archive).
 */
export async function readTar(
  source: AsyncIterable<Buffer>,
  onEntry: (entry: TarEntry) => TarEntrySink | undefined,
): Promise<void> {
  let state: State = { kind: 'header' };
  let pending: Buffer = Buffer.alloc(0);
  let pax: Record<string, string> = {};
  let globalPax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  let zeroBlocks = 0;

  const startEntry = (header: Buffer): State => {
    const typeflag = header[156] === 0 ? '0' : String.fromCharCode(header[156]!);
    const headerSize = parseNumber(header.subarray(124, 136), 'size');
    if (typeflag === 'x' || typeflag === 'g' || typeflag === 'L' || typeflag === 'K') {
      if (headerSize > MAX_EXTENDED_HEADER)
        throw new TarFormatError(`an extended header of ${headerSize} bytes is larger than ${MAX_EXTENDED_HEADER}`);
      return {
        kind: 'extended',
        typeflag,
        remaining: headerSize,
        padding: (BLOCK - (headerSize % BLOCK)) % BLOCK,
        parts: [],
      };
    }
    const size = pax.size === undefined ? headerSize : Number(pax.size);
    if (!Number.isSafeInteger(size) || size < 0)
      throw new TarFormatError(`a pax size "${pax.size}" is not a byte count: the archive is corrupt`);
    const magic = header.toString('latin1', 257, 262);
    const name = cString(header.subarray(0, 100));
    const prefix = magic === 'ustar' ? cString(header.subarray(345, 500)) : '';
    const entry: TarEntry = {
      path: longName ?? pax.path ?? globalPax.path ?? (prefix ? `${prefix}/${name}` : name),
      type: entryType(typeflag),
      typeflag,
      size,
      mode: parseNumber(header.subarray(100, 108), 'mode'),
      linkTarget: longLink ?? pax.linkpath ?? globalPax.linkpath ?? cString(header.subarray(157, 257)),
    };
    pax = {};
    longName = undefined;
    longLink = undefined;
    // Links, folders and devices carry no data (a hardlink's size field is ignored, as GNU tar does).
    const dataSize = entry.type === 'file' || entry.type === 'other' ? size : 0;
    const sink = onEntry(entry);
    if (dataSize === 0) {
      sink?.end();
      return { kind: 'header' };
    }
    return { kind: 'data', remaining: dataSize, padding: (BLOCK - (dataSize % BLOCK)) % BLOCK, sink };
  };

  const finishExtended = (typeflag: string, body: Buffer): void => {
    if (typeflag === 'L') longName = cString(body);
    else if (typeflag === 'K') longLink = cString(body);
    else if (typeflag === 'x') pax = { ...pax, ...parsePax(body) };
    else globalPax = { ...globalPax, ...parsePax(body) };
  };

  for await (const chunk of source) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let offset = 0;
    while (offset < pending.length) {
      if (state.kind === 'done') {
        offset = pending.length; // what follows the end marker (GNU tar pads to 10 KiB) is ignored
      } else if (state.kind === 'header') {
        if (pending.length - offset < BLOCK) break;
        const header = pending.subarray(offset, offset + BLOCK);
        offset += BLOCK;
        if (header.every((byte) => byte === 0)) {
          zeroBlocks++;
          if (zeroBlocks === 2) state = { kind: 'done' };
          continue;
        }
        if (zeroBlocks > 0) throw new TarFormatError('a header follows a single zero block: the archive is corrupt');
        verifyChecksum(header);
        state = startEntry(header);
      } else if (state.kind === 'data') {
        const take = Math.min(state.remaining, pending.length - offset);
        state.sink?.write(pending.subarray(offset, offset + take));
        offset += take;
        state.remaining -= take;
        if (state.remaining === 0) {
          state.sink?.end();
          state = { kind: 'padding', remaining: state.padding };
        }
      } else if (state.kind === 'extended') {
        const take = Math.min(state.remaining, pending.length - offset);
        state.parts.push(Buffer.from(pending.subarray(offset, offset + take)));
        offset += take;
        state.remaining -= take;
        if (state.remaining === 0) {
          finishExtended(state.typeflag, Buffer.concat(state.parts));
          state = { kind: 'padding', remaining: state.padding };
        }
      } else {
        const take = Math.min(state.remaining, pending.length - offset);
        offset += take;
        state.remaining -= take;
      }
      if (state.kind === 'padding' && state.remaining === 0) state = { kind: 'header' };
    }
    // Keep only an incomplete header; data already went to its sink.
    pending = offset >= pending.length ? Buffer.alloc(0) : Buffer.from(pending.subarray(offset));
  }
  if (state.kind !== 'done') {
    throw new TarFormatError(
      state.kind === 'header' && pending.length === 0
        ? 'the archive ends without its end-of-archive marker: it is truncated'
        : 'the archive ends in the middle of an entry: it is truncated',
    );
  }
}

function entryType(typeflag: string): TarEntryType {
  switch (typeflag) {
    case '0':
    case '7': // contiguous file: a regular file to every reader but one
      return 'file';
    case '5':
      return 'directory';
    case '2':
      return 'symlink';
    case '1':
      return 'hardlink';
    default:
      return 'other';
  }
}

/** The checksum field is the sum of the header's bytes with the field itself read as spaces. */
function verifyChecksum(header: Buffer): void {
  const stored = parseNumber(header.subarray(148, 156), 'checksum');
  let sum = 0;
  for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 0x20 : header[index]!;
  if (sum !== stored)
    throw new TarFormatError(`header checksum mismatch (stored ${stored}, computed ${sum}): the archive is corrupt`);
}

/** An octal ASCII field, or GNU's base-256 form (high bit of the first byte set) for large sizes. */
function parseNumber(field: Buffer, what: string): number {
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new TarFormatError(`the ${what} field is too large`);
    return value;
  }
  const text = cString(field).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text))
    throw new TarFormatError(`the ${what} field "${text}" is not an octal number: the archive is corrupt`);
  return parseInt(text, 8);
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.toString('utf8', 0, end === -1 ? field.length : end);
}

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function parsePax(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let offset = 0;
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset);
    const length = space === -1 ? NaN : Number(body.toString('latin1', offset, space));
    if (!Number.isSafeInteger(length) || length <= 0 || offset + length > body.length) {
      throw new TarFormatError('a pax extended header is malformed: the archive is corrupt');
    }
    const record = body.toString('utf8', space + 1, offset + length - 1);
    const equals = record.indexOf('=');
    if (equals > 0) records[record.slice(0, equals)] = record.slice(equals + 1);
    offset += length;
  }
  return records;
}
