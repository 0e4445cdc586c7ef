import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '../client/types/meta.js';
import type { RestClient } from '../client/rest/rest-client.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import { eventsV1EventType } from '../builtin/index.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { metaOf } from '../cache/object-meta.js';

/** What happened: `Normal` for progress, `Warning` for something a human should look at. */
export type EventType = 'Normal' | 'Warning';

/** One event to record. */
export interface EventInput {
  type: EventType;
  /** CamelCase reason, e.g. `Created`, `ReconcileFailed`. */
  reason: string;
  /** What the controller did or failed to do, e.g. `Create`, `Reconcile`. Defaults to the reason. */
  action?: string;
  /** Human-readable description (at most 1024 bytes of UTF-8 are kept). */
  note: string;
}

interface EventsV1Event {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  eventTime?: string;
  series?: { count: number; lastObservedTime: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  note?: string;
  type?: string;
  regarding?: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
}

interface SeriesState {
  name: string;
  namespace: string;
  count: number;
  lastObserved: number;
  writing: Promise<void> | undefined;
  dirty: boolean;
}

/** Repeats within this window update one Event's series instead of creating new Events. */
const SERIES_WINDOW_MS = 6 * 60_000;

/**
 * Shortens `text` to at most `limit` bytes of UTF-8, ending in `...` when cut. The apiserver
 * measures note, reason, action and reportingInstance in bytes, so a string that is short in
 * characters but holds multi-byte ones would otherwise get the whole Event rejected.
 */
function truncateUtf8(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit - 3;
  // Back up to the start of a character: continuation bytes look like 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}...`;
}

/**
 * `<object name>.<random>`: the object name is shortened when needed (names go up to 253
 * characters, the Event's own name may not be longer either), ending on a letter or digit.
 */
function eventName(objectName: string): string {
  const suffix = randomBytes(8).toString('hex');
  const prefix = objectName.slice(0, 253 - suffix.length - 1).replace(/[^a-z0-9]+$/, '');
  return `${prefix || 'object'}.${suffix}`;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * The apiserver rejects every Event whose reportingController is not a qualified name
 * (`[dns-subdomain/]name`, name at most 63 characters); checked once, up front, because recording
 * only logs failures and the events would silently never appear.
 */
function checkComponent(component: string): void {
  const slash = component.indexOf('/');
  if (QUALIFIED_NAME.test(component) && (slash < 0 || slash <= 253)) return;
  throw new TypeError(
    `event recorder component "${component}" is not a qualified name: use letters, digits, '-', '_' and '.', at most 63 characters, optionally after a DNS prefix and '/', e.g. "rediscluster-controller" or "example.com/rediscluster-controller"`,
  );
}

/**
 * Records events.k8s.io/v1 Events about objects. The same event (object at one resourceVersion,
 * type, reason, action; the note is not compared, as in client-go) repeated within a few minutes
 * is aggregated: the first creates an Event and keeps its note, later ones patch its
 * `series.count` and `series.lastObservedTime`, so a failing reconcile loop does not flood the API. Recording never throws: failures are logged, since events are best effort.
 */
export class EventRecorder {
  private readonly series = new Map<string, SeriesState>();
  private readonly component: string;
  private readonly instance: string;
  private readonly logger: Logger;

  constructor(private readonly options: { rest: RestClient; component: string; instance?: string; logger?: Logger }) {
    checkComponent(options.component);
    this.component = options.component;
    this.instance = truncateUtf8(options.instance ?? `${options.component}-${hostname()}`, 128);
    this.logger = (options.logger ?? silentLogger).child({ eventRecorder: options.component });
  }

  /** Records a Normal event. */
  normal(object: KubernetesObject, reason: string, note: string, action?: string): Promise<void> {
    return this.record(object, { type: 'Normal', reason, note, action });
  }

  /** Records a Warning event. */
  warning(object: KubernetesObject, reason: string, note: string, action?: string): Promise<void> {
    return this.record(object, { type: 'Warning', reason, note, action });
  }

  /** Records an event about `object`; resolves once written (or once the failure was logged). */
  async record(object: KubernetesObject, input: EventInput): Promise<void> {
    const meta = metaOf(object);
    const namespace = meta.namespace || 'default';
    const reason = truncateUtf8(input.reason, 128);
    const action = truncateUtf8(input.action ?? input.reason, 128);
    const note = truncateUtf8(input.note, 1024);
    // client-go's key: the regarding reference (so a new resourceVersion starts a new Event), type,
    // reason and action, but not the note, so a message that varies per attempt still aggregates.
    const key = [meta.uid ?? `${namespace}/${meta.name}`, meta.resourceVersion ?? '', input.type, reason, action].join(
      '\u0000',
    );
    const now = Date.now();
    const state = this.series.get(key);
    const events = new ResourceClient<EventsV1Event>(this.options.rest, eventsV1EventType, namespace);
    if (state && now - state.lastObserved < SERIES_WINDOW_MS) {
      state.count++;
      state.lastObserved = now;
      state.dirty = true;
      // One write in flight per series: repeats meanwhile are folded into the next patch.
      state.writing ??= this.flushSeries(events, state);
      return state.writing;
    }
    const name = eventName(meta.name ?? 'object');
    this.series.set(key, { name, namespace, count: 1, lastObserved: now, writing: undefined, dirty: false });
    this.prune(now);
    try {
      await events.create({
        metadata: { name, namespace },
        eventTime: microTime(now),
        reportingController: this.component,
        reportingInstance: this.instance,
        action,
        reason,
        note,
        type: input.type,
        regarding: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: meta.name,
          namespace: meta.namespace,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        },
      });
    } catch (err) {
      this.series.delete(key);
      this.logger.warn('could not record event', { err, reason });
    }
  }

  private async flushSeries(events: ResourceClient<EventsV1Event>, state: SeriesState): Promise<void> {
    try {
      while (state.dirty) {
        state.dirty = false;
        await events.patch(state.name, {
          type: 'merge',
          patch: { series: { count: state.count, lastObservedTime: microTime(state.lastObserved) } },
        });
      }
    } catch (err) {
      this.logger.warn('could not update event series', { err, event: state.name });
    } finally {
      state.writing = undefined;
    }
  }

  private prune(now: number): void {
    if (this.series.size < 4096) return;
    for (const [key, state] of this.series) if (now - state.lastObserved >= SERIES_WINDOW_MS) this.series.delete(key);
  }
}
