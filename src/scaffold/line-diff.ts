/**
 * A short line diff for the plan: what `--force` is about to change in a file the user owns, so
 * it is never overwritten unseen. Longest common subsequence over lines; large files are
 * summarised instead of compared (the table grows with the product of their lengths).
 */
export function lineDiff(before: string, after: string, maxLines = 40): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > 4_000_000) return [`  (${a.length} lines -> ${b.length} lines; too large to compare here)`];
  // lengths[i][j]: LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let changed = 0;
  let i = 0;
  let j = 0;
  const push = (line: string): void => {
    changed++;
    if (out.length < maxLines) out.push(line);
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lengths[i]![j + 1]! >= lengths[i + 1]![j]!)) {
      push(`  +${b[j++]}`);
    } else {
      push(`  -${a[i++]}`);
    }
  }
  if (changed > out.length) out.push(`  ... ${changed - out.length} more changed lines`);
  return out;
}

/**
 * For each line of `a`, the index of the line of `b` it is matched with in a longest common
 * subsequence of the two, or -1; matched indexes increase. Common leading and trailing lines are
 * matched directly, so only the middle costs the table (the product of its lengths).
 */
export function matchLines(a: readonly string[], b: readonly string[]): number[] {
  const match = new Array<number>(a.length).fill(-1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    match[start] = start;
    start++;
  }
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
    match[endA] = endB;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return match;
  if (n * m > 25_000_000) throw new Error(`cannot compare ${n} with ${m} changed lines: too large`);
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i]![j] =
        a[start + i] === b[start + j]
          ? lengths[i + 1]![j + 1]! + 1
          : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      match[start + i] = start + j;
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return match;
}

/** Labels of the conflict markers: `<<<<<<< ours`, `=======`, `>>>>>>> theirs`. */
export interface MergeLabels {
  ours: string;
  theirs: string;
}

/** The outcome of a three-way merge of lines. */
export interface LineMerge {
  /** The merged text, with conflict markers where both sides changed the same lines differently. */
  text: string;
  /** How many conflict blocks the text holds. */
  conflicts: number;
}

/**
 * A three-way merge of text by lines (diff3): `base` is the common ancestor, `ours` and `theirs`
 * two edits of it. Lines both sides kept are the anchors; between two anchors, a stretch changed
 * on one side only takes that side, one changed identically on both sides is taken once, and one
 * changed differently on both sides becomes a conflict block (lines both sides share at its start
 * and end stay outside the markers).
 */
export function mergeLines(
  base: string,
  ours: string,
  theirs: string,
  labels: MergeLabels = { ours: 'ours', theirs: 'theirs' },
): LineMerge {
  const o = base.split('\n');
  const a = ours.split('\n');
  const b = theirs.split('\n');
  const toOurs = matchLines(o, a);
  const toTheirs = matchLines(o, b);
  const out: string[] = [];
  let conflicts = 0;
  let i = 0;
  let j = 0;
  let k = 0;
  const same = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((line, index) => line === y[index]);
  while (i < o.length || j < a.length || k < b.length) {
    // The next base line both sides kept (at or after i), or the ends of all three.
    let next = i;
    while (next < o.length && (toOurs[next] === -1 || toTheirs[next] === -1)) next++;
    const endA = next < o.length ? toOurs[next]! : a.length;
    const endB = next < o.length ? toTheirs[next]! : b.length;
    if (next === i && endA === j && endB === k) {
      if (next < o.length) out.push(o[next]!);
      i++;
      j++;
      k++;
      continue;
    }
    const baseChunk = o.slice(i, next);
    const oursChunk = a.slice(j, endA);
    const theirsChunk = b.slice(k, endB);
    if (same(oursChunk, baseChunk)) out.push(...theirsChunk);
    else if (same(theirsChunk, baseChunk) || same(oursChunk, theirsChunk)) out.push(...oursChunk);
    else {
      let head = 0;
      while (head < oursChunk.length && head < theirsChunk.length && oursChunk[head] === theirsChunk[head]) head++;
      let tail = 0;
      while (
        tail < oursChunk.length - head &&
        tail < theirsChunk.length - head &&
        oursChunk[oursChunk.length - 1 - tail] === theirsChunk[theirsChunk.length - 1 - tail]
      )
        tail++;
      out.push(...oursChunk.slice(0, head));
      out.push(
        `<<<<<<< ${labels.ours}`,
        ...oursChunk.slice(head, oursChunk.length - tail),
        '=======',
        ...theirsChunk.slice(head, theirsChunk.length - tail),
        `>>>>>>> ${labels.theirs}`,
      );
      out.push(...oursChunk.slice(oursChunk.length - tail));
      conflicts++;
    }
    i = next;
    j = endA;
    k = endB;
  }
  return { text: out.join('\n'), conflicts };
}
