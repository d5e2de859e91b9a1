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

/** Headers a browser's script may read from an `/mcp` response. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';

/** Request headers a preflight may ask for when it names none (what MCP clients send). */
const DEFAULT_ALLOWED_HEADERS =
  'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID';

/** Longest `Access-Control-Request-Headers` a preflight is answered with. */
const MAX_REQUESTED_HEADERS = 2000;

/**
 * CORS for a browser MCP client on an allowed origin ({@link checkMcpRequestSource} has passed):
 * the origin echoed with `Vary: Origin`, the MCP headers exposed to the page's script. No
 * credentials mode: the API key rides in `Authorization`, which the page sets itself.
 *
 * @returns true when the request was a preflight (`OPTIONS`) and has been answered with 204.
 */
export function applyMcpCors(
  req: IncomingMessage,
  res: { setHeader(name: string, value: string): unknown; statusCode: number; end(): unknown },
): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return false;
  const requested = req.headers['access-control-request-headers'];
  const headers =
    typeof requested === 'string' &&
    requested.length <= MAX_REQUESTED_HEADERS &&
    /^[\w\-, ]*$/.test(requested)
      ? requested
      : DEFAULT_ALLOWED_HEADERS;
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', headers === '' ? DEFAULT_ALLOWED_HEADERS : headers);
  res.setHeader('Access-Control-Max-Age', '600');
  res.statusCode = 204;
  res.end();
  return true;
}
