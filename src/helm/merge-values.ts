import { isMap, isScalar, parseDocument, type Document } from 'yaml';

type Path = readonly (string | number)[];

function isPlainMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What {@link mergeValues} did, for the command's report. */
export interface ValuesMerge {
  text: string;
  /** Settings added (new in kop's values). */
  added: string[];
  /** Defaults the user had left alone that follow kop's new default. */
  updated: string[];
  /** Settings kop no longer writes that the user had left alone, removed. */
  removed: string[];
  /** Settings where the user's value differs from kop's new default and is kept. */
  kept: string[];
}

/**
 * A three-way merge of values.yaml, setting by setting (maps are walked, anything else is one
 * setting): `base` is what kop wrote last time, `ours` the file as it is now, `theirs` what kop
 * writes now. A setting the user changed (ours differs from base) is kept; one the user left alone
 * takes kop's new default; a new setting is added; one kop dropped goes, unless the user changed
 * it. Without a base (a chart from before kop recorded it), every value the user has is kept. The
 * user's comments, order and formatting survive: the file is edited, not rewritten.
 */
export function mergeValues(ours: string, theirs: string, base: string | undefined): ValuesMerge {
  const document = parseDocument(ours);
  if (document.errors.length > 0) throw new Error(`values.yaml is not valid YAML: ${document.errors[0]!.message}`);
  const theirsValue = parseDocument(theirs).toJS() as unknown;
  const baseValue = base === undefined ? undefined : (parseDocument(base).toJS() as unknown);
  const oursValue = document.toJS() as unknown;
  const result: ValuesMerge = { text: '', added: [], updated: [], removed: [], kept: [] };
  if (!isPlainMap(oursValue)) {
    // An empty or non-map file: nothing of the user's to keep.
    return { ...result, text: theirs, added: isPlainMap(theirsValue) ? Object.keys(theirsValue) : [] };
  }
  walk(document, [], oursValue, theirsValue, baseValue, base !== undefined, result);
  result.text = document.toString({ lineWidth: 0 });
  return result;
}

function walk(
  document: Document,
  path: Path,
  ours: unknown,
  theirs: unknown,
  base: unknown,
  hasBase: boolean,
  result: ValuesMerge,
): void {
  const name = path.join('.');
  if (isPlainMap(ours) && isPlainMap(theirs)) {
    for (const key of Object.keys(theirs)) {
      const child = [...path, key];
      if (!(key in ours)) {
        // A key the user deleted stays deleted when kop had written it before.
        if (hasBase && isPlainMap(base) && key in base && same(base[key], theirs[key])) continue;
        document.setIn(child, document.createNode(theirs[key]));
        result.added.push(child.join('.'));
        continue;
      }
      walk(
        document,
        child,
        ours[key],
        theirs[key],
        isPlainMap(base) ? base[key] : undefined,
        hasBase && isPlainMap(base) && key in base,
        result,
      );
    }
    if (hasBase && isPlainMap(base)) {
      for (const key of Object.keys(ours)) {
        if (!(key in theirs) && key in base && same(ours[key], base[key])) {
          document.deleteIn([...path, key]);
          result.removed.push([...path, key].join('.'));
        }
      }
    }
    return;
  }
  if (same(ours, theirs)) return;
  if (hasBase && same(ours, base)) {
    const node = document.getIn(path, true);
    // Keep the comment that sat on the old value's line.
    if (isScalar(node) && !isPlainMap(theirs) && !Array.isArray(theirs)) node.value = theirs;
    else document.setIn(path, document.createNode(theirs));
    result.updated.push(name);
    return;
  }
  if (!isMap(document.getIn(path, true)) || !isPlainMap(theirs)) result.kept.push(name);
}
