import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  FleetError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { classifyAddress } from './classify-address';
import { ForbiddenAddressError } from './forbidden-address-error';
import type { HostAllowlist } from './host-allowlist';

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses (`dns.lookup` with `all: true` by default). */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const defaultResolveHost: ResolveHost = async (host) =>
  dnsLookup(host, { all: true, verbatim: true });

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** A `lookup` that always answers the address already checked, so DNS cannot change it (rebinding). */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return function lookupPinned(_hostname, options, callback) {
    if (options.all === true) {
      callback(null, [{ address: target.address, family: target.family }]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequestError(`${raw} is not a valid URL.`, { details: { url: raw } });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadRequestError(
      `Refused to fetch ${raw}: only http and https URLs are fetched (not ${url.protocol.replace(/:$/, '')}).`,
      { details: { url: raw } },
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new BadRequestError(
      `Refused to fetch ${url.origin}: URLs with credentials are not fetched.`,
    );
  }
  return url;
}

function mediaTypeOf(response: IncomingMessage): string {
  return (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function charsetOf(response: IncomingMessage): string {
  const match = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(response.headers['content-type'] ?? '');
  return match?.[1]?.toLowerCase() ?? 'utf-8';
}

function decodeText(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * A page fetcher that refuses private, loopback, link-local, metadata, unique-local, unspecified
 * and CGNAT addresses (and IPv4-mapped IPv6 forms of them) unless the allowlist names the host
 * (docs/architecture.md §10):
 *
 * - only http and https URLs, without credentials;
 * - the host is resolved first (every address) and refused if any address is forbidden; the
 *   connection then goes to the address that was checked (a pinned `lookup`), so a second DNS
 *   answer cannot move it (DNS rebinding);
 * - redirects are followed by hand, at most `maxRedirects`, and each hop is checked the same way;
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
  async function checkedAddress(url: URL, signal: AbortSignal): Promise<ResolvedAddress> {
    const host = hostOf(url);
    const family = isIP(host);
    let addresses: ResolvedAddress[];
    if (family !== 0) {
      addresses = [{ address: host, family }];
    } else {
      try {
        addresses = await resolveHost(host);
      } catch (error) {
        throw new ConnectionError(`Could not resolve ${host}.`, { cause: error, retryable: false });
      }
      signal.throwIfAborted();
    }
    const first = addresses[0];
    if (first === undefined) {
      throw new ConnectionError(`${host} has no address.`, { retryable: false });
    }
    if (!allowlist(host)) {
      for (const { address } of addresses) {
        const addressClass = classifyAddress(address);
        if (addressClass !== undefined) {
          throw new ForbiddenAddressError({ url: url.href, host, address, addressClass });
        }
      }
    }
    return first;
  }

  function request(
    url: URL,
    target: ResolvedAddress,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const transport = url.protocol === 'https:' ? https : http;
    const host = hostOf(url);
    return new Promise((resolve, reject) => {
      const outgoing = transport.request(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: {
            'user-agent': userAgent,
            accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1',
            'accept-encoding': 'gzip, deflate, br',
          },
          lookup: pinnedLookup(target),
          // A fresh socket per request: a pooled one could have been opened for another address.
          agent: false,
          ...(isIP(host) === 0 && url.protocol === 'https:' ? { servername: host } : {}),
          signal,
        },
        resolve,
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  async function readBody(response: IncomingMessage, url: string): Promise<Buffer> {
    const declared = Number(response.headers['content-length'] ?? NaN);
    const tooLarge = (): PayloadTooLargeError =>
      new PayloadTooLargeError(
        `${url} is larger than the ${maxBytes} bytes the web agent reads (WEB_FETCH_MAX_BYTES).`,
        { details: { url, limit: maxBytes } },
      );
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      size += buffer.length;
      if (size > maxBytes) {
        response.destroy();
        throw tooLarge();
      }
      chunks.push(buffer);
    }
    const raw = Buffer.concat(chunks);
    const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    try {
      // maxOutputLength bounds what a small compressed body may expand to (decompression bombs).
      if (encoding === 'gzip' || encoding === 'x-gzip')
        return gunzipSync(raw, { maxOutputLength: maxBytes });
      if (encoding === 'deflate') return inflateSync(raw, { maxOutputLength: maxBytes });
      if (encoding === 'br') return brotliDecompressSync(raw, { maxOutputLength: maxBytes });
    } catch (error) {
      // zlib's RangeError for maxOutputLength (compared by code: jest runs tests in another realm).
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw new UpstreamError(`${url} sent a body that does not decompress (${encoding}).`, {
        status: 502,
        cause: error,
      });
    }
    if (encoding !== 'identity' && encoding !== '') {
      throw new UnsupportedMediaTypeError(
        `${url} uses the content encoding ${encoding}, which the web agent does not read.`,
      );
    }
    return raw;
  }

  async function follow(start: URL, signal: AbortSignal): Promise<FetchedPage> {
    const redirects: string[] = [];
    let current = start;
    for (;;) {
      const target = await checkedAddress(current, signal);
      const response = await request(current, target, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        response.resume();
        if (redirects.length >= maxRedirects) {
          throw new BadRequestError(
            `${start.href} redirects more than ${maxRedirects} times (WEB_FETCH_MAX_REDIRECTS).`,
            { details: { url: start.href, redirects } },
          );
        }
        let next: URL;
        try {
          next = parseTarget(new URL(location, current).href);
        } catch (error) {
          throw FleetError.isInstance(error)
            ? new BadRequestError(
                `${current.href} redirects to a URL the web agent does not fetch: ${error.message}`,
                { cause: error },
              )
            : error;
        }
        redirects.push(next.href);
        current = next;
        continue;
      }
      if (status >= 400 || status < 200) {
        response.resume();
        throw new UpstreamError(`${current.href} answered HTTP ${status}.`, {
          status: status >= 400 ? status : 502,
          details: { url: current.href, status },
        });
      }
      const mediaType = mediaTypeOf(response);
      if (!READABLE_TYPES.has(mediaType)) {
        response.destroy();
        throw new UnsupportedMediaTypeError(
          `${current.href} is ${mediaType === '' ? 'of no declared type' : mediaType}; the web agent reads HTML and plain text pages only.`,
          { details: { url: current.href, mediaType } },
        );
      }
      const bytes = await readBody(response, current.href);
      return {
        url: start.href,
        finalUrl: current.href,
        redirects,
        status,
        mediaType,
        body: decodeText(bytes, charsetOf(response)),
        address: target.address,
      };
    }
  }

  return async function fetchPage(raw, { signal } = {}) {
    const url = parseTarget(raw);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    try {
      return await follow(url, combined);
    } catch (error) {
      if (signal?.aborted === true)
        throw new AbortError(`Fetching ${raw} was cancelled.`, { cause: error });
      if (timeout.aborted) {
        throw new UpstreamTimeoutError(
          `${raw} did not answer within ${timeoutMs} ms (WEB_FETCH_TIMEOUT_MS).`,
          { cause: error, details: { url: raw } },
        );
      }
      if (FleetError.isInstance(error)) throw error;
      throw new ConnectionError(
        `Could not fetch ${raw}: ${error instanceof Error ? error.message : String(error)}.`,
        {
          cause: error,
        },
      );
    }
  };
}
