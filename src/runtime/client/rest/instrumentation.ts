import { SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ApiError } from '../errors/api-error.js';
import { tracer } from '../../util/tracing.js';

/** One call of a RestClient as its observers see it (a request with its retries, or a watch). */
export interface RestCallInfo {
  method: string;
  path: string;
  /** `host:port` of the apiserver, the `host` label of client-go's metrics. */
  host: string;
  watch: boolean;
}

/** What an observer is told about one call, in order: limiter waits and answers per attempt, retries, the end. */
export interface RestCallObservation {
  /** The client-side limiter held the attempt for `seconds`; called for each attempt while a limiter is on. */
  rateLimited?(seconds: number): void;
  /** An attempt got its answer's status line (`code`), or failed without one (`code` undefined). */
  answered?(code: number | undefined): void;
  /** The call is sent again after `waitSeconds` (the 429, 5xx or reset that caused it was reported to `answered`). */
  retrying?(code: number | undefined, waitSeconds: number): void;
  /** The call is over: `error` is what it throws, undefined when it succeeded. */
  end?(error: unknown): void;
}

/** Told about every call of the RestClients it is attached to (the manager's client metrics). */
export interface RestCallObserver {
  start(call: RestCallInfo): RestCallObservation;
}

interface Instrumented {
  readonly config: { readonly server: string };
}

interface ClientState {
  host: string;
  observers: RestCallObserver[];
}

const states = new WeakMap<Instrumented, ClientState>();

function stateOf(client: Instrumented): ClientState {
  let state = states.get(client);
  if (!state) {
    state = { host: new URL(client.config.server).host, observers: [] };
    states.set(client, state);
  }
  return state;
}

/**
 * Attaches `observer` to the calls of `client` (kept outside RestClient's options: an internal
 * hook of the manager, not a public knob). Returns the detach function.
 */
export function observeRestCalls(client: Instrumented, observer: RestCallObserver): () => void {
  const observers = stateOf(client).observers;
  observers.push(observer);
  return () => {
    const at = observers.indexOf(observer);
    if (at >= 0) observers.splice(at, 1);
  };
}

/** A call under observation: the hooks RestClient calls, and the headers that carry the trace to the apiserver. */
export interface RestCall extends Required<RestCallObservation> {
  /** `traceparent` (and the other propagated fields) when the call is traced; undefined otherwise. */
  readonly headers: Record<string, string> | undefined;
}

/**
 * Starts the observation of one call: a client span when an OpenTelemetry SDK is registered
 * (without one no span is started at all), and the attached observers. Undefined when there is
 * neither, so an untraced, unmetered client does no more than this lookup.
 */
export function startRestCall(
  client: Instrumented,
  method: string,
  path: string,
  watch: boolean,
): RestCall | undefined {
  const state = stateOf(client);
  const span = watch ? undefined : startClientSpan(state.host, method, path);
  if (!span && state.observers.length === 0) return undefined;
  return new ObservedCall(state, { method, path, host: state.host, watch }, span);
}

/** A call with its observers' observations and its span (one object per call, its hooks on the prototype). */
class ObservedCall implements RestCall {
  readonly headers: Record<string, string> | undefined;
  private readonly observations: RestCallObservation[];
  private resends = 0;
  private lastCode: number | undefined;

  constructor(
    state: ClientState,
    info: RestCallInfo,
    private readonly span: Span | undefined,
  ) {
    this.observations = state.observers.map((o) => o.start(info));
    if (span) {
      this.headers = {};
      propagation.inject(trace.setSpan(context.active(), span), this.headers);
    }
  }

  rateLimited(seconds: number): void {
    for (const o of this.observations) o.rateLimited?.(seconds);
    if (this.span && seconds > 0) this.span.addEvent('client-side rate limiter', { 'kop.wait_seconds': seconds });
  }

  answered(code: number | undefined): void {
    this.lastCode = code;
    for (const o of this.observations) o.answered?.(code);
  }

  retrying(code: number | undefined, waitSeconds: number): void {
    this.resends++;
    for (const o of this.observations) o.retrying?.(code, waitSeconds);
    this.span?.addEvent('retry', {
      ...(code !== undefined ? { 'http.response.status_code': code } : {}),
      'kop.wait_seconds': waitSeconds,
    });
  }

  end(error: unknown): void {
    for (const o of this.observations) o.end?.(error);
    const span = this.span;
    if (!span) return;
    if (this.lastCode !== undefined) span.setAttribute('http.response.status_code', this.lastCode);
    if (this.resends > 0) span.setAttribute('http.request.resend_count', this.resends);
    if (error !== undefined) {
      // HTTP semantics: the status code names the error when there is one, else the error's class.
      span.setAttribute('error.type', error instanceof ApiError ? String(error.code) : errorName(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    }
    span.end();
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

function startClientSpan(host: string, method: string, path: string): Span | undefined {
  const span = tracer()?.startSpan(method, { kind: SpanKind.CLIENT });
  if (!span?.isRecording()) return undefined;
  const target = describeApiPath(path);
  const resource = target.resource
    ? `${target.resource}${target.subresource ? `/${target.subresource}` : ''}`
    : undefined;
  span.updateName(resource ? `${method} ${resource}` : `${method} ${path}`);
  const colon = host.lastIndexOf(':');
  const attributes: Attributes = {
    'http.request.method': method,
    'server.address': colon > 0 ? host.slice(0, colon).replace(/^\[|\]$/g, '') : host,
    'url.path': path,
    'kop.k8s.verb': kubernetesVerb(method, target),
  };
  if (colon > 0) attributes['server.port'] = Number(host.slice(colon + 1));
  if (target.group !== undefined) attributes['kop.k8s.group'] = target.group;
  if (resource) attributes['kop.k8s.resource'] = resource;
  if (target.namespace) attributes['k8s.namespace.name'] = target.namespace;
  if (target.name) attributes['kop.k8s.object.name'] = target.name;
  span.setAttributes(attributes);
  return span;
}

/** The parts of a resource path: `/apis/<group>/<version>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]`. */
export function describeApiPath(path: string): {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
} {
  const parts = path.split('/').filter((p) => p !== '');
  let rest: string[];
  let group: string;
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else return {};
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0) return { group };
  return { group, resource: rest[0], namespace, name: rest[1], subresource: rest[2] };
}

/** The Kubernetes verb of a request, as audit logs and RBAC name it. */
function kubernetesVerb(method: string, target: { resource?: string; name?: string }): string {
  switch (method) {
    case 'GET':
      return target.resource && !target.name ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return target.resource && !target.name ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}
