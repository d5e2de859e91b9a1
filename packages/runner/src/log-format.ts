import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { createPalette, type Palette } from './terminal';

/** The fields of a pino line the formatter reads; everything else is shown as `key=value`. */
const logLineSchema = z.looseObject({
  level: z.union([z.number(), z.string()]).optional(),
  time: z.union([z.number(), z.string()]).optional(),
  msg: z.unknown().optional(),
  service: z.string().optional(),
  name: z.string().optional(),
  err: z.unknown().optional(),
});

const PINO_LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields pino writes on every line that say nothing to a reader. */
const HIDDEN_FIELDS = new Set([
  'level',
  'time',
  'msg',
  'service',
  'name',
  'pid',
  'hostname',
  'v',
  'err',
]);

function levelName(level: number | string | undefined): string {
  if (level === undefined) return 'INFO';
  if (typeof level === 'number') return PINO_LEVELS[level] ?? `L${level}`;
  return level.toUpperCase();
}

function colourLevel(level: string, palette: Palette): string {
  const padded = level.padEnd(5);
  switch (level) {
    case 'TRACE':
    case 'DEBUG':
      return palette.dim(padded);
    case 'INFO':
      return palette.green(padded);
    case 'WARN':
      return palette.yellow(padded);
    case 'ERROR':
    case 'FATAL':
      return palette.red(padded);
    default:
      return padded;
  }
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}

/** `HH:MM:SS.mmm` in local time, or the raw value when it is not a time. */
export function formatLogTime(time: number | string | undefined): string {
  if (time === undefined) return '';
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return String(time);
  const milliseconds = String(date.getMilliseconds()).padStart(3, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${milliseconds}`;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s="]/.test(value) ? JSON.stringify(value) : value;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

function formatError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null)
    return error === undefined ? undefined : formatValue(error);
  const record = error as Record<string, unknown>;
  if (typeof record['stack'] === 'string') return record['stack'];
  if (typeof record['message'] === 'string') return record['message'];
  return formatValue(error);
}

/** Options for {@link formatLogLine}. */
export interface FormatLogLineOptions {
  /** One line of a service's log (pino JSON, or anything else). */
  line: string;
  /** @default false */
  color?: boolean;
}

/**
 * Formats one pino JSON line for people: `12:03:04.123 INFO  gateway  listening  port=8080`, with
 * an error's stack on the lines below. Lines that are not JSON objects come back unchanged.
 *
 * @example
 * formatLogLine({ line: '{"level":30,"time":0,"msg":"up"}' });
 */
export function formatLogLine({ line, color = false }: FormatLogLineOptions): string {
  if (!line.trimStart().startsWith('{')) return line;
  const parsed = safeParseJson({ text: line, schema: logLineSchema, subject: 'A log line' });
  if (!parsed.success) return line;
  const palette = createPalette(color);
  const entry = parsed.value;
  const parts: string[] = [];
  const time = formatLogTime(entry.time);
  if (time !== '') parts.push(palette.dim(time));
  parts.push(colourLevel(levelName(entry.level), palette));
  const service = entry.service ?? entry.name;
  if (service !== undefined) parts.push(palette.cyan(service));
  if (entry.msg !== undefined) {
    parts.push(typeof entry.msg === 'string' ? entry.msg : formatValue(entry.msg));
  }
  const extras = Object.entries(entry)
    .filter(([key, value]) => !HIDDEN_FIELDS.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  if (extras.length > 0) parts.push(palette.dim(extras.join(' ')));
  let text = parts.join(' ');
  const error = formatError(entry.err);
  if (error !== undefined) {
    text += `\n${error
      .split('\n')
      .map((errorLine) => `    ${palette.red(errorLine)}`)
      .join('\n')}`;
  }
  return text;
}
