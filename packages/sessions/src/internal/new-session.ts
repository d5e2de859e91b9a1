import { randomUUID } from 'node:crypto';
import { BadRequestError, validationErrorFromZod } from '@fleet/errors';
import { sessionSchema, type Session } from '../session-schema';
import type { NewSession } from '../session-store-types';

/** A new session as {@link SessionStore.create} stores it, checked, with its JSON. */
export function newSession({
  id = randomUUID(),
  tenant,
  request,
  history = [],
  planApproval = false,
  resultReview = false,
  toolPolicy,
  steering,
  taskId,
}: NewSession): { session: Session; json: string; createdAtMs: number } {
  if (id === '') throw new BadRequestError('A session id must not be empty.');
  // The id is the hash tag of the session's keys (`fleet:{<id>}:…`): a brace in it could end the
  // tag early, or leave it empty, and split the session's keys across Redis Cluster slots.
  if (/[{}]/.test(id)) throw new BadRequestError('A session id must not contain "{" or "}".');
  const now = new Date();
  const draft: Session = {
    id,
    tenant,
    status: 'running',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    request,
    history,
    planApproval,
    resultReview,
    ...(toolPolicy === undefined ? {} : { toolPolicy }),
    ...(steering === undefined ? {} : { steering }),
    nodes: {},
    approvals: {},
    ...(taskId === undefined ? {} : { taskId }),
  };
  const checked = sessionSchema.safeParse(draft);
  if (!checked.success) throw validationErrorFromZod(checked.error, { subject: 'The session' });
  return { session: checked.data, json: JSON.stringify(checked.data), createdAtMs: now.getTime() };
}
