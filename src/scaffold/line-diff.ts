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
