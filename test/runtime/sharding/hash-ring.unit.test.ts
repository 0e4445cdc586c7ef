import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import { HashRing } from '../../../src/runtime/sharding/hash-ring.js';
import { wantedShard } from '../../../src/runtime/sharding/sharder.js';
import { ShardKeys, checkMemberIdentity, checkShardSetName } from '../../../src/runtime/sharding/shard-labels.js';

const keys = Array.from({ length: 10_000 }, (_, i) => `ns-${i % 7}/widget-${i}`);

function shares(ring: HashRing): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const owner = ring.ownerOf(key)!;
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}

describe('HashRing', () => {
  it('has no owner without members', () => {
    expect(new HashRing([]).ownerOf('a/b')).toBeUndefined();
  });

  it('gives every key to one member, the same whatever order the members come in', () => {
    const a = new HashRing(['shard-a', 'shard-b', 'shard-c']);
    const b = new HashRing(['shard-c', 'shard-a', 'shard-b', 'shard-a']);
    for (const key of keys.slice(0, 2000)) expect(b.ownerOf(key)).toBe(a.ownerOf(key));
  });

  it('splits keys evenly: each of 3 members within 25% of a third with 100 virtual nodes', () => {
    const counts = shares(new HashRing(['shard-a', 'shard-b', 'shard-c']));
    expect([...counts.keys()].sort()).toEqual(['shard-a', 'shard-b', 'shard-c']);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan((keys.length / 3) * 0.75);
      expect(count).toBeLessThan((keys.length / 3) * 1.25);
    }
  });

  it('more virtual nodes, more even shares', () => {
    const spread = (ring: HashRing): number => {
      const counts = [...shares(ring).values()];
      return Math.max(...counts) - Math.min(...counts);
    };
    const members = ['a', 'b', 'c', 'd', 'e'];
    expect(spread(new HashRing(members, 400))).toBeLessThan(spread(new HashRing(members, 2)));
  });

  it('a member joining takes keys only for itself, about its share; leaving gives back only its keys', () => {
    const three = new HashRing(['shard-a', 'shard-b', 'shard-c']);
    const four = new HashRing(['shard-a', 'shard-b', 'shard-c', 'shard-d']);
    let moved = 0;
    for (const key of keys) {
      const before = three.ownerOf(key);
      const after = four.ownerOf(key);
      if (before !== after) {
        moved++;
        expect(after).toBe('shard-d');
      }
    }
    expect(moved).toBeGreaterThan(keys.length * 0.15);
    expect(moved).toBeLessThan(keys.length * 0.35);
    const two = new HashRing(['shard-a', 'shard-c']);
    for (const key of keys) {
      if (three.ownerOf(key) !== 'shard-b') expect(two.ownerOf(key)).toBe(three.ownerOf(key));
    }
  });

  it('refuses a virtual node count that is not a positive integer', () => {
    expect(() => new HashRing(['a'], 0)).toThrow(/virtualNodes must be a positive integer/);
  });
});

describe('wantedShard (the sharder’s rules)', () => {
  const alive =
    (...members: string[]) =>
    (m: string) =>
      members.includes(m);
  const cases: Array<{
    name: string;
    given: {
      label?: string;
      draining?: boolean;
      assigned?: string;
      owner?: string;
      alive: string[];
      /** A new sharder's grace: absent members may come back. */
      grace?: boolean;
    };
    want: ReturnType<typeof wantedShard>;
  }> = [
    {
      name: 'a new object goes to its owner',
      given: { owner: 'b', alive: ['a', 'b'] },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'an object in place stays',
      given: { label: 'b', assigned: 'b', owner: 'b', alive: ['a', 'b'] },
      want: undefined,
    },
    {
      name: 'moving between live members starts with a drain on the current member',
      given: { label: 'a', assigned: 'a', owner: 'b', alive: ['a', 'b'] },
      want: { label: 'a', draining: true, assigned: 'a' },
    },
    {
      name: 'a drain waits for the member to release the object',
      given: { label: 'a', draining: true, assigned: 'a', owner: 'b', alive: ['a', 'b'] },
      want: undefined,
    },
    {
      name: 'a released object goes to its owner',
      given: { owner: 'b', alive: ['a', 'b'] },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'the object of a member whose Lease expired goes to the owner without a drain',
      given: { label: 'a', draining: true, assigned: 'a', owner: 'b', alive: ['b'] },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'a drain is called off when the ring moves back',
      given: { label: 'a', draining: true, assigned: 'a', owner: 'a', alive: ['a', 'b'] },
      want: { label: 'a', draining: false, assigned: 'a' },
    },
    {
      name: 'a shard label edited by hand is put back when the object stays',
      given: { label: 'c', assigned: 'a', owner: 'a', alive: ['a', 'b', 'c'] },
      want: { label: 'a', draining: false, assigned: 'a' },
    },
    {
      name: 'a shard label edited by hand to the new owner still drains through the member that has it',
      given: { label: 'b', assigned: 'a', owner: 'b', alive: ['a', 'b'] },
      want: { label: 'a', draining: true, assigned: 'a' },
    },
    {
      name: 'a shard label set by hand on a new object is not taken for an assignment',
      given: { label: 'c', owner: 'b', alive: ['b', 'c'] },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'during a new sharder’s grace, the object of an absent member stays with it',
      given: { label: 'a', assigned: 'a', owner: 'b', alive: ['b'], grace: true },
      want: undefined,
    },
    {
      name: 'during the grace, a drain under way when the member went away stays as it is',
      given: { label: 'a', draining: true, assigned: 'a', owner: 'b', alive: ['b'], grace: true },
      want: undefined,
    },
    {
      name: 'during the grace, objects of live members and new objects are assigned as usual',
      given: { label: 'c', assigned: 'b', owner: 'b', alive: ['b'], grace: true },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'during the grace, a new object goes to its owner among the live members',
      given: { owner: 'b', alive: ['b'], grace: true },
      want: { label: 'b', draining: false, assigned: 'b' },
    },
    {
      name: 'no live member: nothing changes',
      given: { label: 'a', assigned: 'a', owner: undefined, alive: [] },
      want: undefined,
    },
  ];
  for (const { name, given, want } of cases) {
    it(name, () => {
      const state = { label: given.label, draining: given.draining ?? false, assigned: given.assigned };
      expect(wantedShard(state, given.owner, alive(...given.alive), () => given.grace ?? false)).toEqual(want);
    });
  }
});

describe('shard keys and names', () => {
  const set = new ShardKeys('widgets');
  it('reads an object’s shard state, and who may reconcile it', () => {
    const object = {
      metadata: {
        labels: { 'shard.kop.dev/widgets': 'a' },
        annotations: { 'shard.kop.dev/widgets': 'a' },
      },
    };
    expect(set.isReconciledBy(object, 'a')).toBe(true);
    expect(set.isReconciledBy(object, 'b')).toBe(false);
    const draining = {
      metadata: { ...object.metadata, labels: { ...object.metadata.labels, 'drain.shard.kop.dev/widgets': 'true' } },
    };
    expect(set.stateOf(draining)).toEqual({ label: 'a', draining: true, assigned: 'a' });
    expect(set.isReconciledBy(draining, 'a')).toBe(false);
    const handEdited = {
      metadata: { labels: { 'shard.kop.dev/widgets': 'b' }, annotations: object.metadata.annotations },
    };
    expect(set.isReconciledBy(handEdited, 'b')).toBe(false);
    expect(set.selectorFor('a')).toBe('shard.kop.dev/widgets=a');
  });

  it('refuses names that cannot be labels or Lease names, saying what to use', () => {
    expect(() => checkShardSetName('My_Operator')).toThrow(/sharding.name "My_Operator" is not usable/);
    expect(() => checkShardSetName('my-operator')).not.toThrow();
    expect(() => checkMemberIdentity('host_1234', 'my-operator')).toThrow(/identity "host_1234" is not usable/);
    expect(() => checkMemberIdentity('x'.repeat(64), 'my-operator')).toThrow(/not usable/);
    expect(() => checkMemberIdentity('my-operator-7d9f-abcde', 'my-operator')).not.toThrow();
  });
});

describe('ManagerOptions.sharding, checked when the manager is made', () => {
  const widgets = {
    group: 'test.kop.dev',
    version: 'v1',
    resource: 'widgets',
    kind: 'Widget',
    namespaced: true,
  } as const;
  it('refuses a bad name, a bad identity and no kinds, saying what to fix', () => {
    expect(() => new Manager({ sharding: { name: 'My_Operator', types: [widgets], identity: 'a' } })).toThrow(
      /sharding.name "My_Operator"/,
    );
    expect(() => new Manager({ sharding: { name: 'op', types: [widgets], identity: 'Pod_1' } })).toThrow(
      /identity "Pod_1"/,
    );
    expect(() => new Manager({ sharding: { name: 'op', types: [], identity: 'a' } })).toThrow(
      /sharding.types is empty/,
    );
  });
});
