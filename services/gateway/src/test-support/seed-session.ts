import type { Plan } from '@fleet/a2a';
import type { Session, SessionStore } from '@fleet/sessions';

/** The one-node plan seeded sessions run. */
export const SEEDED_PLAN: Plan = {
  nodes: [{ id: 'n1', agent: 'mail', task: 'Send the report to Bob', dependsOn: [] }],
  rationale: 'one step',
  confidence: 0.9,
};

/** The question seeded sessions' node `n1` asks (`questionExpiresInMs`). */
export const SEEDED_QUESTION = 'Which report should I send?\nThe weekly one or the monthly one?';

/** Options for {@link seedSession}. */
export interface SeedSessionOptions {
  /** @default 'acme' */
  tenant?: string;
  /** @default 'Send the report to Bob' */
  request?: string;
  /** Add a pending node approval `ap-1` expiring this far ahead (ms); undefined adds none. */
  approvalExpiresInMs?: number | undefined;
  /**
   * Add a pending question `in-1` (kind `input`, node `n1` asks {@link SEEDED_QUESTION}) expiring
   * this far ahead (ms); undefined adds none.
   */
  questionExpiresInMs?: number | undefined;
  /** The orchestrator task recorded as running the session. */
  taskId?: string | undefined;
  /** Mark it completed with this answer. */
  completedWith?: string | undefined;
}

/**
 * Writes a session the way the orchestrator would, straight through the store: a plan, node `n1`
 * (mail), optionally waiting for approval `ap-1` and/or an answer to question `in-1`, or completed
 * with an answer.
 */
export async function seedSession(
  store: SessionStore,
  {
    tenant = 'acme',
    request = 'Send the report to Bob',
    approvalExpiresInMs,
    questionExpiresInMs,
    taskId,
    completedWith,
  }: SeedSessionOptions = {},
): Promise<Session> {
  const created = await store.create({ tenant, request });
  await store.update(created.id, (draft) => {
    draft.plan = SEEDED_PLAN;
    draft.planSource = 'heuristic';
    if (taskId !== undefined) draft.taskId = taskId;
    draft.nodes['n1'] = {
      agent: 'mail',
      state: 'running',
      attempts: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      taskId: 'agent-task-secret',
    };
  });
  if (approvalExpiresInMs !== undefined) {
    await store.addApproval(created.id, {
      id: 'ap-1',
      kind: 'node',
      nodeId: 'n1',
      agent: 'mail',
      action: 'send-mail',
      summary: 'Send the report to bob@example.com',
      preview: 'To: bob@example.com\nSubject: Report',
      risk: 'high',
      expiresAt: new Date(Date.now() + approvalExpiresInMs).toISOString(),
    });
    await store.update(created.id, (draft) => {
      draft.status = 'waiting_approval';
      const node = draft.nodes['n1'];
      if (node !== undefined) {
        node.state = 'waiting_approval';
        node.approvalId = 'ap-1';
      }
    });
  }
  if (questionExpiresInMs !== undefined) {
    // As the orchestrator records a question: the first line is the summary, the whole the preview.
    await store.addApproval(created.id, {
      id: 'in-1',
      kind: 'input',
      nodeId: 'n1',
      agent: 'mail',
      action: 'answer-question',
      summary: SEEDED_QUESTION.split('\n')[0] ?? SEEDED_QUESTION,
      preview: SEEDED_QUESTION,
      risk: 'low',
      expiresAt: new Date(Date.now() + questionExpiresInMs).toISOString(),
    });
    await store.update(created.id, (draft) => {
      const node = draft.nodes['n1'];
      if (node !== undefined && node.state === 'running') node.state = 'waiting_input';
    });
  }
  if (completedWith !== undefined) {
    await store.update(created.id, (draft) => {
      draft.status = 'completed';
      const node = draft.nodes['n1'];
      if (node !== undefined) {
        node.state = 'completed';
        node.endedAt = '2026-01-01T00:00:02.000Z';
        node.summary = 'Sent.';
      }
      draft.result = {
        text: completedWith,
        citations: [{ title: 'Report', url: 'https://example.com/report' }],
        composer: 'offline',
        failedNodes: [],
      };
    });
  }
  const session = await store.get(created.id);
  if (session === undefined) throw new Error('the seeded session vanished');
  return session;
}
