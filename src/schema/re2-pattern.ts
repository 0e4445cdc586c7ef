/**
 * The apiserver compiles a CRD's `pattern` with Go's regexp package (RE2 syntax) and refuses the
 * CRD when it does not compile. A TypeScript user reaches for JavaScript's regex syntax, much of
 * which RE2 does not have; this finds those constructs at generate time so the error names the
 * marker's file and line instead of `kubectl apply` failing later.
 */

/** Why RE2 refuses `pattern`, or undefined when nothing RE2 refuses was found. */
export function re2PatternProblem(pattern: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return 'it ends with a lone backslash';
      if (/[1-9]/.test(next)) return `\\${next} is a backreference, which RE2 does not support`;
      if (next === 'k' && pattern[i + 2] === '<') return '\\k<name> is a named backreference, which RE2 does not support';
      i++;
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      if (end === undefined) return 'a character class [ is never closed';
      i = end;
      continue;
    }
    if (c === '(') {
      const head = pattern.slice(i, i + 4);
      if (head.startsWith('(?=') || head.startsWith('(?!')) return `${head.slice(0, 3)} is a lookahead, which RE2 does not support`;
      if (head.startsWith('(?<=') || head.startsWith('(?<!')) return `${head} is a lookbehind, which RE2 does not support`;
      if (head.startsWith('(?>')) return '(?> is an atomic group, which RE2 does not support';
      depth++;
      continue;
    }
    if (c === ')') {
      if (--depth < 0) return 'a ) has no matching (';
      continue;
    }
    if (c === '{') {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (repeat) {
        const counts = [repeat[1], repeat[3]].filter((n) => n !== undefined && n !== '').map(Number);
        if (counts.some((n) => n > 1000)) return `the repeat count ${repeat[0]} is over 1000, RE2's limit`;
        if (counts.length === 2 && counts[0]! > counts[1]!) return `the repeat count ${repeat[0]} has its minimum above its maximum`;
        i += repeat[0].length - 1;
        if (pattern[i + 1] === '+') return `${repeat[0]}+ is a possessive quantifier, which RE2 does not support`;
      }
      continue;
    }
    if ((c === '*' || c === '+' || c === '?') && pattern[i + 1] === '+') return `${c}+ is a possessive quantifier, which RE2 does not support`;
  }
  if (depth > 0) return 'a ( is never closed';
  return undefined;
}

/** Index of the `]` closing the class opened at `start`, or undefined. */
function classEnd(pattern: string, start: number): number | undefined {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a leading ] is a literal
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      if (close !== -1) i = close + 1;
    } else if (pattern[i] === ']') return i;
  }
  return undefined;
}
