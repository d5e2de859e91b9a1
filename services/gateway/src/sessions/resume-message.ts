import { randomUUID } from 'node:crypto';
import {
  dataPart,
  isTerminalState,
  textPart,
  type Message,
  type OrchestrateRequest,
  type ToolPolicy,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import { FleetError } from '@fleet/errors';
import type { Session } from '@fleet/sessions';

/**
 * The orchestrator message that continues a session from its recorded state (`resumeSessionId`,
 * `@fleet/a2a` conventions). The orchestrator ignores the text part of a resume; it carries the
 * session's request anyway, so logs and traces of the resumed turn read like the original.
 *
 * With `taskId` the message goes to the orchestrator task that ran the session: its turn was lost
 * with its orchestrator, and the message starts the turn that takes it over, so the task everyone
 * follows carries on (docs/a2a.md §3, "Lost turns"). Without it the session goes on under a new task.
 *
 * `toolPolicy` is the tenant's tool policy now (GATEWAY_TOOL_PERMISSIONS): the resumed run uses it
 * instead of the one the session started with. Undefined: the session's stays. A session started
 * with a result review keeps it (`resultReview: 'required'`).
 */
export function resumeMessage(
  session: Session,
  { taskId, toolPolicy }: { taskId?: string; toolPolicy?: ToolPolicy | undefined } = {},
): Message {
  const input: OrchestrateRequest = {
    tenant: session.tenant,
    history: session.history,
    planApproval: session.planApproval ? 'required' : 'none',
    ...(session.resultReview === true ? { resultReview: 'required' as const } : {}),
    resumeSessionId: session.id,
    ...(toolPolicy === undefined ? {} : { toolPolicy }),
  };
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    ...(taskId === undefined ? {} : { taskId }),
    parts: [textPart(session.request || 'resume'), dataPart({ fleet: input })],
  };
}

/**
 * The task a resume of `session` goes to: the orchestrator task that ran it, while that task has
 * not ended (a take-over), else none (a new task). A task gone from the orchestrator's store, or
 * ended (a graceful hand-over ends it), cannot carry the run on.
 */
export async function resumeTaskOf(
  client: A2AClient,
  session: Session,
  { signal }: { signal?: AbortSignal | undefined } = {},
): Promise<string | undefined> {
  const taskId = session.taskId;
  if (taskId === undefined) return undefined;
  try {
    const task = await client.getTask(
      { id: taskId, historyLength: 0 },
      signal === undefined ? {} : { signal },
    );
    return isTerminalState(task.status.state) ? undefined : taskId;
  } catch (error) {
    if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}
