import { randomUUID } from 'node:crypto';
import { dataPart, textPart, type Message, type OrchestrateRequest } from '@fleet/a2a';
import type { Session } from '@fleet/sessions';

/**
 * The orchestrator message that continues a session from its recorded state (`resumeSessionId`,
 * `@fleet/a2a` conventions). The orchestrator ignores the text part of a resume; it carries the
 * session's request anyway, so logs and traces of the resumed turn read like the original.
 */
export function resumeMessage(session: Session): Message {
  const input: OrchestrateRequest = {
    tenant: session.tenant,
    history: session.history,
    planApproval: session.planApproval ? 'required' : 'none',
    resumeSessionId: session.id,
  };
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [textPart(session.request || 'resume'), dataPart({ fleet: input })],
  };
}
