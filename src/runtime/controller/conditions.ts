import type { Condition } from '../../api/index.js';

/** What a caller provides to {@link setCondition}; the transition time is managed. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'status'> & {
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
};

/** meta/v1 Condition's maxLength of `message`, which the apiserver counts in code points. */
const MESSAGE_LIMIT = 32768;

/** Shortens a message the schema would reject (the whole status write would fail with 422). */
function fitMessage(message: string): string {
  // A string of at most MESSAGE_LIMIT UTF-16 units has at most that many code points.
  if (message.length <= MESSAGE_LIMIT) return message;
  const codePoints = Array.from(message);
  if (codePoints.length <= MESSAGE_LIMIT) return message;
  return `${codePoints.slice(0, MESSAGE_LIMIT - 3).join('')}...`;
}

function rfc3339(now: Date): string {
  // toISOString is `YYYY-MM-DDTHH:mm:ss.sssZ` for years 0 to 9999: drop the milliseconds.
  const iso = now.toISOString();
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets a condition in `conditions` (in place). `lastTransitionTime` changes only when the status
 * changes, so it tells when the condition became what it is; reason, message and
 * observedGeneration are updated every time. A message longer than meta/v1 Condition allows
 * (32768 characters) is cut, ending in `...`. Returns true when anything changed.
 */
export function setCondition(conditions: Condition[], condition: ConditionInput, now: Date = new Date()): boolean {
  const input = { ...condition, message: fitMessage(condition.message) };
  const existing = conditions.find((c) => c.type === input.type);
  if (!existing) {
    conditions.push({ ...input, lastTransitionTime: input.lastTransitionTime ?? rfc3339(now) });
    return true;
  }
  let changed = false;
  if (existing.status !== input.status) {
    existing.status = input.status;
    existing.lastTransitionTime = input.lastTransitionTime ?? rfc3339(now);
    changed = true;
  }
  if (existing.reason !== input.reason) {
    existing.reason = input.reason;
    changed = true;
  }
  if (existing.message !== input.message) {
    existing.message = input.message;
    changed = true;
  }
  if (input.observedGeneration !== undefined && existing.observedGeneration !== input.observedGeneration) {
    existing.observedGeneration = input.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of `type`, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` is present with status True. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Removes the condition of `type` (in place); returns true when it was there. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const index = conditions.findIndex((c) => c.type === type);
  if (index < 0) return false;
  conditions.splice(index, 1);
  return true;
}
