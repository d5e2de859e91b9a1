import { BadRequestError } from '@fleet/errors';

/**
 * Parses a URL the web agent is asked to fetch (or is redirected to): only http and https, without
 * credentials.
 *
 * @throws BadRequestError naming the URL and why it is refused.
 * @example
 * const url = parseFetchUrl('https://example.com/post');
 */
export function parseFetchUrl(raw: string): URL {
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

/** A URL's host as DNS and the address checks see it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}
