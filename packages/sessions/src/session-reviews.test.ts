import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ReviewRound } from '@fleet/a2a';
import { ConflictError, NotFoundError, ValidationError } from '@fleet/errors';
import { Redis } from 'ioredis';
import type { SessionEvent } from './session-schema';
import {
  createSessionStore,
  type NewApproval,
  type SessionStore,
  type SessionStoreOptions,
} from './session-store';

const REDIS_URL = 'redis://127.0.0.1:6379';
const root = `test:sessions:reviews:${randomUUID()}`;

function prefixes(name: string): Omit<SessionStoreOptions, 'redis'> {
  return {
    keyPrefix: `${root}:${name}`,
  };
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const aMinuteAgo = () => new Date(Date.now() - 60_000).toISOString();

const ROUND: ReviewRound = {
  round: 1,
  answer: 'The report went to Bob.',
  steps: [
    { id: 'find', agent: 'rag-agent', state: 'completed', summary: 'The weekly report.' },
    { id: 'send', agent: 'mail-agent', state: 'completed', summary: 'Sent.' },
  ],
};

/** A review approval as the orchestrator records one once the answer is composed. */
function review(id: string, overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    id,
    kind: 'review',
    action: 'review-answer',
    summary: 'Review the answer',
    preview: ROUND.answer,
    risk: 'low',
    expiresAt: inAnHour(),
    review: ROUND,
    ...overrides,
  };
}

describe('SessionStore.decideReview', () => {
  let redis: Redis;
  const stores: SessionStore[] = [];

  /** A store with its own keys, and a session of tenant `acme` with a two-step plan. */
  async function sessionWithPlan(name: string): Promise<{ sessions: SessionStore; id: string }> {
    const sessions = createSessionStore({ redis, ...prefixes(name) });
    stores.push(sessions);
    const { id } = await sessions.create({ tenant: 'acme', request: 'x', resultReview: true });
    await sessions.update(id, (draft) => {
      draft.plan = {
        nodes: [
          { id: 'find', agent: 'rag-agent', task: 'find it', dependsOn: [] },
          { id: 'send', agent: 'mail-agent', task: 'send it', dependsOn: ['find'] },
        ],
        rationale: 'two steps',
        confidence: 0.9,
      };
    });
    return { sessions, id };
  }

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${root}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('approves: the review becomes approved, its round records the decision, subscribers hear it', async () => {
    const { sessions, id } = await sessionWithPlan('approve');
    await sessions.addApproval(id, review('rv-1'));
    expect((await sessions.get(id))?.resultReview).toBe(true);
    const events: SessionEvent[] = [];
    const unsubscribe = await sessions.subscribe(id, (event) => events.push(event));
    try {
      const decided = await sessions.decideReview({
        sessionId: id,
        tenant: 'acme',
        decision: { decision: 'approve' },
      });
      expect(decided).toMatchObject({
        id: 'rv-1',
        kind: 'review',
        status: 'approved',
        review: { ...ROUND, decision: 'approve' },
      });
      expect(decided.review?.feedback).toBeUndefined();
      expect(typeof decided.decidedAt).toBe('string');
      expect((await sessions.get(id))?.approvals['rv-1']).toEqual(decided);
      for (let waited = 0; events.length === 0 && waited < 2000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(events).toContainEqual({
        type: 'approval-decided',
        approvalId: 'rv-1',
        status: 'approved',
      });
    } finally {
      await unsubscribe();
    }
  });

  it('revise: denied, with the named steps once each and the feedback as instructions', async () => {
    const { sessions, id } = await sessionWithPlan('revise');
    await sessions.addApproval(id, review('rv-1'));
    const decided = await sessions.decideReview({
      sessionId: id,
      tenant: 'acme',
      decision: { decision: 'revise', steps: ['find', 'find'], feedback: 'Use the monthly one.' },
    });
    expect(decided.status).toBe('denied');
    expect(decided.instructions).toBe('Use the monthly one.');
    expect(decided.review).toMatchObject({
      decision: 'revise',
      targets: ['find'],
      feedback: 'Use the monthly one.',
    });
  });

  it('decides the newest review: an earlier round that was sent back stays as it was', async () => {
    const { sessions, id } = await sessionWithPlan('rounds');
    await sessions.addApproval(id, review('rv-1', { createdAt: '2026-01-01T00:00:00.000Z' }));
    const first = await sessions.decideReview({
      sessionId: id,
      tenant: 'acme',
      decision: { decision: 'recompose', feedback: 'Shorter.' },
    });
    await sessions.addApproval(
      id,
      review('rv-2', {
        createdAt: '2026-01-01T00:01:00.000Z',
        review: { ...ROUND, round: 2, answer: 'Sent.' },
      }),
    );
    const second = await sessions.decideReview({
      sessionId: id,
      tenant: 'acme',
      decision: { decision: 'approve' },
    });
    expect(second).toMatchObject({ id: 'rv-2', status: 'approved', review: { round: 2 } });
    expect((await sessions.get(id))?.approvals['rv-1']).toEqual(first);
  });

  it("throws ValidationError naming the unknown steps and the plan's steps; nothing is decided", async () => {
    const { sessions, id } = await sessionWithPlan('unknown-steps');
    await sessions.addApproval(id, review('rv-1'));
    const error = await sessions
      .decideReview({
        sessionId: id,
        tenant: 'acme',
        decision: { decision: 'revise', steps: ['send', 'ghost'], feedback: 'again' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      'The plan has no step "ghost": its steps are "find", "send".',
    );
    expect((error as ValidationError).details).toMatchObject({ steps: ['find', 'send'] });
    expect((await sessions.get(id))?.approvals['rv-1']?.status).toBe('pending');
  });

  it('throws NotFoundError for an unknown session or another tenant’s', async () => {
    const { sessions, id } = await sessionWithPlan('not-found');
    await sessions.addApproval(id, review('rv-1'));
    const decide = (sessionId: string, tenant: string) =>
      sessions.decideReview({ sessionId, tenant, decision: { decision: 'approve' } });
    await expect(decide('no-such-session', 'acme')).rejects.toBeInstanceOf(NotFoundError);
    await expect(decide(id, 'globex')).rejects.toBeInstanceOf(NotFoundError);
    expect((await sessions.get(id))?.approvals['rv-1']?.status).toBe('pending');
  });

  it('throws ConflictError when no review was asked, only a node approval', async () => {
    const { sessions, id } = await sessionWithPlan('never-asked');
    await sessions.addApproval(id, {
      ...review('ap-1'),
      kind: 'node',
      nodeId: 'send',
      agent: 'mail-agent',
      action: 'send-mail',
      review: undefined,
    });
    const error = await sessions
      .decideReview({ sessionId: id, tenant: 'acme', decision: { decision: 'approve' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain('not waiting for a review');
    expect((await sessions.get(id))?.approvals['ap-1']?.status).toBe('pending');
  });

  it('throws ConflictError for a second decision, naming it decided, and keeps the first', async () => {
    const { sessions, id } = await sessionWithPlan('twice');
    await sessions.addApproval(id, review('rv-1'));
    const first = await sessions.decideReview({
      sessionId: id,
      tenant: 'acme',
      decision: { decision: 'replan', feedback: 'Ask the web too.' },
    });
    const error = await sessions
      .decideReview({ sessionId: id, tenant: 'acme', decision: { decision: 'approve' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain('already decided');
    expect((error as ConflictError).details).toEqual({ status: 'denied' });
    expect((await sessions.get(id))?.approvals['rv-1']).toEqual(first);
  });

  it('is decided only here: the approvals route does not know a review', async () => {
    const { sessions, id } = await sessionWithPlan('not-an-approval');
    await sessions.addApproval(id, review('rv-1'));
    await expect(
      sessions.decideApproval({
        sessionId: id,
        approvalId: 'rv-1',
        tenant: 'acme',
        decision: 'approve',
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await sessions.get(id))?.approvals['rv-1']?.status).toBe('pending');
  });

  it('marks an overdue review expired and throws ConflictError', async () => {
    const { sessions, id } = await sessionWithPlan('expired');
    await sessions.addApproval(id, review('rv-1', { expiresAt: aMinuteAgo() }));
    const error = await sessions
      .decideReview({ sessionId: id, tenant: 'acme', decision: { decision: 'approve' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain('expired');
    expect((await sessions.get(id))?.approvals['rv-1']?.status).toBe('expired');
    // Once expired, it is no longer waiting: a later decision is refused as timed out.
    const later = await sessions
      .decideReview({ sessionId: id, tenant: 'acme', decision: { decision: 'approve' } })
      .catch((caught: unknown) => caught);
    expect((later as ConflictError).message).toContain('timed out');
  });
});
