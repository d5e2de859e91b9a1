import type { Plan } from '@fleet/a2a';
import type { Session, SessionStore } from '@fleet/sessions';

/** The one-node plan seeded sessions run. */
export const SEEDED_PLAN: Plan = {
  nodes: [{ id: 'n1', agent: 'mail', task: 'Send the report to Bob', dependsOn: [] }],
  rationale: 'one step',
  confidence: 0.9,
};

/** The answer a seeded review (`reviewExpiresInMs`) puts up, round 1. */
export const SEEDED_REVIEW_ANSWER = 'The report went to Bob.';

/** The step a seeded session adds while it runs (`addedStep`): handed off by `n1`. */
export const SEEDED_ADDED_STEP = {
  id: 'n2',
  agent: 'rag',
  task: 'Find the report Bob asked about',
  dependsOn: ['n1'],
  origin: { kind: 'handoff' as const, from: 'n1' },
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
  /**
   * Add a pending review `rv-1` (kind `review`, round 1 of {@link SEEDED_REVIEW_ANSWER} with `n1`
   * completed) expiring this far ahead (ms), as the orchestrator does once the answer is composed;
   * undefined adds none.
   */
  reviewExpiresInMs?: number | undefined;
  /** Add step {@link SEEDED_ADDED_STEP} (a hand-off of `n1`) to the plan, completed. */
  addedStep?: boolean | undefined;
  /** The orchestrator task recorded as running the session. */
  taskId?: string | undefined;
  /** Mark it completed with this answer. */
  completedWith?: string | undefined;
}

/**
 * Writes a session the way the orchestrator would, straight through the store: a plan, node `n1`
 * (mail), optionally a step `n2` added by a hand-off, waiting for approval `ap-1`, an answer to
 * question `in-1` and/or a review of its answer `rv-1`, or completed with an answer.
 */
export async function seedSession(
  store: SessionStore,
  {
    tenant = 'acme',
    request = 'Send the report to Bob',
    approvalExpiresInMs,
    questionExpiresInMs,
    reviewExpiresInMs,
    addedStep = false,
    taskId,
    completedWith,
  }: SeedSessionOptions = {},
): Promise<Session> {
  const created = await store.create({
    tenant,
    request,
    ...(reviewExpiresInMs === undefined ? {} : { resultReview: true }),
  });
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
  if (addedStep) {
    await store.update(created.id, (draft) => {
      draft.plan = { ...SEEDED_PLAN, nodes: [...SEEDED_PLAN.nodes, SEEDED_ADDED_STEP] };
      draft.nodes['n2'] = {
        agent: 'rag',
        state: 'completed',
        attempts: 1,
        startedAt: '2026-01-01T00:00:01.000Z',
        endedAt: '2026-01-01T00:00:02.000Z',
        summary: 'The weekly report.',
      };
    });
  }
  if (reviewExpiresInMs !== undefined) {
    await store.update(created.id, (draft) => {
      const node = draft.nodes['n1'];
      if (node !== undefined) {
        node.state = 'completed';
        node.endedAt = '2026-01-01T00:00:02.000Z';
        node.summary = 'Sent.';
      }
    });
    await store.addApproval(created.id, {
      id: 'rv-1',
      kind: 'review',
      action: 'review-answer',
      summary: 'Review the answer before it is sent',
      preview: SEEDED_REVIEW_ANSWER,
      risk: 'low',
      expiresAt: new Date(Date.now() + reviewExpiresInMs).toISOString(),
      review: {
        round: 1,
        answer: SEEDED_REVIEW_ANSWER,
        steps: [
          { id: 'n1', agent: 'mail', state: 'completed', summary: 'Sent.' },
          ...(addedStep
            ? [
                {
                  id: 'n2',
                  agent: 'rag',
                  state: 'completed',
                  summary: 'The weekly report.',
                  added: true,
                },
              ]
            : []),
        ],
      },
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
