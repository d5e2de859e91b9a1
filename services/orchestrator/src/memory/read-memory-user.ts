import { z } from 'zod';
import { findData, type Part } from '@fleet/a2a';
import { ValidationError } from '@fleet/errors';
import { userIdSchema } from '@fleet/memory';

/** The `user` beside the orchestrate request's other `fleet` fields (the gateway sets it). */
const memoryUserEnvelope = z.object({ fleet: z.object({ user: z.unknown().optional() }) });

/**
 * The user whose long-term memory a run uses: `fleet.user` in the orchestrate request's data part
 * (the gateway puts the OpenAI `user` field, `X-Fleet-User`, or its default user there). Undefined
 * when the request names none.
 *
 * @throws ValidationError when `fleet.user` is there but not a valid user id.
 * @example
 * readMemoryUser(context.message.parts); // 'ada@example.com'
 */
export function readMemoryUser(parts: readonly Part[]): string | undefined {
  const user = findData(parts, memoryUserEnvelope)?.fleet.user;
  if (user === undefined) return undefined;
  const parsed = userIdSchema.safeParse(user);
  if (!parsed.success) {
    throw new ValidationError(
      `fleet.user is not a valid user id: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
    );
  }
  return parsed.data;
}
