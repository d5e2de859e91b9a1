import { z } from 'zod';

/** A TCP port, 1–65535. */
export const portSchema = z.coerce
  .number({ error: 'expected a port number' })
  .int('expected a whole number')
  .min(1, 'expected a port between 1 and 65535')
  .max(65535, 'expected a port between 1 and 65535');

/** A positive whole number (sizes, counts, milliseconds). */
export const positiveIntSchema = z.coerce
  .number({ error: 'expected a number' })
  .int('expected a whole number')
  .positive('expected a number above 0');

/** An absolute http(s) URL, trailing slashes removed. */
export const httpUrlSchema = z
  .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
  .transform((url) => url.replace(/\/+$/, ''));

/** A `redis://` or `rediss://` URL. */
export const redisUrlSchema = z.url({
  protocol: /^rediss?$/,
  error: 'expected a redis:// or rediss:// URL',
});

/** Where a Redis node or sentinel listens. */
export interface HostPort {
  host: string;
  port: number;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?):(\d{1,5})$/;

/**
 * Comma-separated `host:port` addresses (`redis-0:6379,redis-1:6379`; IPv6 in brackets,
 * `[::1]:6379`), as `{ host, port }` objects; blanks are dropped, at least one is required.
 */
export const hostPortListSchema = z.string().transform((value, context): HostPort[] => {
  const addresses: HostPort[] = [];
  for (const item of value.split(',').map((each) => each.trim())) {
    if (item === '') continue;
    const match = HOST_PORT.exec(item);
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535) {
      context.addIssue({
        code: 'custom',
        message: `expected comma-separated host:port addresses (port 1-65535), e.g. redis-0:6379,redis-1:6379; "${item}" is not one`,
      });
      return z.NEVER;
    }
    addresses.push({ host: (match[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port });
  }
  if (addresses.length === 0) {
    context.addIssue({ code: 'custom', message: 'expected at least one host:port address' });
    return z.NEVER;
  }
  return addresses;
});

/** `true/false/1/0/yes/no/on/off`, case-insensitive. */
export const booleanSchema = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'TRUE', 'FALSE', 'True', 'False'], {
    error: 'expected true or false',
  })
  .transform((value) => ['true', '1', 'yes', 'on'].includes(value.toLowerCase()));

/** A comma-separated list; blanks are dropped. */
export const listSchema = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== ''),
);

/** pino's log levels. */
export const logLevelSchema = z.enum(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  {
    error: 'expected one of fatal, error, warn, info, debug, trace, silent',
  },
);

/**
 * Byte sizes: a number of bytes, or with a unit: `512kb`, `4mb`, `1gb`. Give defaults with
 * `.prefault('1mb')` so they go through the transform (zod 4 `.default()` skips it).
 */
export const byteSizeSchema = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'expected a size such as 1048576, 512kb or 4mb')
  .transform((value) => {
    const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value);
    const amount = Number(match?.[1] ?? 0);
    const unit = (match?.[2] ?? 'b').toLowerCase();
    const scale = unit === 'gb' ? 1024 ** 3 : unit === 'mb' ? 1024 ** 2 : unit === 'kb' ? 1024 : 1;
    return Math.floor(amount * scale);
  });
