import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '@fleet/errors';

/**
 * How many times the header `name` (lower case) appears in the request head. Reads `rawHeaders`:
 * `req.headers` cannot tell, since Node joins a repeated custom header into one value
 * (`alice, bob`) and keeps only the first of a repeated `Authorization` or `Content-Type`.
 */
function countHeader(req: IncomingMessage, name: string): number {
  const raw = req.rawHeaders;
  let count = 0;
  for (let index = 0; index < raw.length; index += 2) {
    const each = raw[index];
    if (each !== undefined && each.length === name.length && each.toLowerCase() === name) {
      count += 1;
    }
  }
  return count;
}

/** Options for {@link readSingleHeader} and {@link assertHeadersSentOnce}. */
export interface SingleHeaderOptions {
  /** How the header is named in the error (param and message). @default the name as given */
  label?: string;
}

function repeatedHeaderError(label: string, count: number): BadRequestError {
  return new BadRequestError(
    `${label} was sent ${count} times; send it once. A repeated header would be read as one joined value (or only its first), so the request is refused instead.`,
    { param: label },
  );
}

/**
 * The value of a header that must appear at most once (identity and routing headers), or
 * undefined when it is absent.
 *
 * @throws BadRequestError (400, `param` the header) when it was sent more than once.
 * @example
 * const user = readSingleHeader(req, 'X-Fleet-User'); // 'alice', or 400 for alice + bob
 */
export function readSingleHeader(
  req: IncomingMessage,
  name: string,
  { label = name }: SingleHeaderOptions = {},
): string | undefined {
  const key = name.toLowerCase();
  const value = req.headers[key];
  if (value === undefined) return undefined;
  const count = countHeader(req, key);
  if (count > 1 || Array.isArray(value)) {
    throw repeatedHeaderError(label, Math.max(count, Array.isArray(value) ? value.length : 1));
  }
  return value;
}

/**
 * Refuses a request that sent any of `names` more than once (see {@link readSingleHeader}). One
 * pass over the request head; nothing is allocated for a request that sent each at most once.
 *
 * @throws BadRequestError (400, `param` the first repeated header, as spelt in `names`).
 * @example
 * assertHeadersSentOnce(req, ['Authorization', 'X-Fleet-User']);
 */
export function assertHeadersSentOnce(req: IncomingMessage, names: readonly string[]): void {
  for (const name of names) {
    const key = name.toLowerCase();
    if (req.headers[key] === undefined) continue;
    const count = countHeader(req, key);
    if (count > 1) throw repeatedHeaderError(name, count);
  }
}
