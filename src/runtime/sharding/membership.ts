import type { RestClient } from '../client/rest/rest-client.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import { coordinationV1LeaseType } from '../builtin/index.js';
import { Informer } from '../cache/informer.js';
import { LeaderElector, type LeaseObject } from '../manager/leader-election.js';
import type { Logger } from '../util/logger.js';
import { SHARD_SET_LABEL, memberLeaseName } from './shard-labels.js';

/** Lease timings shared by the members of a shard set (the manager's leader election timings). */
export interface LeaseTimings {
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of {@link ShardMember}. */
export interface ShardMemberOptions extends LeaseTimings {
  rest: () => RestClient;
  namespace: () => string;
  set: string;
  identity: string;
  logger: Logger;
  /** Told once when the Lease could not be renewed within the renew deadline: this replica must stop reconciling now. */
  onLost: (lease: string) => void;
  /** Settles once every sharded controller of this replica has stopped; the Lease is released only then. */
  controllersStopped: () => Promise<void>;
  /**
   * Settles once this replica's caches of the sharded kinds hold their first list; the Lease is
   * taken only then. The sharder assigns objects to a member as soon as its Lease appears, so an
   * object labelled for it (and deleted) right after reaches its cache as watch events, not in a
   * list taken too late to show it.
   */
  cachesSynced: (signal: AbortSignal) => Promise<void>;
}

/**
 * This replica's membership in a shard set: a Lease of its own, `<set>-<identity>`, labelled
 * with the set's name, created and renewed as a leader lease is (the same elector, on a Lease
 * no other replica contends for). The sharder counts a replica as a member while its Lease is
 * held and renewed. A replica that cannot renew within the renew deadline is told so (`onLost`)
 * and stops reconciling; as the renew deadline is shorter than the lease duration, that happens
 * before the sharder can see the Lease expire and hand its objects to others. On a graceful stop
 * the Lease is released after the sharded controllers have finished, so the others take over at once.
 */
export class ShardMember {
  readonly leaseName: string;
  private elector: LeaderElector | undefined;
  private joinedResolve!: () => void;
  private readonly joinedPromise = new Promise<void>((resolve) => (this.joinedResolve = resolve));
  private holding = false;
  private everJoined = false;

  constructor(private readonly options: ShardMemberOptions) {
    this.leaseName = memberLeaseName(options.set, options.identity);
  }

  /** This replica's name in the ring and in the shard labels. */
  get identity(): string {
    return this.options.identity;
  }

  /**
   * True while this replica holds its membership Lease: only then may it reconcile sharded
   * objects. False once the last renewal is older than the renew deadline, before the renewal
   * loop notices: the others may take the objects after the lease duration, and the margin
   * between the two is all there is.
   */
  get held(): boolean {
    return this.holding && this.elector?.isLeader === true;
  }

  /** True once this replica has joined the shard set, whether or not it still holds its Lease. */
  get hasJoined(): boolean {
    return this.everJoined;
  }

  /** Runs `then` once this replica joins the shard set (never, if it stops before that). */
  afterJoining(then: () => void): void {
    void this.joinedPromise.then(then);
  }

  /** Resolves once the Lease is held (rejects with the signal's reason when it aborts first). */
  joined(signal: AbortSignal): Promise<void> {
    if (this.holding) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void this.joinedPromise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** The manager's runnable (every replica): holds the Lease until the signal aborts or a renewal fails. */
  readonly runnable = {
    needLeaderElection: false,
    start: (signal: AbortSignal): Promise<void> => this.run(signal),
  };

  private async run(signal: AbortSignal): Promise<void> {
    const namespace = this.options.namespace();
    const elector = new LeaderElector({
      rest: this.options.rest(),
      namespace,
      name: this.leaseName,
      identity: this.options.identity,
      labels: { [SHARD_SET_LABEL]: this.options.set },
      leaseDurationMs: this.options.leaseDurationMs,
      renewDeadlineMs: this.options.renewDeadlineMs,
      retryPeriodMs: this.options.retryPeriodMs,
      logger: this.options.logger,
    });
    this.elector = elector;
    try {
      await this.options.cachesSynced(signal);
      await elector.acquire(signal);
    } catch (err) {
      if (signal.aborted) return; // stopped before joining
      throw err; // the caches did not sync in time: the manager fails, naming them
    }
    this.holding = true;
    this.everJoined = true;
    this.options.logger.info('joined the shard set', {
      set: this.options.set,
      lease: `${namespace}/${this.leaseName}`,
    });
    this.joinedResolve();
    const outcome = await elector.holdLease(signal);
    this.holding = false;
    if (outcome === 'lost') {
      this.options.onLost(`${namespace}/${this.leaseName}`);
      return;
    }
    // Leaving: the sharder reassigns this replica's objects as soon as the Lease is released, so
    // that must wait until no sharded reconcile runs here any more.
    await this.options.controllersStopped();
    await elector.release();
  }
}

/** One member as the sharder sees it. */
interface ObservedLease {
  holder: string;
  durationMs: number;
  renewTime: string | undefined;
  /** When this sharder saw the Lease change last, on its own clock (clock skew between nodes does not matter). */
  observedAt: number;
}

/**
 * The members of a shard set as the sharder sees them: the Leases labelled with the set's name
 * whose holder renewed within the lease duration, timed on the sharder's own clock from the
 * moment it saw each renewal (as a leader election candidate judges the leader's Lease). A
 * released or deleted Lease ends the membership at once.
 */
export class MemberWatcher {
  readonly informer: Informer<LeaseObject>;
  private readonly leases = new Map<string, ObservedLease>();
  private alive: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    rest: RestClient,
    namespace: string,
    private readonly set: string,
    private readonly onChange: (members: readonly string[]) => void,
    private readonly logger: Logger,
  ) {
    this.informer = new Informer<LeaseObject>(
      new ResourceClient<LeaseObject>(rest, coordinationV1LeaseType, namespace),
      {
        name: `Lease.coordination.k8s.io/shard-set-${set}`,
        labelSelector: `${SHARD_SET_LABEL}=${set}`,
        namespace,
        logger,
      },
    );
    this.informer.addEventHandler({
      onAdd: (lease) => this.observe(lease),
      onUpdate: (_old, lease) => this.observe(lease),
      onDelete: (lease) => {
        this.leases.delete(lease.metadata?.name ?? '');
        this.recompute();
      },
    });
  }

  /** The live members, sorted. */
  get members(): readonly string[] {
    return this.alive;
  }

  isMember(identity: string): boolean {
    return this.alive.includes(identity);
  }

  /** Starts watching; checks for expired Leases every `checkEveryMs`. */
  async start(signal: AbortSignal, checkEveryMs: number): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(signal);
    this.timer = setInterval(() => this.recompute(), checkEveryMs);
    this.recompute();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.informer.stop();
  }

  private observe(lease: LeaseObject): void {
    const name = lease.metadata?.name ?? '';
    const spec = lease.spec ?? {};
    const seen = this.leases.get(name);
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? 15) * 1000;
    if (!seen || seen.holder !== holder || seen.renewTime !== spec.renewTime || seen.durationMs !== durationMs)
      this.leases.set(name, { holder, durationMs, renewTime: spec.renewTime, observedAt: Date.now() });
    this.recompute();
  }

  private recompute(): void {
    if (!this.informer.hasSynced()) return;
    const now = Date.now();
    const alive = [
      ...new Set(
        [...this.leases.values()]
          .filter((l) => l.holder !== '' && l.observedAt + l.durationMs > now)
          .map((l) => l.holder),
      ),
    ].sort();
    if (alive.length === this.alive.length && alive.every((m, i) => m === this.alive[i])) return;
    const joined = alive.filter((m) => !this.alive.includes(m));
    const left = this.alive.filter((m) => !alive.includes(m));
    this.alive = alive;
    this.logger.info('shard set members changed', { set: this.set, members: alive, joined, left });
    this.onChange(alive);
  }
}
