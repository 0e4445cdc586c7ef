import { metadataOnly, type ResourceType } from '../client/resource/options.js';
import type { Client } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import { isConflict, isNotFound } from '../client/errors/api-error.js';
import type { Informer } from '../cache/informer.js';
import { objectKey } from '../cache/object-meta.js';
import type { ReconcileFunction } from '../controller/controller.js';
import { parseKey, requestKey } from '../controller/request.js';
import type { Logger } from '../util/logger.js';
import type { ShardKeys } from './shard-labels.js';

/** How long a failed release waits before it looks at the object again. */
const RELEASE_RETRY_MS = 500;

/**
 * The member side of a sharded kind on one replica: decides which reconciles may run here, and
 * lets objects go when the sharder drains them.
 *
 * The handoff, end to end (the sharder's side is in sharder.ts):
 * 1. The sharder wants object O, assigned to member A, to move to B. It adds the drain label to
 *    O (the shard label stays A), so O stays in A's cache and A sees the change.
 * 2. From the moment A's cache holds O with the drain label, A starts no reconcile of O (the
 *    gate below refuses it, whatever queued it). A waits until no reconcile of O runs here, then
 *    removes the shard label, the drain label and the assignment annotation in one patch that
 *    carries O's resourceVersion (so it applies only to the state A judged): that is A's
 *    acknowledgement. O then leaves A's cache; the delete A's informer reports carries the
 *    drained state, so it starts nothing either.
 * 3. The sharder sees O unassigned and labels (and annotates) it for B; B's informer selects it
 *    and B reconciles it.
 * A member whose Lease expired cannot acknowledge: it stopped reconciling at its renew deadline,
 * before the Lease expired for the sharder, which then assigns its objects without a drain.
 *
 * A reconcile runs here only when the cache holds the object labelled and assigned to this
 * member and not draining, or when this member's cache saw such an object go and the apiserver
 * confirms it is gone (the reconcile of a deletion, which then finds nothing). A shard label
 * edited by hand therefore starts nothing, neither on the replica it names (the assignment
 * annotation, which only the sharder writes, still names the old member) nor on the old member,
 * whose cache drops the object until the sharder puts the label back (and drains the object
 * through the old member if it should move).
 */
export class ReconcileGate {
  /** Reconciles running here, per key. */
  private readonly inFlight = new Map<string, number>();
  /** Wakes a release waiting for a key's reconciles to end. */
  private readonly idleWaiters = new Map<string, Array<() => void>>();
  /** Keys whose deletion this member may reconcile (it held them, not draining, when they left its cache). */
  private readonly deleted = new Set<string>();
  /**
   * Keys that left this member's cache while draining here: deleted while moving away, or let go
   * (the release's own delete carries no shard label, but a relist shows only the last state
   * seen). A reconcile of one runs only once the apiserver says the object is gone.
   */
  private readonly drainedAway = new Set<string>();
  /** Keys this member let go whose delete (the object leaving its cache) has not arrived yet. */
  private readonly released = new Set<string>();
  /** Keys being released now. */
  private readonly releasing = new Set<string>();
  private stopped = false;

  constructor(
    private readonly informer: Informer<KubernetesObject>,
    readonly type: ResourceType,
    private readonly keys: ShardKeys,
    private readonly member: { readonly identity: string; readonly held: boolean },
    /** Writes to the apiserver (read lazily: the manager loads its REST client on first use). */
    private readonly client: () => Client,
    private readonly logger: Logger,
    /** Queues `key` for this member's controllers of the kind. */
    private readonly requeue: (key: string) => void,
  ) {
    informer.addEventHandler({
      onAdd: (object) => this.seen(object),
      onUpdate: (_old, object) => this.seen(object),
      onDelete: (object) => {
        if (this.keys.isReconciledBy(object, this.member.identity)) this.deleted.add(objectKey(object));
        else if (this.drainingHere(object)) {
          const key = objectKey(object);
          // The watch reports an object leaving the selector in its last state, draining: this
          // member's own release looks like a deletion, so its releases are told apart.
          if (this.released.delete(key) || this.releasing.has(key)) return;
          this.drainedAway.add(key);
        }
      },
    });
  }

  /** Stops releasing objects (the replica is leaving). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Lets this member reconcile the deletion of `key`, an object it never held: the sharder saw it
   * deleted while no live member had it (released and not yet labelled again, or assigned to a
   * member that is gone), so no other replica reconciles it.
   */
  acceptDeletion(key: string): void {
    if (!this.informer.indexer.get(key)) this.deleted.add(key);
  }

  /** True when a reconcile of `key` may start on this replica now. */
  allows(key: string): boolean {
    if (!this.member.held) return false;
    const object = this.informer.indexer.get(key);
    if (object) return this.keys.isReconciledBy(object, this.member.identity);
    return this.deleted.has(key);
  }

  /** `reconcile`, run only for the objects this replica may reconcile now (see {@link allows}); others are skipped. */
  wrap(reconcile: ReconcileFunction): ReconcileFunction {
    return async (request, context) => {
      const key = requestKey(request);
      const allowed = this.allows(key)
        ? this.informer.indexer.get(key) !== undefined || (await this.goneFromApiserver(key))
        : await this.goneWhileDraining(key);
      if (!allowed) {
        context.logger.debug('skipped: the object is not in this replica’s shard');
        return;
      }
      // Only the reconcile of a deletion uses up the leave to reconcile it: one that began while
      // the object was cached may have read it before it went, so the deletion's own comes after.
      const ofDeletion = !this.informer.indexer.get(key);
      this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
      try {
        return await reconcile(request, context);
      } finally {
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else {
          this.inFlight.delete(key);
          if (ofDeletion && !this.informer.indexer.get(key)) this.deleted.delete(key);
          for (const wake of this.idleWaiters.get(key) ?? []) wake();
          this.idleWaiters.delete(key);
        }
      }
    };
  }

  private seen(object: KubernetesObject): void {
    const key = objectKey(object);
    this.deleted.delete(key);
    this.drainedAway.delete(key);
    this.released.delete(key);
    if (this.drainingHere(object)) void this.release(key);
  }

  /** True when the object is labelled and assigned to this member and draining. */
  private drainingHere(object: KubernetesObject): boolean {
    const state = this.keys.stateOf(object);
    return state.draining && state.label === this.member.identity && state.assigned === this.member.identity;
  }

  /** The object went while its release waited: its deletion is this member's to reconcile, once confirmed. */
  private deletedBeforeRelease(key: string): void {
    this.drainedAway.add(key);
    this.requeue(key);
  }

  /**
   * True when `key` left this member's cache while draining here and the object is gone from the
   * apiserver: it was deleted before this member let it go, so no other member got it and the
   * reconcile of its deletion is this member's. (A reconcile of the key never runs twice at once
   * here, so this one follows any reconcile of the object still in flight.)
   */
  private async goneWhileDraining(key: string): Promise<boolean> {
    if (!this.drainedAway.has(key) || !this.member.held || this.informer.indexer.get(key)) return false;
    const exists = await this.existsOnApiserver(key);
    this.drainedAway.delete(key);
    // Still there: it was let go, and another member has it now.
    if (exists || !this.member.held || this.informer.indexer.get(key)) return false;
    this.deleted.add(key);
    return true;
  }

  /**
   * True when `key`, which left this member's cache while held here, is gone from the apiserver
   * too. An object also leaves the cache when its shard label is edited by hand (the watch
   * reports that as a delete, in the state it had before the edit): that is no deletion, and no
   * reconcile runs for it here; the sharder puts the label back and the object comes back.
   */
  private async goneFromApiserver(key: string): Promise<boolean> {
    if (!(await this.existsOnApiserver(key))) return this.member.held && !this.informer.indexer.get(key);
    this.deleted.delete(key);
    return false;
  }

  /** Whether the apiserver still has the object; an error other than NotFound fails the reconcile, which is retried with backoff. */
  private async existsOnApiserver(key: string): Promise<boolean> {
    try {
      await this.client().get(metadataOnly(this.type), parseKey(key));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private untilIdle(key: string): Promise<void> {
    if (!this.inFlight.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.idleWaiters.get(key) ?? [];
      waiters.push(resolve);
      this.idleWaiters.set(key, waiters);
    });
  }

  /** Step 2 of the handoff: once no reconcile of `key` runs here, give the object up. */
  private async release(key: string): Promise<void> {
    if (this.releasing.has(key)) return;
    this.releasing.add(key);
    try {
      for (;;) {
        await this.untilIdle(key);
        if (this.stopped || !this.member.held) return;
        const object = this.informer.indexer.get(key);
        if (!object) return this.deletedBeforeRelease(key);
        if (!this.drainingHere(object)) return; // the sharder changed its mind
        try {
          // Through the metadata-only view: the patch touches metadata only, and the answer is small.
          await this.client().patch(metadataOnly(this.type), parseKey(key), {
            type: 'merge',
            patch: {
              metadata: {
                resourceVersion: object.metadata?.resourceVersion,
                labels: { [this.keys.shardLabel]: null, [this.keys.drainLabel]: null },
                annotations: { [this.keys.assignedAnnotation]: null },
              },
            } as never,
          });
          this.logger.debug('released a drained object', { key });
          // Unless the object has left the cache already, its delete is still to come.
          if (this.informer.indexer.get(key)) this.released.add(key);
          return;
        } catch (err) {
          if (isNotFound(err)) return this.deletedBeforeRelease(key);
          // A conflict: the cache is behind the object; look again once it has caught up.
          if (!isConflict(err)) this.logger.warn('releasing a drained object failed; retrying', { key, err });
          await new Promise((resolve) => setTimeout(resolve, RELEASE_RETRY_MS));
        }
      }
    } finally {
      this.releasing.delete(key);
    }
  }
}
