import { createHash } from 'node:crypto';

/** Points each member takes on the ring by default: enough for an even split of a few replicas. */
export const DEFAULT_VIRTUAL_NODES = 100;

/** A 32-bit position on the ring: the first four bytes of the MD5 of `text` (fast, evenly spread, stable everywhere). */
export function ringPosition(text: string): number {
  return createHash('md5').update(text).digest().readUInt32BE(0);
}

/**
 * A consistent-hash ring over the members of a shard set. Each member takes `virtualNodes`
 * points on a 32-bit circle; a key belongs to the member owning the first point at or after the
 * key's position. The answer depends only on the member names, never on the order they joined
 * in, so every replica and every sharder computes the same owner; and a member joining or
 * leaving moves only the keys it takes or gives up (about 1/N of them), which keeps handoffs few.
 */
export class HashRing {
  /** Point positions, ascending, and the member at each. */
  private readonly positions: number[];
  private readonly owners: string[];
  readonly members: readonly string[];

  constructor(members: Iterable<string>, virtualNodes = DEFAULT_VIRTUAL_NODES) {
    if (!Number.isInteger(virtualNodes) || virtualNodes < 1)
      throw new RangeError(`virtualNodes must be a positive integer, got ${virtualNodes}`);
    this.members = [...new Set(members)].sort();
    const points: Array<[number, string]> = [];
    for (const member of this.members) {
      for (let i = 0; i < virtualNodes; i++) points.push([ringPosition(`${member}#${i}`), member]);
    }
    // Ties (rare) go to the smaller name, so the order of construction never matters.
    points.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    this.positions = points.map((p) => p[0]);
    this.owners = points.map((p) => p[1]);
  }

  /** The member that owns `key`; undefined when the ring has no member. */
  ownerOf(key: string): string | undefined {
    if (this.positions.length === 0) return undefined;
    const at = ringPosition(key);
    let low = 0;
    let high = this.positions.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.positions[mid]! < at) low = mid + 1;
      else high = mid;
    }
    return this.owners[low === this.positions.length ? 0 : low];
  }
}
