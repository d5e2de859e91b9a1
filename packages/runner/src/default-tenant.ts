import { ConfigError } from '@fleet/errors';
import { DEV_TENANT } from './secrets';

/** A tenant name as the gateway accepts it in GATEWAY_API_KEYS. */
const TENANT_PATTERN = /^[\w.-]{1,64}$/;

/** Where {@link defaultTenant}'s answer comes from. */
export interface DefaultTenant {
  tenant: string;
  /** `GATEWAY_API_KEYS`: its first key's tenant; `dev-key`: the generated dev key's (`dev`). */
  source: 'GATEWAY_API_KEYS' | 'dev-key';
}

/**
 * The tenant `fleet up` loads the demo corpus into and `fleet ingest` ingests into by default: the
 * tenant of the first `key:tenant` pair of GATEWAY_API_KEYS (split at the last colon, as the
 * gateway does), or `dev`, the generated dev key's, when the variable is unset or blank. A user's
 * own keys then find the demo documents.
 *
 * @throws ConfigError naming GATEWAY_API_KEYS when its first entry is not `key:tenant`.
 * @example
 * defaultTenant('sk-acme-0123456789abcdef:acme,sk-beta-0123456789abcdef:beta'); // { tenant: 'acme', … }
 */
export function defaultTenant(gatewayApiKeys: string | undefined): DefaultTenant {
  const first = (gatewayApiKeys ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .find((pair) => pair !== '');
  if (first === undefined) return { tenant: DEV_TENANT, source: 'dev-key' };
  const separator = first.lastIndexOf(':');
  const tenant = separator === -1 ? '' : first.slice(separator + 1).trim();
  if (!TENANT_PATTERN.test(tenant)) {
    throw new ConfigError(
      "GATEWAY_API_KEYS: the first entry is not 'key:tenant' with a tenant of letters, digits, '.', '_' or '-' (at most 64), so the runner cannot tell which tenant the demo corpus belongs to.",
    );
  }
  return { tenant, source: 'GATEWAY_API_KEYS' };
}
