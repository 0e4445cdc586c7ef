import { hostname } from 'node:os';
import type { Client } from '../client/client.js';
import { selectorString, type ResourceType } from '../client/resource/options.js';
import type { RestClient } from '../client/rest/rest-client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { Informer } from '../cache/informer.js';
import type { CacheByObject } from '../cluster/cluster.js';
import type { ReconcileFunction } from '../controller/controller.js';
import type { Runnable } from '../manager/runnable-group.js';
import type { Logger } from '../util/logger.js';
import { parseKey, type Request } from '../controller/request.js';
import { DEFAULT_VIRTUAL_NODES } from './hash-ring.js';

/** The leader election lease duration when the manager sets none (the elector's default). */
const DEFAULT_LEASE_DURATION_MS = 15_000;
import { ShardMember, type LeaseTimings } from './membership.js';
import { ReconcileGate } from './reconcile-gate.js';
import { Sharder } from './sharder.js';
import { ShardKeys, checkMemberIdentity, checkShardSetName } from './shard-labels.js';

/**
 * Sharding across replicas (`ManagerOptions.sharding`): the objects of `types` are split among
 * the replicas that run with the same `name`, each caching and reconciling only its share.
 */
export interface ShardingOptions {
  /**
   * The shard set: every replica of one operator uses the same name (the project's name is a
   * good one). It names the labels on the objects (`shard.kop.dev/<name>`) and the membership
   * Leases (`<name>-<identity>`). Lowercase letters, digits, '-' and '.'.
   */
  name: string;
  /**
   * The kinds whose objects are shared out. Controllers whose `for` kind is one of them run on
   * every member, each over its own share; the others run on the leader only, as without sharding.
   */
  types: readonly ResourceType[];
  /**
   * This replica's name in the shard set and the value of its objects' shard label; default the
   * host name (in a pod, the pod's name). Must be unique among the replicas.
   */
  identity?: string;
  /** Points each member takes on the hash ring; default 100. More evens out the shares, at a little CPU. */
  virtualNodes?: number;
  /**
   * How long a newly elected sharder keeps objects with members whose Leases are missing or
   * expire meanwhile (a Lease left behind by a replica that is gone looks live for a lease
   * duration), for them to come back under the same identity (after a restart of every replica,
   * say); default the lease duration (15 s). The wait ends early once as many members are live
   * as the objects were assigned to, one of them new (the others were replaced). 0 moves such
   * objects at once.
   */
  rejoinGraceMs?: number;
}

/** What the sharding of a manager needs from the manager. */
export interface ShardingHost extends LeaseTimings {
  rest: () => RestClient;
  /** A client that writes to and reads from the apiserver. */
  apiReader: () => Client;
  /** Namespace of the Leases (the manager's leader election namespace). */
  leaseNamespace: () => string;
  /** The namespace the manager caches; undefined for all. */
  cacheNamespace: string | undefined;
  leaderElection: boolean;
  logger: Logger;
  /** This replica's membership Lease could not be renewed: the manager stops at once. */
  onLost: (lease: string) => void;
  /** Starts `informers` (when their start is deferred) and resolves once they hold their first list. */
  syncInformers: (informers: ReadonlyArray<Informer<KubernetesObject>>, signal: AbortSignal) => Promise<void>;
}

function sameKind(a: ResourceType, b: ResourceType): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/**
 * A manager's sharding: its membership (every replica), its sharder (the leader), the cache
 * selectors of the sharded kinds and the gates of the controllers that reconcile them.
 */
export class Sharding {
  readonly keys: ShardKeys;
  readonly member: ShardMember;
  readonly sharder: Sharder;
  private readonly gates = new Map<Informer<KubernetesObject>, ReconcileGate>();
  private readonly controllers: Array<{
    readonly stopped: Promise<void>;
    readonly primary: ResourceType;
    readonly controller: { enqueue(request: Request): void };
  }> = [];

  constructor(
    private readonly options: ShardingOptions,
    private readonly host: ShardingHost,
  ) {
    checkShardSetName(options.name);
    if (options.types.length === 0) throw new TypeError('sharding.types is empty: name the kinds to share out');
    const identity = options.identity ?? hostname().toLowerCase();
    checkMemberIdentity(identity, options.name);
    const rejoinGraceMs = options.rejoinGraceMs ?? host.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    if (!Number.isFinite(rejoinGraceMs) || rejoinGraceMs < 0)
      throw new TypeError(`sharding.rejoinGraceMs must be a number of milliseconds >= 0, got ${rejoinGraceMs}`);
    if (!host.leaderElection)
      host.logger.warn(
        'sharding without leader election: every replica runs a sharder; turn leader election on when running more than one replica',
      );
    this.keys = new ShardKeys(options.name);
    const logger = host.logger.child({ component: 'sharding', shardSet: options.name, shard: identity });
    this.member = new ShardMember({
      rest: host.rest,
      namespace: host.leaseNamespace,
      set: options.name,
      identity,
      leaseDurationMs: host.leaseDurationMs,
      renewDeadlineMs: host.renewDeadlineMs,
      retryPeriodMs: host.retryPeriodMs,
      logger,
      onLost: host.onLost,
      controllersStopped: () => Promise.all(this.controllers.map((c) => c.stopped)).then(() => undefined),
      // The gates are made as the controllers are built, before the manager starts.
      cachesSynced: (signal) => host.syncInformers([...this.gates.keys()], signal),
    });
    this.sharder = new Sharder({
      rest: host.rest,
      client: host.apiReader,
      keys: this.keys,
      types: options.types,
      namespace: host.cacheNamespace,
      leaseNamespace: host.leaseNamespace,
      virtualNodes: options.virtualNodes ?? DEFAULT_VIRTUAL_NODES,
      rejoinGraceMs,
      memberCheckMs: Math.min(1_000, host.retryPeriodMs ?? 1_000),
      onUnheldDeletion: (type, key) => this.reconcileDeletion(type, key, logger),
      logger: logger.child({ component: 'sharder' }),
    });
  }

  /** True when `type` is shared out. */
  covers(type: ResourceType | undefined): boolean {
    return type !== undefined && this.options.types.some((t) => sameKind(t, type));
  }

  /**
   * The manager's per-kind cache settings with each sharded kind limited to this replica's
   * shard (and to the user's own selector of the kind, when there is one).
   */
  byObject(entries: readonly CacheByObject[] = []): CacheByObject[] {
    const shard = this.keys.selectorFor(this.member.identity);
    const result = entries.map((entry) => {
      if (!this.covers(entry.type)) return entry;
      const text = selectorString(entry.labelSelector) ?? '';
      return { ...entry, labelSelector: text ? `${text},${shard}` : shard };
    });
    for (const type of this.options.types)
      if (!entries.some((e) => sameKind(e.type, type))) result.push({ type, labelSelector: shard });
    return result;
  }

  /** `reconcile` gated for this replica's shard of `informer`'s kind (one gate per informer, shared by its controllers). */
  gate(type: ResourceType, informer: Informer<KubernetesObject>, reconcile: ReconcileFunction): ReconcileFunction {
    let gate = this.gates.get(informer);
    if (!gate) {
      gate = new ReconcileGate(
        informer,
        type,
        this.keys,
        this.member,
        this.host.apiReader,
        this.host.logger.child({ component: 'sharding', shard: this.member.identity }),
        (key) => this.enqueue(type, key),
      );
      this.gates.set(informer, gate);
    }
    return gate.wrap(reconcile);
  }

  /**
   * Reconciles here the deletion of an object no live member held when it went (the sharder on
   * this replica saw it): its gates let the key through once, and its controllers queue it. When
   * this replica has not joined the shard set yet (its caches are still loading), the deletion
   * waits for it to join; its controllers start only then.
   */
  private reconcileDeletion(type: ResourceType, key: string, logger: Logger): void {
    if (this.member.held) {
      for (const gate of this.gates.values()) if (sameKind(gate.type, type)) gate.acceptDeletion(key);
      this.enqueue(type, key);
    } else if (!this.member.hasJoined) {
      logger.info('an object was deleted while no member held it; its deletion is reconciled once this replica joins', {
        key,
      });
      this.member.afterJoining(() => this.reconcileDeletion(type, key, logger));
    } else {
      // This replica has lost its Lease and is stopping: so does the sharder on it.
      logger.warn(
        'an object was deleted while no member held it, and this replica has left the shard set: its deletion is not reconciled',
        { key },
      );
    }
  }

  /** Queues `key` for this replica's sharded controllers of `type`. */
  private enqueue(type: ResourceType, key: string): void {
    for (const { primary, controller } of this.controllers)
      if (sameKind(primary, type)) controller.enqueue(parseKey(key));
  }

  /**
   * A sharded controller as every replica runs it: started once this replica holds its
   * membership Lease; the Lease is released only after it has stopped.
   */
  controllerRunnable(
    inner: Runnable & { readonly stopped: Promise<void>; readonly controller: { enqueue(request: Request): void } },
    primary: ResourceType,
  ): Runnable {
    this.controllers.push({ stopped: inner.stopped, primary, controller: inner.controller });
    return {
      needLeaderElection: false,
      start: async (signal: AbortSignal) => {
        try {
          await this.member.joined(signal);
        } catch {
          return; // stopped before joining
        }
        await inner.start(signal);
      },
    };
  }
}
