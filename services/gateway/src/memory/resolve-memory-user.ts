import type { IncomingMessage } from 'node:http';
import { ValidationError } from '@fleet/errors';
import { readSingleHeader } from '@fleet/http';
import { DEFAULT_USER_ID, userIdSchema } from '@fleet/memory';

/** The header that names the user when the request body cannot (`GET`, `DELETE`, or no `user`). */
export const MEMORY_USER_HEADER = 'x-fleet-user';

/** Where the user id may come from, first match wins. */
export interface ResolveMemoryUserOptions {
  /** The OpenAI request's standard `user` field, when the request has a body. */
  bodyUser?: unknown;
  /** The request, for `X-Fleet-User`. */
  req: IncomingMessage;
}

function check(value: unknown, where: string): string {
  const parsed = userIdSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    `${where} is not a valid user id: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
  );
}

/**
 * The user whose long-term memory a request reads and writes, within the API key's tenant (the
 * tenant never comes from the client): the OpenAI `user` field when present, else the
 * `X-Fleet-User` header, else the tenant's default user ({@link DEFAULT_USER_ID}). User ids are
 * 1–128 characters without control characters.
 *
 * @throws ValidationError (400) for an empty, too long or malformed user id; BadRequestError (400)
 *   for `X-Fleet-User` sent more than once (Node would join the values into a third user id).
 * @example
 * resolveMemoryUser({ bodyUser: request['user'], req }); // 'ada@example.com'
 */
export function resolveMemoryUser({ bodyUser, req }: ResolveMemoryUserOptions): string {
  if (bodyUser !== undefined && bodyUser !== null) return check(bodyUser, 'user');
  const header = readSingleHeader(req, MEMORY_USER_HEADER, { label: 'X-Fleet-User' });
  if (header !== undefined) return check(header, 'X-Fleet-User');
  return DEFAULT_USER_ID;
}
