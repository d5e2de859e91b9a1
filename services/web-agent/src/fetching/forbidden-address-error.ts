import { PermissionDeniedError } from '@fleet/errors';
import { FORBIDDEN_ADDRESS_LABELS, type ForbiddenAddressClass } from './classify-address';

/**
 * A fetch the web agent refused because the host is, or resolves to, an address it must not reach
 * (docs/architecture.md §10). The message names the address, its class and the allowlist variable.
 */
export class ForbiddenAddressError extends PermissionDeniedError {
  readonly url: string;
  readonly address: string;
  readonly addressClass: ForbiddenAddressClass;

  constructor(options: {
    url: string;
    host: string;
    address: string;
    addressClass: ForbiddenAddressClass;
  }) {
    const { url, host, address, addressClass } = options;
    const resolved = host === address ? host : `${host} resolves to ${address},`;
    super(
      `Refused to fetch ${url}: ${resolved} ${FORBIDDEN_ADDRESS_LABELS[addressClass]}. Add the host to WEB_FETCH_ALLOWLIST to allow it.`,
      { details: { url, host, address, addressClass }, retryable: false },
    );
    this.url = url;
    this.address = address;
    this.addressClass = addressClass;
  }
}
