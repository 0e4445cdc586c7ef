import type { ChangeSet } from './dev-loop.js';

/** A duration for a status line: `8 ms` under a second, `1.24 s` above. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** What a cycle reacts to: the first changed file (API files first) and how many more. */
export function describeChanges(changes: ChangeSet): string {
  const files = [...changes.api, ...changes.src];
  if (files.length === 0) return 'no change';
  const more = files.length - 1;
  return `${files[0]}${more > 0 ? ` and ${more} more` : ''} changed`;
}

/** `HH:MM:SS` of a date, local time, for the start of each status line. */
export function clockTime(date: Date): string {
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** One status line: the time, then the steps of the cycle, separated by `·`. */
export function statusLine(date: Date, parts: readonly string[]): string {
  return `[kop dev ${clockTime(date)}] ${parts.filter((part) => part !== '').join(' · ')}`;
}

/** `1 file`, `2 files`. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
