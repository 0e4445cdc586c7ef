/**
 * Where the objects sit whose `metadata.managedFields` are cut: the `object` of a watch event
 * (`{"type":…,"object":{…,"metadata":{…}}}`) or each of a list's `items`.
 */
export type ManagedFieldsPlace = 'event' | 'list';

/**
 * Decodes `bytes[start, end)` (UTF-8 JSON) to text without the `metadata.managedFields` of the
 * objects at `place`, cut out of the bytes before anything is parsed; the text is decoded whole
 * when the field is not found exactly where the apiserver puts it.
 *
 * A cache that drops managedFields anyway parses them for nothing: they are a fifth of a 1 KB
 * ConfigMap and half of a Pod as JSON, and parsing them made up about 40% of the parse of a 1 KB
 * ConfigMap and its garbage (measured on Node 20). The walk follows the keys down to each
 * `metadata` and steps over every other value (strings whole, so text inside them never counts);
 * anything unexpected leaves the bytes as they are, and the cache's transform removes the field
 * after the parse as before.
 *
 * The cut is made in place: the bytes after each cut move down, so the text is decoded once,
 * from the buffer, with no copy on the JavaScript heap. `bytes` must be the caller's to change
 * (a body or watch chunk it read and reads nothing else from).
 */
export function decodeWithoutManagedFields(
  bytes: Buffer,
  start: number,
  end: number,
  place: ManagedFieldsPlace,
): string {
  const cuts: number[] = [];
  const ok = place === 'event' ? findInEvent(bytes, start, end, cuts) : findInList(bytes, start, end, cuts);
  if (!ok || cuts.length === 0) return bytes.toString('utf8', start, end);
  // Move the kept stretches down over the cut ones, in order.
  let to = cuts[0]!;
  for (let c = 0; c < cuts.length; c += 2) {
    const keptFrom = cuts[c + 1]!;
    const keptTo = c + 2 < cuts.length ? cuts[c + 2]! : end;
    bytes.copyWithin(to, keptFrom, keptTo);
    to += keptTo - keptFrom;
  }
  return bytes.toString('utf8', start, to);
}

/**
 * The text of one watch event without the object's `metadata.managedFields` (see
 * {@link decodeWithoutManagedFields}), or the text unchanged when the field is not found there.
 */
export function omitManagedFields(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return decodeWithoutManagedFields(bytes, 0, bytes.length, 'event');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** `"managedFields"` with its quotes, as bytes. */
const MANAGED_FIELDS = Buffer.from('"managedFields"');
const METADATA = Buffer.from('"metadata"');
const OBJECT = Buffer.from('"object"');
const ITEMS = Buffer.from('"items"');

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number, end: number): number {
  while (i < end && isSpace(b[i]!)) i++;
  return i;
}

/** Index just past the string that opens (with its quote) at `i`, or -1 when it never ends. */
function endOfString(b: Buffer, i: number, end: number): number {
  for (let k = i + 1; k < end; k++) {
    const c = b[k]!;
    if (c === QUOTE) return k + 1;
    // An escape takes the next byte with it (\" \\ \uXXXX alike).
    if (c === BACKSLASH) k++;
  }
  return -1;
}

/** Index just past the value that starts at `i` (any JSON value), or -1 when it never ends. */
function endOfValue(b: Buffer, i: number, end: number): number {
  const first = b[i];
  if (first === QUOTE) return endOfString(b, i, end);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    while (i < end) {
      const c = b[i]!;
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) return i;
      i++;
    }
    return -1;
  }
  let depth = 0;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) {
      i = endOfString(b, i, end);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

function keyIs(b: Buffer, from: number, to: number, key: Buffer): boolean {
  return to - from === key.length && b.compare(key, 0, key.length, from, to) === 0;
}

/**
 * Walks the members of the object that opens at `i`; `member(keyFrom, keyTo, valueAt)` returns
 * where the value ends, or a negative number that ends the walk and is returned (-1: give up,
 * {@link DONE}: stop). Returns the index just past the object otherwise.
 */
function eachMember(
  b: Buffer,
  i: number,
  end: number,
  member: (keyFrom: number, keyTo: number, valueAt: number) => number,
): number {
  if (b[i] !== OPEN_BRACE) return -1;
  i = skipSpace(b, i + 1, end);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const keyTo = endOfString(b, i, end);
    if (keyTo < 0) return -1;
    const colon = skipSpace(b, keyTo, end);
    if (b[colon] !== COLON) return -1;
    const valueAt = skipSpace(b, colon + 1, end);
    const valueEnd = member(i, keyTo, valueAt);
    if (valueEnd < 0) return valueEnd;
    i = skipSpace(b, valueEnd, end);
    if (b[i] === CLOSE_BRACE) return i + 1;
    if (b[i] !== COMMA) return -1;
    i = skipSpace(b, i + 1, end);
  }
}

/** Returned through the walk to end it early: what follows needs no look (JSON.parse checks it). */
const DONE = -2;

/**
 * Records the cut of `metadata.managedFields` in the object that opens at `i` (the member with a
 * comma next to it, so the rest stays valid JSON); returns the index just past the object, -1,
 * or, with `stopAfterMetadata`, {@link DONE} once the metadata was walked.
 */
function findInObject(b: Buffer, i: number, end: number, cuts: number[], stopAfterMetadata: boolean): number {
  return eachMember(b, i, end, (keyFrom, keyTo, valueAt) => {
    if (!keyIs(b, keyFrom, keyTo, METADATA) || b[valueAt] !== OPEN_BRACE) return endOfValue(b, valueAt, end);
    let previousEnd = -1;
    const metadataEnd = eachMember(b, valueAt, end, (fieldFrom, fieldTo, fieldAt) => {
      const fieldEnd = endOfValue(b, fieldAt, end);
      if (fieldEnd >= 0 && b[fieldAt] === OPEN_BRACKET && keyIs(b, fieldFrom, fieldTo, MANAGED_FIELDS)) {
        // After another member: cut from that member's end (its comma included); first: up to the next member.
        if (previousEnd >= 0) cuts.push(previousEnd, fieldEnd);
        else {
          let next = skipSpace(b, fieldEnd, end);
          if (b[next] === COMMA) next = skipSpace(b, next + 1, end);
          cuts.push(fieldFrom, next);
        }
      }
      previousEnd = fieldEnd;
      return fieldEnd;
    });
    return stopAfterMetadata && metadataEnd >= 0 ? DONE : metadataEnd;
  });
}

/** An event's object is walked up to the end of its metadata only: nothing after it is cut. */
function findInEvent(b: Buffer, start: number, end: number, cuts: number[]): boolean {
  const i = skipSpace(b, start, end);
  const after = eachMember(b, i, end, (keyFrom, keyTo, valueAt) =>
    keyIs(b, keyFrom, keyTo, OBJECT) ? findInObject(b, valueAt, end, cuts, true) : endOfValue(b, valueAt, end),
  );
  return after === DONE;
}

function findInList(b: Buffer, start: number, end: number, cuts: number[]): boolean {
  const i = skipSpace(b, start, end);
  const after = eachMember(b, i, end, (keyFrom, keyTo, valueAt) => {
    if (!keyIs(b, keyFrom, keyTo, ITEMS) || b[valueAt] !== OPEN_BRACKET) return endOfValue(b, valueAt, end);
    let k = skipSpace(b, valueAt + 1, end);
    if (b[k] === CLOSE_BRACKET) return k + 1;
    for (;;) {
      k = findInObject(b, k, end, cuts, false);
      if (k < 0) return -1;
      k = skipSpace(b, k, end);
      if (b[k] === CLOSE_BRACKET) return k + 1;
      if (b[k] !== COMMA) return -1;
      k = skipSpace(b, k + 1, end);
    }
  });
  return after >= 0 && skipSpace(b, after, end) === end;
}
