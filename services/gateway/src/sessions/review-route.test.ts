import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MAX_REVIEW_FEEDBACK } from '@fleet/a2a';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { SEEDED_ADDED_STEP, SEEDED_REVIEW_ANSWER, seedSession } from '../test-support/seed-session';

const HOUR = 3_600_000;

describe('POST /v1/sessions/{id}/review', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    // No orchestrator client: decisions stay in Redis (resumes are covered elsewhere).
    gateway = await buildGateway({ upstream: 'offline' });
  });

  afterAll(() => gateway.close());

  const store = () => gateway.sessions.store;
  const review = (id: string, body: unknown, key = TEST_KEY) =>
    request(gateway.app)
      .post(`/v1/sessions/${id}/review`)
      .auth(key, { type: 'bearer' })
      .send(body as object);
  const get = (path: string, key = TEST_KEY) =>
    request(gateway.app).get(path).auth(key, { type: 'bearer' });

  it('approves: 200 with the review, the session records it, then 409 for a second decision', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR });
    const response = await review(seeded.id, { decision: 'approve' });
    expect(response.status).toBe(200);
    expect(response.body.review).toMatchObject({
      id: 'rv-1',
      round: 1,
      status: 'approved',
      answer: SEEDED_REVIEW_ANSWER,
      decision: 'approve',
      steps: [{ id: 'n1', agent: 'mail', state: 'completed', summary: 'Sent.' }],
    });
    expect(typeof response.body.review.decidedAt).toBe('string');
    const stored = await store().get(seeded.id);
    expect(stored?.approvals['rv-1']?.status).toBe('approved');
    expect(stored?.approvals['rv-1']?.review?.decision).toBe('approve');

    const again = await review(seeded.id, { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict' });
    expect(again.body.error.message).toContain('already decided');
  });

  it('sends steps back: revise records the targets and the feedback as a denial', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR, addedStep: true });
    const response = await review(seeded.id, {
      decision: 'revise',
      steps: ['n2', 'n2'],
      feedback: '  Use the monthly report.  ',
    });
    expect(response.status).toBe(200);
    expect(response.body.review).toMatchObject({
      status: 'denied',
      decision: 'revise',
      targets: ['n2'],
      feedback: 'Use the monthly report.',
    });
  });

  it("answers 400 naming the plan's steps for a step it does not have; nothing is decided", async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR });
    const response = await review(seeded.id, {
      decision: 'revise',
      steps: ['n1', 'ghost'],
      feedback: 'again',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      message: 'The plan has no step "ghost": its steps are "n1".',
      type: 'invalid_request_error',
      param: 'steps',
      code: 'validation_failed',
    });
    expect((await store().get(seeded.id))?.approvals['rv-1']?.status).toBe('pending');
  });

  it('answers 409 for a session that waits for no review', async () => {
    const plain = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const response = await review(plain.id, { decision: 'approve' });
    expect(response.status).toBe(409);
    expect(response.body.error.type).toBe('conflict_error');
    expect(response.body.error.message).toContain('is not waiting for a review');
    // The node approval it does wait for is untouched.
    expect((await store().get(plain.id))?.approvals['ap-1']?.status).toBe('pending');
  });

  it('answers 409 for an expired review', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: -1000 });
    const response = await review(seeded.id, { decision: 'approve' });
    expect(response.status).toBe(409);
    expect(response.body.error.message).toContain('expired');
  });

  it("answers 404 for another tenant's session exactly as for a missing one", async () => {
    const theirs = await seedSession(store(), { tenant: 'globex', reviewExpiresInMs: HOUR });
    const foreign = await review(theirs.id, { decision: 'approve' });
    const absent = await review('no-such-session', { decision: 'approve' });
    expect(foreign.status).toBe(404);
    expect(absent.status).toBe(404);
    expect(foreign.body.error.type).toBe('not_found_error');
    expect(JSON.stringify(foreign.body).replaceAll(theirs.id, 'ID')).toBe(
      JSON.stringify(absent.body).replaceAll('no-such-session', 'ID'),
    );
    expect((await store().get(theirs.id))?.approvals['rv-1']?.status).toBe('pending');
    // Its own tenant decides it.
    expect((await review(theirs.id, { decision: 'approve' }, OTHER_KEY)).status).toBe(200);
  });

  it('answers 400 in the OpenAI envelope for a bad body, naming the field; nothing is decided', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR });
    const cases: [unknown, string, RegExp][] = [
      [{ decision: 'revise', feedback: 'x' }, 'steps', /names the steps to run again/],
      [{ decision: 'revise', steps: ['n1'] }, 'feedback', /says what to change/],
      [{ decision: 'replan' }, 'feedback', /'replan' decision says what to change/],
      [{ decision: 'approve', steps: ['n1'] }, 'steps', /with a 'revise' decision only/],
      [
        { decision: 'recompose', feedback: 'x'.repeat(MAX_REVIEW_FEEDBACK + 1) },
        'feedback',
        /at most 4000 characters/,
      ],
      [{ decision: 'revise', steps: [], feedback: 'x' }, 'steps', /at least one step/],
      [{ decision: 'maybe' }, 'decision', /./],
      [{ decision: 'approve', extra: 1 }, '', /extra/],
    ];
    for (const [body, param, message] of cases) {
      const response = await review(seeded.id, body);
      expect(response.status).toBe(400);
      expect(response.body.error.type).toBe('invalid_request_error');
      if (param !== '') expect(response.body.error.param).toBe(param);
      expect(response.body.error.message).toMatch(message);
    }
    const notJson = await request(gateway.app)
      .post(`/v1/sessions/${seeded.id}/review`)
      .auth(TEST_KEY, { type: 'bearer' })
      .set('content-type', 'application/json')
      .send('{"decision": "approve"');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.type).toBe('invalid_request_error');
    expect((await store().get(seeded.id))?.approvals['rv-1']?.status).toBe('pending');
    // The longest feedback is taken.
    const longest = await review(seeded.id, {
      decision: 'recompose',
      feedback: 'y'.repeat(MAX_REVIEW_FEEDBACK),
    });
    expect(longest.status).toBe(200);
    expect(longest.body.review.decision).toBe('recompose');
  });

  it('shows reviews and added steps in the session; /approvals does not list reviews', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR, addedStep: true });
    await review(seeded.id, { decision: 'revise', steps: ['n1'], feedback: 'Send it to Carol.' });
    const response = await get(`/v1/sessions/${seeded.id}`);
    expect(response.status).toBe(200);
    expect(response.body.resultReview).toBe(true);
    expect(response.body.approvals).toEqual([]);
    expect(response.body.reviews).toEqual([
      {
        id: 'rv-1',
        round: 1,
        status: 'denied',
        answer: SEEDED_REVIEW_ANSWER,
        steps: [
          { id: 'n1', agent: 'mail', state: 'completed', summary: 'Sent.' },
          {
            id: 'n2',
            agent: 'rag',
            state: 'completed',
            summary: 'The weekly report.',
            added: true,
          },
        ],
        decision: 'revise',
        targets: ['n1'],
        feedback: 'Send it to Carol.',
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        decidedAt: expect.any(String),
      },
    ]);
    expect(response.body.plan.nodes[1]).toEqual(SEEDED_ADDED_STEP);
    expect(response.body.plan.nodes[0].origin).toBeUndefined();

    const approvals = await get(`/v1/sessions/${seeded.id}/approvals`);
    expect(approvals.body).toEqual({ object: 'list', data: [] });
  });

  it('counts a pending review in the summary as awaitingReview, not as a pending approval', async () => {
    const seeded = await seedSession(store(), {
      tenant: 'reviewing',
      reviewExpiresInMs: HOUR,
    });
    const listing = await buildGateway({
      upstream: 'offline',
      overrides: {
        apiKeys: [{ key: 'sk-test-reviewing-0123456789', tenant: 'reviewing' }],
        sessions: store(),
      },
    });
    try {
      const list = await request(listing.app)
        .get('/v1/sessions')
        .auth('sk-test-reviewing-0123456789', { type: 'bearer' });
      expect(list.body.data).toEqual([
        expect.objectContaining({
          id: seeded.id,
          status: 'waiting_approval',
          pendingApprovals: 0,
          awaitingReview: true,
        }),
      ]);
    } finally {
      await listing.close();
    }
  });
});
