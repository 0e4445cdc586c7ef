import type { Client } from '../client/client.js';
import { isConflict, isNotFound } from '../client/errors/api-error.js';
import { metadataOnly, type PartialObjectMetadata, type ResourceType } from '../client/resource/options.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import type { RestClient } from '../client/rest/rest-client.js';
import { Informer, stripManagedFields } from '../cache/informer.js';
import { objectKey } from '../cache/object-meta.js';
import { WorkQueue } from '../queue/work-queue.js';
import { ExponentialBackoffRateLimiter } from '../queue/rate-limiter.js';
import type { Logger } from '../util/logger.js';
import { HashRing } from './hash-ring.js';
import { MemberWatcher } from './membership.js';
import type { ShardKeys, ShardState } from './shard-labels.js';

/** Options of {@link Sharder}. */
export interface SharderOptions {
  rest: () => RestClient;
  /** Writes the labels (the manager's API reader: a client that does not read from the cache). */
  client: () => Client;
  keys: ShardKeys;
  /** The sharded kinds. */
  types: readonly ResourceType[];
  /** The namespace the sharded kinds are cached in; undefined for all. */
  namespace: string | undefined;
  /** Where the membership Leases are. */
  leaseNamespace: () => string;
  virtualNodes: number;
  /**
   * How long after it starts this sharder keeps objects assigned to members whose Leases are
   * missing or expire meanwhile, for them to come back (see {@link Sharder}); 0 moves them at once.
   */
  rejoinGraceMs: number;
  /**
   * Told when an object was deleted while no live member held it (see {@link heldWhenDeleted}):
   * no member's cache saw it go, so the sharder's own replica reconciles the deletion.
   */
  onUnheldDeletion: (type: ResourceType, key: string) => void;
  /** How often expired memberships are looked for; default 1 s. */
  memberCheckMs?: number;
  /**
   * Label patches sent at once; default 8. On a first start every object needs one, and the
   * members reconcile an object only once it is labelled, so this paces the start; more loads
   * the apiserver the members renew their Leases through.
   */
  concurrency?: number;
  logger: Logger;
}

/** What the sharder writes on an object: the labels and the annotation it wants (undefined removes one). */
interface Wanted {
  label: string | undefined;
  draining: boolean;
  assigned: string | undefined;
}

/**
 * What the sharder wants for one object, given the member that owns its key on the ring and the
 * live members. The rules (the member's side of the handoff is in reconcile-gate.ts):
 * - never assigned, released by its member, or assigned to a member whose Lease expired (which
 *   stopped reconciling before the Lease expired): label and assign it to the owner;
 * - assigned to the owner: label it for the owner, without a drain (which also puts back a
 *   shard label edited by hand, and calls off a drain when the ring moved back);
 * - assigned to another live member: label it for that member, with the drain label, and wait
 *   for that member to release it;
 * - assigned to a member that is not live but may still come back (`awaited`, a new sharder's
 *   grace period): leave it as it is; nobody reconciles it until that member is back or the
 *   grace ends.
 * Returns undefined when the object is as wanted, or when no member is alive.
 */
export function wantedShard(
  state: ShardState,
  owner: string | undefined,
  isMember: (identity: string) => boolean,
  awaited: (identity: string) => boolean = () => false,
): Wanted | undefined {
  if (owner === undefined) return undefined;
  if (state.assigned !== undefined && !isMember(state.assigned) && awaited(state.assigned)) return undefined;
  let wanted: Wanted;
  if (state.assigned === undefined || !isMember(state.assigned)) {
    wanted = { label: owner, draining: false, assigned: owner };
  } else if (state.assigned === owner) {
    wanted = { label: owner, draining: false, assigned: owner };
  } else {
    wanted = { label: state.assigned, draining: true, assigned: state.assigned };
  }
  const same = wanted.label === state.label && wanted.draining === state.draining && wanted.assigned === state.assigned;
  return same ? undefined : wanted;
}

/**
 * True when a live member's cache held the object as it was deleted, so that member reconciles
 * the deletion: the object was assigned to it and labelled for it (draining or not). Otherwise
 * (never assigned, released, its member gone, or its shard label edited by hand so that its
 * member's cache had dropped it) no member saw it go, and the sharder's replica reconciles it.
 */
export function heldWhenDeleted(state: ShardState, isMember: (identity: string) => boolean): boolean {
  return state.assigned !== undefined && state.label === state.assigned && isMember(state.assigned);
}

/**
 * The sharder of a shard set: one per set, on the replica holding the leader lease. It caches
 * the metadata of every object of the sharded kinds (their labels are all it needs), keeps a
 * hash ring over the live members, and labels each object for the member that owns its key,
 * moving objects between live members through a drain (see {@link wantedShard}). Every write
 * carries the resourceVersion it was judged on, so a write made against a changed object fails
 * (409) and the object is judged again.
 *
 * A new sharder (a new leader, after a rolling update or a restart of every replica) often finds
 * objects assigned to members that are not back yet. For `rejoinGraceMs` it leaves those where
 * they are, so a member that comes back under the same identity (a StatefulSet's pod) finds its
 * objects in place instead of watching them move away and back. The grace ends early once as
 * many members are live as the objects were assigned to, one of them under a new name: the
 * absent ones were replaced (a Deployment's pods come back under new names) and their objects
 * move at once.
 */
export class Sharder {
  readonly needLeaderElection = true;
  private readonly informers: Array<{
    type: ResourceType<PartialObjectMetadata>;
    informer: Informer<PartialObjectMetadata>;
  }> = [];
  private ring = new HashRing([]);
  private members: MemberWatcher | undefined;
  /** Until when (this process's clock) absent members may come back; 0 once the grace is over. */
  private graceUntil = 0;
  /** The members the objects were assigned to when this sharder started. */
  private priorMembers = new Set<string>();
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly queue = new WorkQueue({
    rateLimiter: new ExponentialBackoffRateLimiter({ baseDelayMs: 50, maxDelayMs: 5_000 }),
  });

  constructor(private readonly options: SharderOptions) {}

  /** Runs until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    const { keys, logger } = this.options;
    const rest = this.options.rest();
    for (const [index, full] of this.options.types.entries()) {
      const type = metadataOnly(full);
      const informer = new Informer<PartialObjectMetadata>(
        new ResourceClient<PartialObjectMetadata>(rest, type, full.namespaced ? this.options.namespace : undefined),
        {
          name: `${full.kind}.${full.group || 'core'}/sharder`,
          streamingList: true,
          transform: stripManagedFields,
          namespace: full.namespaced ? this.options.namespace : undefined,
          logger,
        },
      );
      const enqueue = (object: PartialObjectMetadata): void =>
        this.queue.add(`${index}|${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`);
      informer.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_old, object) => enqueue(object),
        onDelete: (object) => {
          if (!heldWhenDeleted(keys.stateOf(object), (m) => this.members?.isMember(m) ?? false))
            this.options.onUnheldDeletion(full, objectKey(object));
        },
      });
      this.informers.push({ type, informer });
    }
    const members = new MemberWatcher(
      rest,
      this.options.leaseNamespace(),
      keys.set,
      (alive) => {
        this.ring = new HashRing(alive, this.options.virtualNodes);
        this.checkGrace();
        if (alive.length === 0)
          logger.warn('the shard set has no live member: its objects stay where they are until one joins', {
            set: keys.set,
          });
        this.enqueueAll();
      },
      logger,
    );
    this.members = members;
    try {
      // Members first: objects are assigned only once the ring holds every live member.
      await members.start(signal, this.options.memberCheckMs ?? 1_000);
      for (const { informer } of this.informers) informer.start();
      await Promise.all(this.informers.map(({ informer }) => informer.waitForSync(signal)));
      this.startGrace();
      logger.info('sharder started', {
        set: keys.set,
        members: members.members,
        objects: this.informers.reduce((sum, { informer }) => sum + informer.indexer.size, 0),
      });
      const workers = Array.from({ length: this.options.concurrency ?? 8 }, () => this.work());
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      this.queue.shutDown();
      await Promise.all(workers);
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      this.queue.shutDown();
      clearTimeout(this.graceTimer);
      await members.stop();
      await Promise.all(this.informers.map(({ informer }) => informer.stop()));
    }
  }

  /** The members the objects are assigned to, as this sharder found them at its start. */
  private assignedMembers(): Set<string> {
    const assigned = new Set<string>();
    for (const { informer } of this.informers)
      for (const object of informer.indexer.list()) {
        const member = this.options.keys.stateOf(object).assigned;
        if (member !== undefined) assigned.add(member);
      }
    return assigned;
  }

  /**
   * Starts the grace whether or not a member is missing now: a Lease left behind by a replica
   * that is gone looks live to a new sharder until it has watched it for a lease duration, so a
   * member that lapses during the grace is waited for too.
   */
  private startGrace(): void {
    const { rejoinGraceMs, logger, keys } = this.options;
    if (rejoinGraceMs <= 0) return;
    const assigned = this.assignedMembers();
    const awaited = [...assigned].filter((m) => !this.members!.isMember(m));
    this.priorMembers = assigned;
    this.graceUntil = Date.now() + rejoinGraceMs;
    this.graceTimer = setTimeout(() => this.checkGrace(), rejoinGraceMs + 1);
    if (awaited.length > 0)
      logger.info('keeping the objects of members that are not back yet', {
        set: keys.set,
        awaited,
        graceMs: rejoinGraceMs,
      });
  }

  /** Ends the grace when its time is up or the set is as large as it was; the objects kept then move. */
  private checkGrace(): void {
    if (this.graceUntil === 0) return;
    // Replaced: the set is as large as before, with at least one member under a new name.
    const live = this.members?.members ?? [];
    const replaced = live.length >= this.priorMembers.size && live.some((m) => !this.priorMembers.has(m));
    if (Date.now() < this.graceUntil && !replaced) return;
    this.graceUntil = 0;
    clearTimeout(this.graceTimer);
    const absent = [...this.priorMembers].filter((m) => !live.includes(m));
    if (absent.length > 0)
      this.options.logger.info('the grace for members to come back is over', {
        set: this.options.keys.set,
        members: live,
        absent,
      });
    this.enqueueAll();
  }

  /** True while an absent member may still come back to take its objects (any absent member, during the grace). */
  private awaited(): boolean {
    return this.graceUntil !== 0;
  }

  private enqueueAll(): void {
    for (const [index, { informer }] of this.informers.entries())
      for (const key of informer.indexer.keys()) this.queue.add(`${index}|${key.includes('/') ? key : `/${key}`}`);
  }

  private async work(): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (item === undefined) return;
      try {
        await this.assign(item);
        this.queue.forget(item);
      } catch (err) {
        if (!isConflict(err))
          this.options.logger.warn('labelling an object for its shard failed; retrying', { item, err });
        this.queue.addRateLimited(item);
      } finally {
        this.queue.done(item);
      }
    }
  }

  private async assign(item: string): Promise<void> {
    const bar = item.indexOf('|');
    const { type, informer } = this.informers[Number(item.slice(0, bar))]!;
    const path = item.slice(bar + 1);
    const slash = path.indexOf('/');
    const namespace = path.slice(0, slash);
    const name = path.slice(slash + 1);
    const key = namespace ? `${namespace}/${name}` : name;
    const object = informer.indexer.get(key);
    if (!object || !this.members) return;
    const { keys } = this.options;
    const wanted = wantedShard(
      keys.stateOf(object),
      this.ring.ownerOf(key),
      (m) => this.members!.isMember(m),
      () => this.awaited(),
    );
    if (!wanted) return;
    try {
      await this.options.client().patch(
        type,
        { namespace, name },
        {
          type: 'merge',
          patch: {
            metadata: {
              resourceVersion: object.metadata.resourceVersion,
              labels: { [keys.shardLabel]: wanted.label ?? null, [keys.drainLabel]: wanted.draining ? 'true' : null },
              annotations: { [keys.assignedAnnotation]: wanted.assigned ?? null },
            },
          } as never,
        },
      );
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
