/**
 * Parses a Go duration ("90s", "1m30s", "500ms", "2h") as envtest's variables use, or a
 * bare number of seconds; returns milliseconds, or undefined for an empty value.
 */
export function parseDuration(value: string | undefined, variable: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  while (index < text.length) {
    part.lastIndex = index;
    const match = part.exec(text);
    if (!match) throw new Error(`${variable}="${value}" is not a duration like 60s, 2m or 1m30s`);
    total += Number(match[1]) * unitMs[match[2]!]!;
    index = part.lastIndex;
  }
  return total;
}

/** True for the values envtest treats as true ("true", "1", case-insensitive, like Go's strconv.ParseBool). */
export function parseBoolean(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'true'].includes(value.trim().toLowerCase());
}
