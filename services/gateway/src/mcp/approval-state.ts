import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { BadRequestError } from '@fleet/errors';

/** Longest `requestState` read: a few hundred bytes are minted, anything far longer is refused unread. */
export const MAX_REQUEST_STATE_CHARS = 2048;

/** Longest a minted state stays valid, whatever the approval's own expiry. */
export const MAX_STATE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What a state answers: an approval (`approve`/`deny`), an agent's question (an answer) or a
 * review of the composed answer (a review decision).
 */
export type StateKind = 'approval' | 'question' | 'review';

/**
 * What an `ask` that stopped for a person (an approval, a question, a review) hands the client to
 * echo back (2026-07-28).
 */
export interface ApprovalState {
  /** What the state answers. @default 'approval' (a state minted without a kind) */
  kind?: StateKind | undefined;
  tenant: string;
  sessionId: string;
  /** What it answers, as the session records it: the approval's, the question's or the review's id. */
  approvalId: string;
  /** Unix milliseconds after which the state is refused (never past the approval's expiry). */
  expiresAt: number;
  /** SHA-256 (hex) of the call's arguments ({@link argumentsDigest}). */
  argumentsDigest: string;
}

const payloadSchema = z.strictObject({
  k: z.enum(['question', 'review']).optional(),
  t: z.string(),
  s: z.string(),
  a: z.string(),
  e: z.number().int(),
  d: z.string().regex(/^[0-9a-f]{64}$/),
});

/** JSON with object keys sorted, so equal values always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 (hex) of a call's arguments, keys sorted: a state answers only the call it was minted for. */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonical(args)).digest('hex');
}

/**
 * The key `requestState` is signed with: `GATEWAY_MCP_STATE_SECRET` when set; else derived from
 * `FLEET_INTERNAL_TOKEN` with HKDF-SHA256 (info `fleet/gateway/mcp-request-state`), so every
 * replica of a fleet agrees; else 32 random bytes for this process (a development gateway: states
 * do not survive its restart).
 */
export function requestStateKey({
  secret,
  internalToken,
}: {
  secret?: string | undefined;
  internalToken?: string | undefined;
}): Buffer {
  if (secret !== undefined) return Buffer.from(secret, 'utf8');
  if (internalToken !== undefined) {
    return Buffer.from(
      hkdfSync('sha256', internalToken, 'a2a-fleet', 'fleet/gateway/mcp-request-state', 32),
    );
  }
  return randomBytes(32);
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(`fleet.mcp.approval-state.v1:${body}`).digest();
}

/** Signs and checks the `requestState` of an approval, a question or a review asked over MCP (2026-07-28). */
export interface ApprovalStateCodec {
  /** The compact wire form: `base64url(JSON payload).base64url(HMAC-SHA256)`. */
  mint(state: ApprovalState): string;
  /**
   * The state, once its MAC, expiry, tenant and arguments check out.
   * @throws BadRequestError (param `requestState`) naming what was wrong: malformed, tampered
   *   (bad MAC), expired, another tenant's, or minted for other arguments
   */
  verify(
    wire: string,
    expected: { tenant: string; argumentsDigest: string; now?: number },
  ): ApprovalState;
}

function refused(why: string): BadRequestError {
  return new BadRequestError(`The requestState was refused: ${why}. Call ask again without it.`, {
    param: 'requestState',
  });
}

/**
 * The codec of approval states: HMAC-SHA256 over the kind, tenant, session, what it answers,
 * expiry and the arguments' digest, compared in constant time. Signed, not encrypted: the client can read the
 * ids, which are its own.
 */
export function createApprovalStateCodec(key: Buffer): ApprovalStateCodec {
  return {
    mint(state) {
      const body = Buffer.from(
        JSON.stringify({
          // An approval's state has no kind: states minted before kinds existed read alike.
          ...(state.kind === undefined || state.kind === 'approval' ? {} : { k: state.kind }),
          t: state.tenant,
          s: state.sessionId,
          a: state.approvalId,
          e: state.expiresAt,
          d: state.argumentsDigest,
        }),
      ).toString('base64url');
      return `${body}.${mac(key, body).toString('base64url')}`;
    },
    verify(wire, { tenant, argumentsDigest: digest, now = Date.now() }) {
      if (wire.length > MAX_REQUEST_STATE_CHARS) throw refused('it is malformed');
      const [body, signature, ...rest] = wire.split('.');
      if (body === undefined || signature === undefined || rest.length > 0) {
        throw refused('it is malformed');
      }
      const given = Buffer.from(signature, 'base64url');
      const wanted = mac(key, body);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        throw refused('its signature does not match (tampered, or signed by another gateway)');
      }
      let parsed: z.infer<typeof payloadSchema>;
      try {
        parsed = payloadSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
      } catch {
        throw refused('it is malformed');
      }
      if (parsed.e <= now) throw refused('it has expired');
      if (parsed.t !== tenant) throw refused("it is another tenant's");
      const a = Buffer.from(parsed.d, 'hex');
      const b = Buffer.from(digest, 'hex');
      if (a.length !== b.length || !timingSafeEqual(a, b)) {
        throw refused('it was issued for a call with other arguments');
      }
      return {
        kind: parsed.k ?? 'approval',
        tenant: parsed.t,
        sessionId: parsed.s,
        approvalId: parsed.a,
        expiresAt: parsed.e,
        argumentsDigest: parsed.d,
      };
    },
  };
}
