/**
 * The apiserver compiles a CRD's `pattern` with Go's regexp package (RE2 syntax) and refuses the
 * CRD when it does not compile. A TypeScript user reaches for JavaScript's regex syntax, much of
 * which RE2 does not have; this reads the pattern as Go's regexp/syntax parser does (Perl flags,
 * as regexp.Compile uses) so the error names the marker's file and line instead of `kubectl
 * apply` failing later. It follows Go's rules, not JavaScript's: `\u00e9`, `\cA`, `\e` and a
 * `*` with nothing before it are refused; `(?i)`, `[[:alpha:]]`, `\pL`, `\Q...\E`, `\12`
 * (octal) and `a{,3}` (a literal `{`) are accepted, as RE2 accepts them.
 */

/** The POSIX classes RE2 knows inside brackets, `[[:alpha:]]` and `[[:^alpha:]]`. */
const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'word',
  'xdigit',
]);
/** The letters RE2 accepts after a backslash as a single character (`\n`) or a Perl class (`\d`). */
const CHARACTER_ESCAPES = new Set(['a', 'f', 'n', 'r', 't', 'v']);
const PERL_CLASSES = new Set(['d', 'D', 's', 'S', 'w', 'W']);

/** A problem found at some point of the pattern. */
class Refusal {
  constructor(readonly reason: string) {}
}

/** Why RE2 refuses `pattern`, or undefined when RE2 compiles it. */
export function re2PatternProblem(pattern: string): string | undefined {
  try {
    checkPattern(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error.reason;
    throw error;
  }
}

function refuse(reason: string): never {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel caught in re2PatternProblem; it never escapes
  throw new Refusal(reason);
}

function checkPattern(pattern: string): void {
  let i = 0;
  let depth = 0;
  /** Whether the last thing read can be repeated: false at the start, after `(` and `|`. */
  let operand = false;
  /** The repetition operator just read, if the last thing read was one (RE2 refuses `a**`). */
  let lastRepeat: string | undefined;
  while (i < pattern.length) {
    const c = pattern[i]!;
    let repeat: string | undefined;
    if (c === '(') {
      const group = openGroup(pattern, i);
      i = group.end;
      // (?i) only sets flags: it opens nothing, and what came before it can still be repeated.
      if (!group.flagsOnly) {
        depth++;
        operand = false;
      }
    } else if (c === ')') {
      if (--depth < 0) refuse('a ) has no matching (');
      operand = true;
      i++;
    } else if (c === '|') {
      operand = false;
      i++;
    } else if (c === '[') {
      i = classEnd(pattern, i);
      operand = true;
    } else if (c === '\\') {
      i = escapeEnd(pattern, i, false);
      operand = true;
    } else if (c === '*' || c === '+' || c === '?') {
      repeat = c;
      i++;
    } else if (c === '{') {
      const counts = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (counts) {
        const numbers = [counts[1], counts[3]].filter((n) => n !== undefined && n !== '').map(Number);
        if (numbers.some((n) => n > 1000)) refuse(`the repeat count ${counts[0]} is over 1000, RE2's limit`);
        if (numbers.length === 2 && numbers[0]! > numbers[1]!)
          refuse(`the repeat count ${counts[0]} has its minimum above its maximum`);
        repeat = counts[0];
        i += counts[0].length;
      } else {
        // A { that does not start a repeat count is a literal in RE2 (a{,3} included).
        operand = true;
        i++;
      }
    } else {
      // ^ and $ are operators RE2 lets a repetition follow (^* compiles); any other character is a literal.
      operand = true;
      i++;
    }
    if (repeat !== undefined) {
      if (pattern[i] === '?') i++; // lazy
      if (lastRepeat !== undefined) {
        refuse(
          pattern[i - 1] === '+' && repeat === '+'
            ? `${lastRepeat}+ is a possessive quantifier, which RE2 does not support`
            : `${lastRepeat}${repeat} repeats a repetition, which RE2 refuses`,
        );
      }
      if (!operand) refuse(`${repeat} has nothing before it to repeat`);
      lastRepeat = repeat;
    } else {
      lastRepeat = undefined;
    }
  }
  if (depth > 0) refuse('a ( is never closed');
}

/** Reads the opening of a group at `start` (`(`, `(?:`, `(?P<name>`, `(?<name>`, `(?i)`, `(?i:`): the index after it, and whether it only set flags. */
function openGroup(pattern: string, start: number): { end: number; flagsOnly: boolean } {
  if (pattern[start + 1] !== '?') return { end: start + 1, flagsOnly: false };
  const rest = pattern.slice(start);
  if (rest.startsWith('(?=') || rest.startsWith('(?!'))
    refuse(`${rest.slice(0, 3)} is a lookahead, which RE2 does not support`);
  if (rest.startsWith('(?<=') || rest.startsWith('(?<!'))
    refuse(`${rest.slice(0, 4)} is a lookbehind, which RE2 does not support`);
  if (rest.startsWith('(?>')) refuse('(?> is an atomic group, which RE2 does not support');
  const named = /^\(\?P?<([^>]*)>/.exec(rest);
  if (rest.startsWith('(?P<') || rest.startsWith('(?<')) {
    if (!named) refuse('a named group (?<name> is never closed with >');
    if (!/^\w+$/.test(named[1]!)) refuse(`"${named[1]}" is not a group name RE2 accepts (letters, digits and _)`);
    return { end: start + named[0].length, flagsOnly: false };
  }
  if (rest.startsWith('(?P=')) refuse('(?P=name) is a named backreference, which RE2 does not support');
  // Flags: (?flags) or (?flags:...), flags from i m s U with at most one -, which must be followed by a flag.
  const flags = /^\(\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
  if (!flags || (rest[2 + flags[1]!.length] === '-' && flags[2] === '')) {
    refuse(
      `${rest.slice(0, Math.min(rest.length, 4))} is not a group RE2 knows (it has (?:...), (?P<name>...), (?<name>...) and the flags i, m, s, U)`,
    );
  }
  return { end: start + flags[0].length, flagsOnly: flags[3] === ')' };
}

/** Reads the escape at `start` (a backslash); returns the index after it. `inClass`: inside [...], where \A, \b, \z and \Q are not escapes. */
function escapeEnd(pattern: string, start: number, inClass: boolean): number {
  const c = pattern[start + 1];
  if (c === undefined) refuse('it ends with a lone backslash');
  if (!inClass) {
    if (c === 'A' || c === 'z' || c === 'b' || c === 'B') return start + 2;
    if (c === 'Q') {
      const end = pattern.indexOf('\\E', start + 2);
      return end < 0 ? pattern.length : end + 2;
    }
    if (c === 'C') refuse('\\C (any byte) is not supported by RE2 in Go');
  }
  if (c === 'p' || c === 'P') {
    if (pattern[start + 2] === '{') {
      const close = pattern.indexOf('}', start + 3);
      if (close < 0) refuse(`\\${c}{ is never closed with }`);
      const name = pattern.slice(start + 3, close);
      if (!/^\^?[A-Za-z_]+$/.test(name))
        refuse(`\\${c}{${name}} is not a Unicode class RE2 knows (write \\p{Greek} or \\p{Lu}, not Script= or gc=)`);
      return close + 1;
    }
    if (!/[A-Za-z]/.test(pattern[start + 2] ?? '')) refuse(`\\${c} needs a class name, as \\pL or \\p{Greek}`);
    return start + 3;
  }
  if (PERL_CLASSES.has(c) || CHARACTER_ESCAPES.has(c)) return start + 2;
  if (c >= '1' && c <= '7') {
    // A digit and an octal digit are an octal code (\12); a lone \1 is a backreference.
    if (!/[0-7]/.test(pattern[start + 2] ?? '')) refuse(`\\${c} is a backreference, which RE2 does not support`);
    return start + 2 + (/^[0-7]{1,2}/.exec(pattern.slice(start + 2))?.[0].length ?? 0);
  }
  if (c === '0') return start + 2 + (/^[0-7]{0,2}/.exec(pattern.slice(start + 2))?.[0].length ?? 0);
  if (c === '8' || c === '9') refuse(`\\${c} is a backreference, which RE2 does not support`);
  if (c === 'x') {
    const hex = /^\{([0-9A-Fa-f]+)\}|^[0-9A-Fa-f]{2}/.exec(pattern.slice(start + 2));
    if (!hex || (hex[1] !== undefined && parseInt(hex[1], 16) > 0x10ffff))
      refuse('\\x needs two hex digits or {hex}, as \\x41 or \\x{263a}');
    return start + 2 + hex[0].length;
  }
  if (c === 'k' && pattern[start + 2] === '<') refuse('\\k<name> is a named backreference, which RE2 does not support');
  if (c === 'u') refuse('\\u is not an escape in RE2; write \\x{hex} (\\x{e9} for \\u00e9)');
  if (c === 'c') refuse('\\c (a control character) is not an escape in RE2; write \\x{hex}');
  // Punctuation may be escaped; any other letter, digit or non-ASCII character may not.
  if (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9]/.test(c)) return start + 2;
  refuse(`\\${c} is not an escape RE2 knows`);
}

/** Reads the character class at `start` (a `[`); returns the index after its `]`. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  let first = true; // a ] first in the class is a literal
  while (i >= pattern.length || pattern[i] !== ']' || first) {
    if (i >= pattern.length) refuse('a character class [ is never closed');
    first = false;
    if (pattern.startsWith('[:', i)) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(i));
      if (posix) {
        if (!POSIX_CLASSES.has(posix[2]!)) refuse(`[:${posix[2]}:] is not a POSIX class RE2 knows`);
        i += posix[0].length;
        continue;
      }
    }
    if (
      pattern[i] === '\\' &&
      (PERL_CLASSES.has(pattern[i + 1] ?? '') || pattern[i + 1] === 'p' || pattern[i + 1] === 'P')
    ) {
      i = escapeEnd(pattern, i, true);
      continue;
    }
    const lowStart = i;
    const [low, afterLow] = classChar(pattern, i);
    i = afterLow;
    if (pattern[i] === '-' && i + 1 < pattern.length && pattern[i + 1] !== ']') {
      const [high, afterHigh] = classChar(pattern, i + 1);
      if (high < low) refuse(`the range ${pattern.slice(lowStart, afterHigh)} in a character class runs backwards`);
      i = afterHigh;
    }
  }
  return i + 1;
}

/** One character of a class (a literal or an escape) at `at`: its code point and the index after it. */
function classChar(pattern: string, at: number): [number, number] {
  if (at >= pattern.length) refuse('a character class [ is never closed');
  if (pattern[at] !== '\\') {
    const code = pattern.codePointAt(at)!;
    return [code, at + (code > 0xffff ? 2 : 1)];
  }
  const end = escapeEnd(pattern, at, true);
  const escape = pattern.slice(at + 1, end);
  // A class such as \d may stand alone in brackets, not end a range.
  if (PERL_CLASSES.has(escape) || /^[pP]/.test(escape)) refuse(`\\${escape} cannot end a range in a character class`);
  const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
  if (escape in simple) return [simple[escape]!, end];
  if (escape.startsWith('x')) return [parseInt(escape.replace(/^x\{?|\}$/g, ''), 16), end];
  if (/^[0-7]/.test(escape)) return [parseInt(escape, 8), end];
  return [escape.codePointAt(0)!, end];
}
