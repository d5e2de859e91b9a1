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
