import type { IncomingMessage } from 'node:http';
import { PermissionDeniedError } from '@fleet/errors';

/** Host names every `/mcp` request may name: the gateway's own loopback names. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** What {@link checkMcpRequestSource} allows beside the loopback names. */
export interface McpAllowList {
  /** Further `Host` names, without port (`GATEWAY_MCP_ALLOWED_HOSTS`). */
  hosts: readonly string[];
  /** Further browser origins, `scheme://host[:port]` (`GATEWAY_MCP_ALLOWED_ORIGINS`). */
  origins: readonly string[];
}

/** The host name of a `Host` header value (port dropped, IPv6 kept in brackets), lower-cased. */
function hostnameOf(host: string): string | undefined {
  try {
    const { hostname } = new URL(`http://${host}`);
    return hostname === '' ? undefined : hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The origin of an `Origin` header value (`scheme://host[:port]`), or undefined if malformed. */
function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Longest header value an error message repeats. */
const MAX_ECHOED = 100;

/**
 * DNS-rebinding protection for `/mcp`: the `Host` header must name one of the gateway's loopback
 * names or an allowed host, and an `Origin` header, when a browser sends one, must be a loopback
 * origin (any port) or an allowed one. A request without `Origin` (an MCP client that is not a
 * browser) passes the origin check.
 *
 * @throws PermissionDeniedError (403) naming the refused host or origin and the setting that
 *   allows it.
 */
export function checkMcpRequestSource(req: IncomingMessage, allow: McpAllowList): void {
  const hosts = new Set([...LOOPBACK_HOSTS, ...allow.hosts.map((host) => host.toLowerCase())]);
  const hostHeader = req.headers.host ?? '';
  const hostname = hostnameOf(hostHeader);
  if (hostname === undefined || !hosts.has(hostname)) {
    throw new PermissionDeniedError(
      `The MCP endpoint does not serve the host '${hostHeader.slice(0, MAX_ECHOED)}': add its name to GATEWAY_MCP_ALLOWED_HOSTS.`,
      { param: 'host' },
    );
  }
  const originHeader = req.headers.origin;
  if (originHeader === undefined) return;
  const origin = parseOrigin(originHeader);
  const allowed =
    origin !== undefined &&
    (LOOPBACK_HOSTS.includes(origin.hostname.toLowerCase()) ||
      allow.origins.some((entry) => parseOrigin(entry)?.origin === origin.origin));
  if (!allowed) {
    throw new PermissionDeniedError(
      `The MCP endpoint does not accept requests from the origin '${originHeader.slice(0, MAX_ECHOED)}': add it to GATEWAY_MCP_ALLOWED_ORIGINS.`,
      { param: 'origin' },
    );
  }
}
