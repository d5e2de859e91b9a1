import type { Readable } from 'node:stream';
import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { BadRequestError } from '@fleet/errors';
import type { AddressGuard } from './create-address-guard';

/** Options for {@link requestPage}. */
export interface RequestPageOptions {
  client: AxiosInstance;
  /** The fetch's address guard: its start URL is requested, its checks run on every hop. */
  guard: AddressGuard;
  signal: AbortSignal;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** A response whose body is still to be read (already decompressed, capped at `maxBytes`). */
export type PageResponse = AxiosResponse<Readable>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * axios `lookup` (callback form) over the guard: resolved, checked, and pinned to the checked
 * address, so a second DNS answer cannot move the connection (DNS rebinding). axios adapts the
 * array answer to what Node asked for (`all` or not).
 */
function guardedLookup(guard: AddressGuard): NonNullable<AxiosRequestConfig['lookup']> {
  return function lookupChecked(hostname, _options, callback) {
    guard.resolve(hostname).then(
      ({ address, family }) => callback(null, [{ address, family: family === 6 ? 6 : 4 }]),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), []),
    );
  };
}

function tooManyRedirects(guard: AddressGuard, maxRedirects: number): BadRequestError {
  const url = guard.start.href;
  return new BadRequestError(
    `${url} redirects more than ${maxRedirects} times (WEB_FETCH_MAX_REDIRECTS).`,
    { details: { url, redirects: guard.redirects } },
  );
}

/**
 * GETs the guard's start URL with axios's Node adapter: redirects followed by follow-redirects up
 * to `maxRedirects`, each target checked by `guard.redirect` (`beforeRedirect`) and each host by
 * `guard.resolve` (`lookup`); a fresh socket per request (a pooled one could have been opened for
 * another address); no proxy from the environment (the connection must go to the checked
 * address); the body decompressed by axios and refused past `maxBytes` (`maxContentLength`, counted
 * after decompression, so small compressed bodies cannot expand without bound). Any status
 * resolves: the caller judges it.
 *
 * @throws BadRequestError (too many redirects, a refused redirect target), ForbiddenAddressError,
 *   ConnectionError, or axios's error for the transport failure (its `cause` chain holds ours).
 */
export async function requestPage({
  client,
  guard,
  signal,
  maxBytes,
  maxRedirects,
  userAgent,
}: RequestPageOptions): Promise<PageResponse> {
  let response: PageResponse;
  try {
    response = await client.request<Readable>({
      adapter: 'http',
      url: guard.start.href,
      method: 'GET',
      headers: {
        'user-agent': userAgent,
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1',
        'accept-encoding': 'gzip, deflate, br',
      },
      responseType: 'stream',
      decompress: true,
      maxContentLength: maxBytes,
      maxRedirects,
      beforeRedirect: (options) => {
        const href: unknown = options['href'];
        guard.redirect(typeof href === 'string' ? href : '');
      },
      lookup: guardedLookup(guard),
      httpAgent: false,
      httpsAgent: false,
      proxy: false,
      validateStatus: () => true,
      signal,
    });
  } catch (error) {
    if (axios.isAxiosError(error) && error.code === 'ERR_FR_TOO_MANY_REDIRECTS') {
      throw tooManyRedirects(guard, maxRedirects);
    }
    throw error;
  }
  // Only reached unfollowed when maxRedirects is 0 (axios then does not follow at all).
  if (REDIRECT_STATUSES.has(response.status) && response.headers['location'] != null) {
    response.data.destroy();
    throw tooManyRedirects(guard, maxRedirects);
  }
  return response;
}
