import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { RestClient } from '../client/rest/rest-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors/api-error.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import { coordinationV1LeaseType } from '../builtin/index.js';
import type { Clock } from '../util/clock.js';
import { sleep, systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { inSpan } from '../util/tracing.js';

/** coordination.k8s.io/v1 LeaseSpec: the fields leader election reads and writes. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** coordination.k8s.io/v1 Lease. */
export interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: LeaseSpec;
}

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  rest: RestClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease; every replica of one operator must use the same. */
  name: string;
  /** This candidate's identity; default `<hostname>_<uuid>`. */
  identity?: string;
  /** Labels of the Lease when this candidate creates it (a shard set's membership Leases carry the set's name). */
  labels?: Record<string, string>;
  /** How long a lease stays valid without renewal; others take over after it. Default 15 s. */
  leaseDurationMs?: number;
  /** The leader gives up if it cannot renew for this long (must be < leaseDuration). Default 10 s. */
  renewDeadlineMs?: number;
  /** Interval between acquire and renew attempts. Default 2 s. */
  retryPeriodMs?: number;
  logger?: Logger;
  clock?: Clock;
}

/** Writes of a release tried before giving up on conflicts. */
const RELEASE_ATTEMPTS = 5;

/** MicroTime as the apiserver writes it: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election through a coordination.k8s.io/v1 Lease. A candidate takes the lease when it is
 * free, released, or not renewed for leaseDuration as observed on this candidate's own clock
 * (so clock skew between nodes does not matter); the leader renews every retryPeriod and steps
 * down when it could not renew within renewDeadline. Writes carry the resourceVersion, so two
 * candidates can never both win the same round.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly leases: ResourceClient<LeaseObject>;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private observed: LeaseSpec | undefined;
  private observedAt = 0;
  private lastRenew = 0;
  private leading = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.leases = new ResourceClient<LeaseObject>(options.rest, coordinationV1LeaseType, options.namespace);
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs)
      throw new RangeError('renewDeadline must be shorter than leaseDuration');
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({
      lease: `${options.namespace}/${options.name}`,
      identity: this.identity,
    });
  }

  /**
   * True while this candidate holds the lease: false from the moment its last renewal is older
   * than the renew deadline, on its own clock, even before the renewal loop has noticed.
   */
  get isLeader(): boolean {
    return this.leading && this.clock.now() - this.lastRenew < this.renewDeadlineMs;
  }

  /** Tries every retryPeriod until the lease is ours. Rejects with the signal's reason when aborted. */
  async acquire(signal: AbortSignal): Promise<void> {
    this.logger.info('waiting to acquire the leader lease');
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (await this.tryAcquireOrRenew(signal)) {
        this.leading = true;
        this.lastRenew = this.clock.now();
        this.logger.info('acquired the leader lease');
        return;
      }
      await sleep(this.retryPeriodMs * (1 + Math.random() * 0.2), signal, this.clock);
    }
  }

  /**
   * Renews every retryPeriod while leading. Resolves `'lost'` when no renewal succeeded within
   * renewDeadline, or `'stopped'` when `signal` aborts.
   */
  async holdLease(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    for (;;) {
      try {
        await sleep(this.retryPeriodMs, signal, this.clock);
      } catch {
        return 'stopped';
      }
      // Like client-go, a renewal may not outlast the renew deadline: a request that hangs or is
      // retried by the client is cut off there, so the leader steps down before the lease can
      // expire for the others, whatever the network does.
      const remaining = this.lastRenew + this.renewDeadlineMs - this.clock.now();
      let renewed = false;
      if (remaining > 0) {
        const attempt = new AbortController();
        const onStop = (): void => attempt.abort(signal.reason);
        signal.addEventListener('abort', onStop, { once: true });
        // The deadline is a timer of its own: whatever the renewal awaits (a credential plugin, a
        // request that ignores its signal), the lease counts as lost when the deadline passes.
        let cancelDeadline: () => void = () => undefined;
        const deadlinePassed = new Promise<boolean>((resolve) => {
          cancelDeadline = this.clock.setTimer(() => {
            attempt.abort(new Error('renew deadline passed'));
            resolve(false);
          }, remaining);
        });
        try {
          // One span per renewal (its GET and PUT are children), so a slow renewal shows in a trace.
          renewed = await inSpan('leader election renew', {}, async (span) => {
            span?.setAttributes({ 'kop.lease.name': this.options.name, 'kop.lease.holder': this.identity });
            const ok = await Promise.race([
              this.tryAcquireOrRenew(attempt.signal, remaining).catch(() => false),
              deadlinePassed,
            ]);
            span?.setAttribute('kop.lease.renewed', ok);
            return ok;
          });
        } finally {
          cancelDeadline();
          signal.removeEventListener('abort', onStop);
        }
      }
      if (signal.aborted) return 'stopped';
      if (renewed) {
        this.lastRenew = this.clock.now();
      } else if (this.clock.now() - this.lastRenew >= this.renewDeadlineMs) {
        this.leading = false;
        this.logger.error('lost the leader lease: could not renew within the renew deadline');
        return 'lost';
      }
    }
  }

  /**
   * Gives the lease up so a standby takes over at once instead of after leaseDuration. A write
   * that conflicts (a renewal still in flight landed first) is read and tried again, a few times
   * within the renew deadline, since a lease left looking held delays every standby by a duration.
   */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    const deadline = this.clock.now() + this.renewDeadlineMs;
    for (let attempt = 1; ; attempt++) {
      const timeoutMs = Math.max(1, deadline - this.clock.now());
      try {
        const lease = await this.leases.get(this.options.name, { timeoutMs });
        if (lease.spec?.holderIdentity !== this.identity) return;
        const now = microTime(this.clock.now());
        await this.leases.update(
          {
            ...lease,
            spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
          },
          { timeoutMs: Math.max(1, deadline - this.clock.now()) },
        );
        this.logger.info('released the leader lease');
        return;
      } catch (err) {
        if (isConflict(err) && attempt < RELEASE_ATTEMPTS && this.clock.now() < deadline) continue;
        this.logger.warn('could not release the leader lease; it expires after its duration', { err });
        return;
      }
    }
  }

  /** One attempt: create the lease, renew ours, or take one that is free or expired. */
  private async tryAcquireOrRenew(signal: AbortSignal, maxTimeoutMs = Infinity): Promise<boolean> {
    const now = this.clock.now();
    const call = {
      signal,
      timeoutMs: Math.max(
        1,
        Math.min(maxTimeoutMs, Math.max(1000, Math.min(this.renewDeadlineMs, this.retryPeriodMs * 2))),
      ),
    };
    const durationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    let lease: LeaseObject;
    try {
      lease = await this.leases.get(this.options.name, call);
    } catch (err) {
      if (!isNotFound(err)) {
        this.logger.warn('reading the leader lease failed', { err });
        return false;
      }
      const spec: LeaseSpec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      };
      try {
        await this.leases.create(
          {
            metadata: {
              name: this.options.name,
              namespace: this.options.namespace,
              ...(this.options.labels ? { labels: this.options.labels } : {}),
            },
            spec,
          },
          call,
        );
        this.observe(spec, now);
        return true;
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) this.logger.warn('creating the leader lease failed', { err: createErr });
        return false;
      }
    }
    const current = lease.spec ?? {};
    if (!this.observed || !sameSpec(this.observed, current)) this.observe(current, now);
    const holder = current.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.identity;
    const validForMs = (current.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (heldByOther && this.observedAt + validForMs > now) return false;
    const ours = holder === this.identity;
    const spec: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: ours && current.acquireTime ? current.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: ours ? (current.leaseTransitions ?? 0) : (current.leaseTransitions ?? 0) + 1,
    };
    try {
      await this.leases.update({ ...lease, spec }, call);
      this.observe(spec, now);
      return true;
    } catch (err) {
      if (!isConflict(err)) this.logger.warn('updating the leader lease failed', { err });
      return false;
    }
  }

  private observe(spec: LeaseSpec, at: number): void {
    this.observed = spec;
    this.observedAt = at;
  }
}

function sameSpec(a: LeaseSpec, b: LeaseSpec): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.leaseDurationSeconds === b.leaseDurationSeconds
  );
}
