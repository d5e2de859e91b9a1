/**
 * Error codes of a connection that could not be made (refused, unknown or unreachable host, connect
 * timeout): nothing reached the server, so even a request that is not safe to repeat may be sent
 * again. A connection lost later (`ECONNRESET`, `EPIPE`, `ETIMEDOUT`) is not one of them: the
 * request may have arrived.
 */
export const CONNECT_FAILURE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * An errno-style code: `E…` (`ECONNRESET`) or undici's `UND_ERR_…`. `EAI_…` (getaddrinfo) codes
 * do not match: {@link networkErrorCode} skips them, as the copies it replaced did.
 */
const NETWORK_ERROR_CODE = /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/;

/**
 * The errno-style code of a network failure (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, …): the
 * first one on the error or its `cause` chain (a few levels; fetch puts it on the cause).
 *
 * @param error - anything thrown
 * @returns the code, or undefined when the chain carries none
 */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODE.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Options for {@link isConnectFailure}. */
export interface IsConnectFailureOptions {
  /** The codes that mean "could not connect". @default CONNECT_FAILURE_CODES */
  codes?: ReadonlySet<string>;
}

/**
 * Whether an error says a connection could not be made: the first network code on the error or
 * its `cause` chain (a few levels) is one of `codes`. Another errno-style code first (a connection
 * reset, say) means it is not.
 *
 * @param error - anything thrown (a fetch `TypeError`, a socket error, a wrapping fleet error)
 * @example
 * if (isConnectFailure(error)) throw new ConnectionError(`Cannot reach ${url}.`, { cause: error });
 */
export function isConnectFailure(
  error: unknown,
  { codes = CONNECT_FAILURE_CODES }: IsConnectFailureOptions = {},
): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (codes.has(code)) return true;
      if (NETWORK_ERROR_CODE.test(code)) return false;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
