import { PayloadTooLargeError } from '@fleet/errors';

/** The environment variable of each limit on reading a page. */
export const PAGE_LIMIT_NAMES = {
  maxNestingDepth: 'WEB_READ_MAX_NESTING_DEPTH',
  timeoutMs: 'WEB_READ_TIMEOUT_MS',
  maxMemoryMb: 'WEB_READ_MEMORY_MB',
} as const;

/** A limit on reading a page. */
export type PageLimit = keyof typeof PAGE_LIMIT_NAMES;

/**
 * A fetched page whose readable text could not be extracted within the limits: it nests its
 * elements deeper than WEB_READ_MAX_NESTING_DEPTH (refused before any DOM is built), or reading it
 * ran past WEB_READ_TIMEOUT_MS or WEB_READ_MEMORY_MB (its worker thread was stopped). 413
 * `PAYLOAD_TOO_LARGE`, not retryable; the details name the page, the limit's variable and value.
 * A page that fails this way is reported like any unreadable page: `read` mode fails with this
 * message, a search keeps the result's snippet.
 */
export class PageLimitError extends PayloadTooLargeError {
  readonly url: string;
  /** The limit's environment variable. */
  readonly limit: string;

  constructor({
    url,
    limit,
    max,
    reason,
    cause,
  }: {
    url: string;
    limit: PageLimit;
    max: number;
    /** What went over, e.g. `its elements nest more than 150 deep`. */
    reason: string;
    cause?: unknown;
  }) {
    super(`Could not read ${url}: ${reason} (${PAGE_LIMIT_NAMES[limit]}).`, {
      details: { url, limit: PAGE_LIMIT_NAMES[limit], max },
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
    });
    this.url = url;
    this.limit = PAGE_LIMIT_NAMES[limit];
  }
}
