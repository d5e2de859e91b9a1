import { lookup as dnsLookup } from 'node:dns/promises';
import axios, { type AxiosInstance } from 'axios';
import {
  AbortError,
  ConnectionError,
  FleetError,
  UnsupportedMediaTypeError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { createAddressGuard, type ResolveHost } from './create-address-guard';
import type { HostAllowlist } from './host-allowlist';
import { parseFetchUrl } from './parse-fetch-url';
import { mediaTypeOf, readPageBody } from './read-page-body';
import { requestPage } from './request-page';

export type { ResolvedAddress, ResolveHost } from './create-address-guard';

/** A page as fetched: the final URL after redirects and the decoded body. */
export interface FetchedPage {
  /** The URL asked for. */
  url: string;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  status: number;
  /** The media type, without parameters: `text/html`, `text/plain`, … */
  mediaType: string;
  body: string;
  /** The address the body was read from (the one checked). */
  address: string;
}

/** Fetches one page under the guard and the limits. */
export type PageFetcher = (
  url: string,
  options?: { signal?: AbortSignal | undefined },
) => Promise<FetchedPage>;

/** Options for {@link createPageFetcher}. */
export interface CreatePageFetcherOptions {
  /** Hosts fetched even on forbidden addresses (WEB_FETCH_ALLOWLIST). */
  allowlist: HostAllowlist;
  /** Largest body read, after decompression. @default 2097152 (2 MiB) */
  maxBytes?: number;
  /** Time for the whole fetch, redirects included. @default 10000 */
  timeoutMs?: number;
  /** Redirects followed; each hop is checked again. @default 5 */
  maxRedirects?: number;
  /** @default `dns.lookup(host, { all: true, verbatim: true })` */
  resolveHost?: ResolveHost;
  /** @default 'FleetWebAgent/0.1 (+https://github.com/a2a-fleet)' */
  userAgent?: string;
}

/** Media types the agent reads; anything else (PDF, images, binaries) is refused. */
const READABLE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/markdown',
]);

const defaultResolveHost: ResolveHost = async (host) =>
  dnsLookup(host, { all: true, verbatim: true });

/** Our own error inside axios's wrappers (a `lookup` or `beforeRedirect` refusal), if any. */
function fleetErrorIn(error: unknown): FleetError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current != null; depth += 1) {
    if (FleetError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What every fetch of one fetcher shares. */
interface FetchSettings {
  allowlist: HostAllowlist;
  resolveHost: ResolveHost;
  client: AxiosInstance;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** One fetch under its guard: the response judged (status, media type), then the body read. */
async function fetchGuarded(
  start: URL,
  signal: AbortSignal,
  settings: FetchSettings,
): Promise<FetchedPage> {
  const { allowlist, resolveHost, client, maxBytes, maxRedirects, userAgent } = settings;
  const guard = createAddressGuard({ start, allowlist, resolveHost, signal });
  const response = await requestPage({ client, guard, signal, maxBytes, maxRedirects, userAgent });
  const finalUrl = guard.current.href;
  const status = response.status;
  if (status >= 400 || status < 200) {
    response.data.destroy();
    throw new UpstreamError(`${finalUrl} answered HTTP ${status}.`, {
      status: status >= 400 ? status : 502,
      details: { url: finalUrl, status },
    });
  }
  const mediaType = mediaTypeOf(response);
  if (!READABLE_TYPES.has(mediaType)) {
    response.data.destroy();
    throw new UnsupportedMediaTypeError(
      `${finalUrl} is ${mediaType === '' ? 'of no declared type' : mediaType}; the web agent reads HTML and plain text pages only.`,
      { details: { url: finalUrl, mediaType } },
    );
  }
  const body = await readPageBody({ response, url: finalUrl, maxBytes });
  const redirects = [...guard.redirects];
  return {
    url: start.href,
    finalUrl,
    redirects,
    status,
    mediaType,
    body,
    address: guard.address ?? '',
  };
}

/**
 * A page fetcher that refuses private, loopback, link-local, metadata, unique-local, unspecified
 * and CGNAT addresses (and IPv4-mapped IPv6 forms of them) unless the allowlist names the host
 * (docs/architecture.md §10), over axios's Node adapter:
 *
 * - only http and https URLs, without credentials;
 * - the host is resolved first (every address, axios's `lookup`) and refused if any address is
 *   forbidden; the connection then goes to the address that was checked (the lookup answers it),
 *   so a second DNS answer cannot move it (DNS rebinding);
 * - redirects are followed up to `maxRedirects`, each hop checked the same way (`beforeRedirect`
 *   for the URL and IP literals, `lookup` for names);
 * - the whole fetch has `timeoutMs`; bodies over `maxBytes` (declared or read, after
 *   decompression) are refused; only HTML and plain text are read.
 *
 * @throws ForbiddenAddressError, BadRequestError (scheme, URL, too many redirects),
 *   UpstreamError (an HTTP error status), PayloadTooLargeError, UnsupportedMediaTypeError,
 *   UpstreamTimeoutError, ConnectionError, AbortError (the caller's signal).
 * @example
 * const fetchPage = createPageFetcher({ allowlist: createHostAllowlist(config.fetchAllowlist) });
 * const page = await fetchPage('https://example.com/post', { signal });
 */
export function createPageFetcher({
  allowlist,
  maxBytes = 2 * 1024 * 1024,
  timeoutMs = 10_000,
  maxRedirects = 5,
  resolveHost = defaultResolveHost,
  userAgent = 'FleetWebAgent/0.1 (+https://github.com/a2a-fleet)',
}: CreatePageFetcherOptions): PageFetcher {
  // Its own instance: interceptors or defaults set on axios's global one do not apply here.
  const client = axios.create();
  const settings: FetchSettings = {
    allowlist,
    resolveHost,
    client,
    maxBytes,
    maxRedirects,
    userAgent,
  };
  return async function fetchPage(raw, { signal } = {}) {
    const url = parseFetchUrl(raw);
    // One deadline for the whole fetch, body included (axios's `timeout` does not cover reading it).
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    try {
      return await fetchGuarded(url, combined, settings);
    } catch (error) {
      if (signal?.aborted === true)
        throw new AbortError(`Fetching ${raw} was cancelled.`, { cause: error });
      if (timeout.aborted) {
        throw new UpstreamTimeoutError(
          `${raw} did not answer within ${timeoutMs} ms (WEB_FETCH_TIMEOUT_MS).`,
          { cause: error, details: { url: raw } },
        );
      }
      const fleetError = fleetErrorIn(error);
      if (fleetError !== undefined) throw fleetError;
      throw new ConnectionError(
        `Could not fetch ${raw}: ${error instanceof Error ? error.message : String(error)}.`,
        { cause: error },
      );
    }
  };
}
