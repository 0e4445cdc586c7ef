import { existsSync } from 'node:fs';
import { activeSpanContext } from './tracing.js';

/** Severity of a log line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Key/value pairs attached to a log line. Errors are written as their message (and stack in debug). */
export type LogFields = Record<string, unknown>;

/** Structured logger used throughout the controller machinery and handed to reconcilers. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (e.g. the controller name, the object key). */
  child(fields: LogFields): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** `json` (one object per line), `text` (for terminals), or `auto` (default; also `KOP_LOG_FORMAT`). */
  format?: 'json' | 'text' | 'auto';
  /** Lowest level written; default `info` (also `KOP_LOG_LEVEL`). */
  level?: LogLevel;
  /** Where lines go; default process.stdout (what log collectors read from containers). */
  stream?: { write(chunk: string): unknown; isTTY?: boolean };
  /** Fields on every line. */
  fields?: LogFields;
  /** Environment read for the defaults; default process.env. */
  env?: Record<string, string | undefined>;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Creates a logger. `auto` writes JSON when the stream is not a terminal or when running in a
 * container (Kubernetes service env, /.dockerenv), so log collectors get structured lines, and
 * readable `time LEVEL message key=value` lines on a developer's terminal.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const stream = options.stream ?? process.stdout;
  const requested = options.format ?? (env.KOP_LOG_FORMAT as LoggerOptions['format']) ?? 'auto';
  const json =
    requested === 'json' ||
    (requested !== 'text' && (!stream.isTTY || env.KUBERNETES_SERVICE_HOST !== undefined || existsSync('/.dockerenv')));
  const level = options.level ?? (env.KOP_LOG_LEVEL as LogLevel | undefined) ?? 'info';
  const threshold = LEVELS[level] ?? LEVELS.info;
  return new StreamLogger(stream, json, threshold, options.fields ?? {});
}

/** A logger that drops everything (the default of components created without one). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

class StreamLogger implements Logger {
  constructor(
    private readonly stream: { write(chunk: string): unknown },
    private readonly json: boolean,
    private readonly threshold: number,
    private readonly inherited: LogFields,
    private readonly own?: LogFields,
  ) {}

  /**
   * The fields of every line, merged on the first write: a controller makes a child per
   * reconcile, and most reconciles write nothing at the level in force.
   */
  private merged: LogFields | undefined;
  private get fields(): LogFields {
    if (!this.own) return this.inherited;
    return (this.merged ??= { ...this.inherited, ...this.own });
  }

  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.write('error', message, fields);
  }

  child(fields: LogFields): Logger {
    return new StreamLogger(this.stream, this.json, this.threshold, this.fields, fields);
  }

  private write(level: LogLevel, message: string, fields?: LogFields): void {
    if (LEVELS[level] < this.threshold) return;
    const all: LogFields = { ...this.fields, ...fields };
    // A line written inside a span names it, as OpenTelemetry's log data model does, so a log
    // search leads to the trace. Without an SDK no span is valid and nothing is added.
    const span = activeSpanContext();
    if (span) {
      all.trace_id = span.traceId;
      all.span_id = span.spanId;
    }
    for (const [key, value] of Object.entries(all)) {
      if (value instanceof Error)
        all[key] = this.threshold <= LEVELS.debug ? (value.stack ?? value.message) : value.message;
    }
    const time = new Date().toISOString();
    if (this.json) {
      this.stream.write(`${safeStringify({ time, level, msg: message, ...all })}\n`);
      return;
    }
    const pairs = Object.entries(all)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : safeStringify(value)}`)
      .join(' ');
    this.stream.write(`${time} ${level.toUpperCase().padEnd(5)} ${message}${pairs ? ` ${pairs}` : ''}\n`);
  }
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
