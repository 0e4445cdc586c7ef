import type { KubernetesObject } from '../client/types/meta.js';

/** The label of a membership Lease naming its shard set. */
export const SHARD_SET_LABEL = 'shard.kop.dev/set';

/** A label value (and a label key's name part): up to 63 characters, alphanumeric at both ends. */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A Lease name: a DNS subdomain (lowercase). */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The labels and the annotation one shard set writes on the objects it shares out:
 * - `shard.kop.dev/<set>` (label): the member whose informers select the object;
 * - `drain.shard.kop.dev/<set>` (label): set while the object leaves that member;
 * - `shard.kop.dev/<set>` (annotation): the member the sharder last assigned it to, written only
 *   by the sharder, so a shard label edited by hand is told apart from an assignment.
 */
export class ShardKeys {
  readonly shardLabel: string;
  readonly drainLabel: string;
  readonly assignedAnnotation: string;

  constructor(readonly set: string) {
    this.shardLabel = `shard.kop.dev/${set}`;
    this.drainLabel = `drain.shard.kop.dev/${set}`;
    this.assignedAnnotation = `shard.kop.dev/${set}`;
  }

  /** The label selector of one member's informers: the objects labelled for it (draining ones too, until it lets them go). */
  selectorFor(member: string): string {
    return `${this.shardLabel}=${member}`;
  }

  /** Where an object stands in this shard set. */
  stateOf(object: KubernetesObject): ShardState {
    const labels = object.metadata?.labels ?? {};
    const annotations = object.metadata?.annotations ?? {};
    return {
      label: labels[this.shardLabel] || undefined,
      draining: this.drainLabel in labels,
      assigned: annotations[this.assignedAnnotation] || undefined,
    };
  }

  /**
   * True when `member` may reconcile the object: labelled and assigned to it, and not draining.
   * Anything else (a hand-edited label, a drain under way) means another replica may own it.
   */
  isReconciledBy(object: KubernetesObject, member: string): boolean {
    const state = this.stateOf(object);
    return state.label === member && state.assigned === member && !state.draining;
  }
}

/** An object's shard label, drain marker and assignment record. */
export interface ShardState {
  label: string | undefined;
  draining: boolean;
  assigned: string | undefined;
}

/** Throws a TypeError saying what is wrong when `set` cannot name a shard set's labels and Leases. */
export function checkShardSetName(set: string): void {
  if (!LABEL_VALUE.test(set) || !DNS_SUBDOMAIN.test(set))
    throw new TypeError(
      `sharding.name ${JSON.stringify(set)} is not usable in a label key and a Lease name: use up to 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit`,
    );
}

/** Throws a TypeError when `identity` cannot be a shard label value and part of a Lease name. */
export function checkMemberIdentity(identity: string, set: string): void {
  if (!LABEL_VALUE.test(identity) || !DNS_SUBDOMAIN.test(identity))
    throw new TypeError(
      `sharding identity ${JSON.stringify(identity)} is not usable as a label value and in a Lease name: use up to 63 lowercase letters, digits, '-' and '.' (the pod name is a good one)`,
    );
  const lease = memberLeaseName(set, identity);
  if (lease.length > 253) throw new TypeError(`the membership Lease name ${lease} is longer than 253 characters`);
}

/** The name of a member's Lease. */
export function memberLeaseName(set: string, identity: string): string {
  return `${set}-${identity}`;
}
