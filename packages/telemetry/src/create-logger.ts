import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { getActiveSessionId } from './with-baggage';

/** The fleet's logger: a pino logger writing one JSON object per line. */
export type Logger = PinoLogger;

/** Where log lines go; anything with `write(line)`. Defaults to stdout. */
export type { DestinationStream };

/** Options for {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Written as `service` on every line. */
  service: string;
  /** Minimum level: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`. @default 'info' */
  level?: string | undefined;
  /** Where lines go. @default stdout */
  destination?: DestinationStream | undefined;
  /** Extra paths to redact, in pino's syntax (`a.b`, `*.secret`, `headers["x-api-key"]`). */
  redact?: readonly string[] | undefined;
}

/**
 * Paths whose values are replaced by `[redacted]`: keys and tokens are never logged
 * (docs/architecture.md §10).
 */
export const REDACTED_PATHS: readonly string[] = [
  'authorization',
  'apiKey',
  'api_key',
  'token',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'request.headers.authorization',
  '*.authorization',
  '*.apiKey',
  '*.api_key',
  '*.token',
];

/**
 * Creates the JSON logger every service uses. Each line carries `service`, an ISO `time`, the
 * level as a word, and — inside an active span — `trace_id` and `span_id` (plus `session_id` when
 * the session is in the baggage), so a log line leads to its trace in Phoenix.
 *
 * @example
 * const logger = createLogger({ service: 'planner', level: config.logLevel });
 * logger.info({ nodes: plan.nodes.length }, 'plan ready');
 */
export function createLogger({
  service,
  level = 'info',
  destination,
  redact = [],
}: CreateLoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: [...REDACTED_PATHS, ...redact], censor: '[redacted]' },
    mixin: traceMixin,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

function traceMixin(): Record<string, string> {
  const fields: Record<string, string> = {};
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext !== undefined && isSpanContextValid(spanContext)) {
    fields['trace_id'] = spanContext.traceId;
    fields['span_id'] = spanContext.spanId;
  }
  const sessionId = getActiveSessionId();
  if (sessionId !== undefined) fields['session_id'] = sessionId;
  return fields;
}
