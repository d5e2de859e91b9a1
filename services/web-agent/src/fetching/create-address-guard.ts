import { isIP } from 'node:net';
import { BadRequestError, ConnectionError, FleetError } from '@fleet/errors';
import { classifyAddress } from './classify-address';
import { ForbiddenAddressError } from './forbidden-address-error';
import type { HostAllowlist } from './host-allowlist';
import { hostOf, parseFetchUrl } from './parse-fetch-url';

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses (`dns.lookup` with `all: true` by default). */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

/** Options for {@link createAddressGuard}. */
export interface CreateAddressGuardOptions {
  /** The URL asked for (already parsed with `parseFetchUrl`): the first hop. */
  start: URL;
  /** Hosts fetched even on forbidden addresses (WEB_FETCH_ALLOWLIST). */
  allowlist: HostAllowlist;
  resolveHost: ResolveHost;
  /** The fetch's signal: a resolution that ends after it aborted is not used. */
  signal: AbortSignal;
}

/** The address checks of one fetch, hop by hop: the start URL, then every redirect target. */
export interface AddressGuard {
  /** The URL asked for. */
  readonly start: URL;
  /** The hop being fetched; after the fetch, the URL the body came from. */
  readonly current: URL;
  /** Every URL redirected to, in order. */
  readonly redirects: readonly string[];
  /** The address the current hop connects to (the one checked), once known. */
  readonly address: string | undefined;
  /**
   * For axios's `beforeRedirect` (synchronous): refuses a target that is not http(s) or carries
   * credentials, and checks an IP-literal target, which Node connects to without calling `lookup`.
   */
  redirect(href: string): void;
  /**
   * For axios's `lookup`: resolves the hop's host (every address), refuses it when any address is
   * forbidden, and answers the first, so the connection goes to the address checked.
   */
  resolve(hostname: string): Promise<ResolvedAddress>;
}

/**
 * The address guard of one fetch (docs/architecture.md §10): a host that is, or resolves to, a
 * private, loopback, link-local, metadata, unique-local, unspecified, CGNAT, multicast or reserved
 * address is refused unless the allowlist names it. IP literals are checked when the hop is set
 * (the start URL here, redirects in `redirect`), names when they are resolved (`resolve`).
 *
 * @throws ForbiddenAddressError when the start URL is a forbidden IP literal.
 * @example
 * const guard = createAddressGuard({ start: url, allowlist, resolveHost, signal });
 * await axios.get(url.href, { beforeRedirect: (options) => guard.redirect(options.href), lookup });
 */
export function createAddressGuard({
  start,
  allowlist,
  resolveHost,
  signal,
}: CreateAddressGuardOptions): AddressGuard {
  let current = start;
  let address: string | undefined;
  const redirects: string[] = [];

  function refuseForbidden(host: string, addresses: readonly ResolvedAddress[]): void {
    if (allowlist(host)) return;
    for (const { address: candidate } of addresses) {
      const addressClass = classifyAddress(candidate);
      if (addressClass !== undefined) {
        throw new ForbiddenAddressError({
          url: current.href,
          host,
          address: candidate,
          addressClass,
        });
      }
    }
  }

  function enter(url: URL): void {
    current = url;
    address = undefined;
    const host = hostOf(url);
    const family = isIP(host);
    if (family !== 0) {
      refuseForbidden(host, [{ address: host, family }]);
      address = host;
    }
  }

  enter(start);
  return {
    start,
    get current() {
      return current;
    },
    redirects,
    get address() {
      return address;
    },
    redirect(href) {
      let next: URL;
      try {
        next = parseFetchUrl(href);
      } catch (error) {
        throw FleetError.isInstance(error)
          ? new BadRequestError(
              `${current.href} redirects to a URL the web agent does not fetch: ${error.message}`,
              { cause: error },
            )
          : error;
      }
      redirects.push(next.href);
      enter(next);
    },
    async resolve(hostname) {
      let addresses: ResolvedAddress[];
      try {
        addresses = await resolveHost(hostname);
      } catch (error) {
        throw new ConnectionError(`Could not resolve ${hostname}.`, {
          cause: error,
          retryable: false,
        });
      }
      signal.throwIfAborted();
      const first = addresses[0];
      if (first === undefined) {
        throw new ConnectionError(`${hostname} has no address.`, { retryable: false });
      }
      refuseForbidden(hostname, addresses);
      address = first.address;
      return first;
    },
  };
}
