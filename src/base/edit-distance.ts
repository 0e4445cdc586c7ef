/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * adjacent characters each count one edit (a typo like `edti` is one edit from `edit`). With a
 * `limit`, it gives up once the distance must exceed it and returns `limit + 1`; suggestions
 * ("did you mean ...?") compare a word with many candidates and want only the close ones.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  // Three rows of the table: two back (for swaps), the previous one and the current one.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, beforePrevious[j - 2]! + 1);
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    // A swap reaches back two rows, so a row above the limit may still lead to one within it
    // only through the next row; stop when two rows in a row exceed it.
    if (rowMin > limit && Math.min(...previous) > limit) return limit + 1;
    beforePrevious = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, limit + 1);
}
