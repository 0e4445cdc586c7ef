// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import type * as TraceSdk from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'kop/runtime';

/** A started OpenTelemetry SDK; `shutdown` sends the spans still batched and stops it. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** How long `shutdown` waits for the collector: an unreachable one must not hold the pod past its grace period. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set, as the OpenTelemetry SDKs do: kop/runtime records a span for each reconcile, API call,
 * cache read, leader-election renewal and webhook request, and this exports them over OTLP/HTTP.
 * Without an endpoint (or with OTEL_SDK_DISABLED=true) nothing of the SDK is imported, so the
 * manager pays nothing. Call it before the manager makes its first call.
 *
 * Read from the environment: OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL (http/protobuf, the default, or
 * http/json), the exporter's own OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, _TIMEOUT and _COMPRESSION,
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (over `serviceName`), OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, and OTEL_BSP_SCHEDULE_DELAY (how often batched spans are sent, in ms).
 * A value it cannot use is an error that names the variable.
 */
export async function startTracing(serviceName: string, logger: Logger): Promise<Tracing | undefined> {
  const env = process.env;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL is ${JSON.stringify(protocol)}; this manager exports over OTLP/HTTP: use http/protobuf or http/json`,
    );
  }
  const scheduledDelayMillis = positiveNumber('OTEL_BSP_SCHEDULE_DELAY');

  // Imported here, not at the top, so that a manager without an endpoint never loads them.
  const [api, sdk, resources, exporterModule] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const sampler = samplerFromEnv(sdk);

  // Export failures (a collector that is down) go to the manager's log rather than nowhere.
  api.diag.setLogger(
    {
      error: (message, ...args) => logger.error(message, { otel: args.map(String) }),
      warn: (message, ...args) => logger.warn(message, { otel: args.map(String) }),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    api.DiagLogLevel.WARN,
  );

  const provider = new sdk.NodeTracerProvider({
    // The project's name, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise (later wins).
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
      .merge(resources.detectResources({ detectors: [resources.envDetector] })),
    sampler,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporterModule.OTLPTraceExporter(), { scheduledDelayMillis })],
  });
  // Sets the AsyncLocalStorage context manager (a reconcile's API calls become its children) and
  // the W3C trace-context propagator (the apiserver and webhooks continue the trace).
  provider.register();
  logger.info('exporting traces over OTLP', { protocol, serviceName: env.OTEL_SERVICE_NAME || serviceName });

  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.error('tracing shutdown timed out; the last spans may be lost', { timeoutMs: SHUTDOWN_TIMEOUT_MS });
          resolve();
        }, SHUTDOWN_TIMEOUT_MS);
      });
      try {
        await Promise.race([provider.shutdown(), timeout]);
      } catch (error) {
        logger.error('cannot send the last spans', { err: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A positive number from the environment variable `name`, or undefined when it is not set. */
function positiveNumber(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} is ${JSON.stringify(raw)}; want a number above 0`);
  return value;
}

/** The sampler OTEL_TRACES_SAMPLER names (the SDK's default, parent-based always-on, when unset). */
function samplerFromEnv(sdk: typeof TraceSdk): TraceSdk.Sampler {
  const name = process.env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  const ratio = () => {
    const raw = process.env.OTEL_TRACES_SAMPLER_ARG?.trim();
    if (!raw) return 1;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      throw new Error(`OTEL_TRACES_SAMPLER_ARG is ${JSON.stringify(raw)}; want a ratio from 0 to 1`);
    }
    return value;
  };
  switch (name) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER is ${JSON.stringify(name)}; use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio`,
      );
  }
}
