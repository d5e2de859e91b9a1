import { FleetError, PayloadTooLargeError } from '@fleet/errors';
import { describeByteSize } from './describe-byte-size';

/** What the client sent, which fleet service refused it, and the gateway's own limit for it. */
export interface OwnPayloadLimitOptions {
  /** What was too large, as the client knows it, e.g. 'The conversation'. */
  what: string;
  /** The service behind the gateway that refused it, e.g. 'the orchestrator'. */
  service: string;
  /** The gateway's own limit for this request, in bytes. */
  limit: number;
  /** The variable that sets it, e.g. 'GATEWAY_BODY_LIMIT'. */
  limitVariable: string;
  /** What the client can do, e.g. 'send fewer or shorter messages'. */
  remedy: string;
}

/** Whether a `details.limit` names an environment variable (`RAG_MAX_CELLS`), not a size. */
function namesVariable(limit: unknown): boolean {
  return typeof limit === 'string' && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(limit);
}

/**
 * A 413 from a service behind the gateway (an A2A hop's own body limit) in the gateway's words: the
 * client only knows the gateway's limit, so the answer names that one and what to send instead,
 * never an internal service's limit or message (those stay in the cause, for the logs). Any other
 * error, and a 413 that names a limit of the content by its variable, is returned unchanged.
 *
 * @example
 * catch (error) { throw ownPayloadLimit(error, { what: 'The conversation', service: 'the orchestrator', limit, limitVariable: 'GATEWAY_BODY_LIMIT', remedy: 'send fewer or shorter messages' }); }
 */
export function ownPayloadLimit(
  error: unknown,
  { what, service, limit, limitVariable, remedy }: OwnPayloadLimitOptions,
): unknown {
  if (!FleetError.isInstance(error) || error.code !== 'PAYLOAD_TOO_LARGE') return error;
  // A limit of the content itself, named by its variable (`details.limit`, e.g. the RAG agent's
  // RAG_MAX_COMPRESSION_RATIO for a zip bomb), is the client's to hear (docs/security.md); a hop's
  // body limit carries its size in bytes.
  if (namesVariable(error.details?.['limit'])) return error;
  return new PayloadTooLargeError(
    `${what} is too large for ${service} to take, although it is within the gateway's limit of ${describeByteSize(limit)} (${limitVariable}): ${remedy}.`,
    { cause: error, details: { limit } },
  );
}
