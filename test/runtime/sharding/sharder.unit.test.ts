// The sharder's decisions, as pure functions: what it writes on an object, and who reconciles a
// deletion. The live test (sharding.live.test.ts) drives them through real replicas.
import { describe, expect, it } from 'vitest';
import { heldWhenDeleted, wantedShard } from '../../../src/runtime/sharding/sharder.js';
import type { ShardState } from '../../../src/runtime/sharding/shard-labels.js';

const live = new Set(['a', 'b']);
const isMember = (m: string) => live.has(m);
const state = (label: string | undefined, assigned: string | undefined, draining = false): ShardState => ({
  label,
  assigned,
  draining,
});

describe('wantedShard', () => {
  it('labels a new or released object for the owner of its key', () => {
    expect(wantedShard(state(undefined, undefined), 'a', isMember)).toEqual({
      label: 'a',
      draining: false,
      assigned: 'a',
    });
  });

  it('leaves an object assigned to its owner as it is, and puts back a label edited by hand', () => {
    expect(wantedShard(state('a', 'a'), 'a', isMember)).toBeUndefined();
    expect(wantedShard(state('b', 'a'), 'a', isMember)).toEqual({ label: 'a', draining: false, assigned: 'a' });
  });

  it('drains an object from a live member that no longer owns its key, and calls the drain off when the ring moves back', () => {
    expect(wantedShard(state('a', 'a'), 'b', isMember)).toEqual({ label: 'a', draining: true, assigned: 'a' });
    expect(wantedShard(state('a', 'a', true), 'a', isMember)).toEqual({ label: 'a', draining: false, assigned: 'a' });
  });

  it('moves the object of a member that is gone at once, unless that member is awaited', () => {
    expect(wantedShard(state('c', 'c'), 'a', isMember)).toEqual({ label: 'a', draining: false, assigned: 'a' });
    expect(wantedShard(state('c', 'c'), 'a', isMember, () => true)).toBeUndefined();
  });

  it('writes nothing while no member is alive', () => {
    expect(wantedShard(state(undefined, undefined), undefined, isMember)).toBeUndefined();
  });
});

describe('heldWhenDeleted', () => {
  it('is true when a live member held the object, draining or not', () => {
    expect(heldWhenDeleted(state('a', 'a'), isMember)).toBe(true);
    expect(heldWhenDeleted(state('a', 'a', true), isMember)).toBe(true);
  });

  it('is false for an object never assigned or released, or assigned to a member that is gone', () => {
    expect(heldWhenDeleted(state(undefined, undefined), isMember)).toBe(false);
    expect(heldWhenDeleted(state('c', 'c'), isMember)).toBe(false);
  });

  it("is false when the shard label was edited by hand: the assigned member's cache had dropped the object", () => {
    expect(heldWhenDeleted(state('b', 'a'), isMember)).toBe(false);
  });
});
