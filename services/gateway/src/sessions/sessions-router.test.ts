import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { SEEDED_QUESTION, seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';

const HOUR = 3_600_000;

function idsOf(list: { data: { id: string }[] }): string[] {
  return list.data.map((session) => session.id);
}

describe('sessionsRouter', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    // No orchestrator client: decisions and cancels stay in Redis (the orchestrator side is
    // covered in resume-in-background.test.ts and cancel-session.test.ts).
    gateway = await buildGateway({ upstream: 'offline' });
  });

  afterAll(() => gateway.close());

  const store = () => gateway.sessions.store;
  const get = (path: string, key = TEST_KEY) =>
    request(gateway.app).get(path).auth(key, { type: 'bearer' });
  const decide = (path: string, body: unknown, key = TEST_KEY) =>
    request(gateway.app)
      .post(path)
      .auth(key, { type: 'bearer' })
      .send(body as object);

  it('requires an API key', async () => {
    const response = await request(gateway.app).get('/v1/sessions');
    expect(response.status).toBe(401);
    expect(response.body.error.type).toBe('authentication_error');
  });

  it("lists the caller's sessions only, newest first, as summaries", async () => {
    const first = await seedSession(store(), { tenant: 'listing', request: 'first' });
    await delay(5);
    const second = await seedSession(store(), {
      tenant: 'listing',
      request: 'second',
      approvalExpiresInMs: HOUR,
    });
    await delay(5);
    const third = await seedSession(store(), { tenant: 'listing', request: 'third' });
    await seedSession(store(), { tenant: 'globex', request: 'not yours' });
    const listing = await buildGateway({
      upstream: 'offline',
      overrides: {
        apiKeys: [{ key: 'sk-test-listing-0123456789', tenant: 'listing' }],
        sessions: store(),
      },
    });
    try {
      const response = await request(listing.app)
        .get('/v1/sessions')
        .auth('sk-test-listing-0123456789', { type: 'bearer' });
      expect(response.status).toBe(200);
      expect(response.body.object).toBe('list');
      expect(idsOf(response.body)).toEqual([third.id, second.id, first.id]);
      expect(response.body.data[1]).toEqual({
        id: second.id,
        status: 'waiting_approval',
        createdAt: second.createdAt,
        updatedAt: second.updatedAt,
        request: 'second',
        pendingApprovals: 1,
        pendingInputs: 0,
        awaitingReview: false,
      });
      expect(response.body.data[0].pendingApprovals).toBe(0);

      const limited = await request(listing.app)
        .get('/v1/sessions?limit=1')
        .auth('sk-test-listing-0123456789', { type: 'bearer' });
      expect(idsOf(limited.body)).toEqual([third.id]);
      const bad = await request(listing.app)
        .get('/v1/sessions?limit=0')
        .auth('sk-test-listing-0123456789', { type: 'bearer' });
      expect(bad.status).toBe(400);
    } finally {
      await listing.close();
    }
  });

  it('shows a session with its approvals as a list and no internal fields', async () => {
    const seeded = await seedSession(store(), {
      approvalExpiresInMs: HOUR,
      taskId: 'orchestrator-task-1',
    });
    const response = await get(`/v1/sessions/${seeded.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(
      [
        'approvals',
        'createdAt',
        'error',
        'id',
        'inputs',
        'nodes',
        'plan',
        'planApproval',
        'request',
        'result',
        'resultReview',
        'reviews',
        'status',
        'updatedAt',
      ].sort(),
    );
    expect(response.body).toMatchObject({
      id: seeded.id,
      status: 'waiting_approval',
      request: 'Send the report to Bob',
      plan: seeded.plan,
      result: null,
      error: null,
    });
    expect(response.body.nodes).toEqual({
      n1: {
        agent: 'mail',
        state: 'waiting_approval',
        attempts: 1,
        startedAt: '2026-01-01T00:00:00.000Z',
        approvalId: 'ap-1',
      },
    });
    expect(response.body.approvals).toHaveLength(1);
    expect(response.body.approvals[0].id).toBe('ap-1');
    const text = JSON.stringify(response.body);
    expect(text).not.toContain('orchestrator-task-1');
    expect(text).not.toContain('agent-task-secret');
    expect(text).not.toContain('acme');
  });

  it('lists approvals in the documented shape', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const response = await get(`/v1/sessions/${seeded.id}/approvals`);
    expect(response.status).toBe(200);
    const approval = seeded.approvals['ap-1'];
    expect(response.body).toEqual({
      object: 'list',
      data: [
        {
          id: 'ap-1',
          kind: 'node',
          status: 'pending',
          nodeId: 'n1',
          agent: 'mail',
          action: 'send-mail',
          summary: 'Send the report to bob@example.com',
          preview: 'To: bob@example.com\nSubject: Report',
          risk: 'high',
          createdAt: approval?.createdAt,
          expiresAt: approval?.expiresAt,
        },
      ],
    });
  });

  it("answers 404 for another tenant's session exactly as for a missing one", async () => {
    const theirs = await seedSession(store(), { tenant: 'globex', approvalExpiresInMs: HOUR });
    const missing = 'no-such-session';
    const shapes = [
      (id: string) => get(`/v1/sessions/${id}`),
      (id: string) => get(`/v1/sessions/${id}/approvals`),
      (id: string) => decide(`/v1/sessions/${id}/approvals/ap-1`, { decision: 'approve' }),
      (id: string) =>
        request(gateway.app).delete(`/v1/sessions/${id}`).auth(TEST_KEY, { type: 'bearer' }),
    ];
    for (const call of shapes) {
      const foreign = await call(theirs.id);
      const absent = await call(missing);
      expect(foreign.status).toBe(404);
      expect(absent.status).toBe(404);
      expect(JSON.stringify(foreign.body).replaceAll(theirs.id, 'ID')).toBe(
        JSON.stringify(absent.body).replaceAll(missing, 'ID'),
      );
      expect(foreign.body.error.type).toBe('not_found_error');
    }
    // The owner still sees it, untouched.
    const owner = await get(`/v1/sessions/${theirs.id}/approvals`, OTHER_KEY);
    expect(owner.body.data[0].status).toBe('pending');
  });

  it('records a decision once: 200 with the approval, then 409', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const path = `/v1/sessions/${seeded.id}/approvals/ap-1`;
    const first = await decide(path, { decision: 'approve', instructions: 'Copy Alice.' });
    expect(first.status).toBe(200);
    expect(first.body.approval).toMatchObject({
      id: 'ap-1',
      status: 'approved',
      instructions: 'Copy Alice.',
      nodeId: 'n1',
    });
    expect(typeof first.body.approval.decidedAt).toBe('string');

    const again = await decide(path, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict_error');
    expect(again.body.error.message).toContain('already approved');

    const stored = await store().get(seeded.id);
    expect(stored?.approvals['ap-1']?.status).toBe('approved');
    const listed = await get(`/v1/sessions/${seeded.id}/approvals`);
    expect(listed.body.data[0]).toMatchObject({ status: 'approved', instructions: 'Copy Alice.' });
  });

  it('answers 404 for an unknown approval and 409 for an expired one', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const unknown = await decide(`/v1/sessions/${seeded.id}/approvals/ap-9`, {
      decision: 'approve',
    });
    expect(unknown.status).toBe(404);

    const overdue = await seedSession(store(), { approvalExpiresInMs: -1000 });
    const expired = await decide(`/v1/sessions/${overdue.id}/approvals/ap-1`, {
      decision: 'approve',
    });
    expect(expired.status).toBe(409);
    expect(expired.body.error.message).toContain('expired');
    const listed = await get(`/v1/sessions/${overdue.id}/approvals`);
    expect(listed.body.data[0].status).toBe('expired');
  });

  it('refuses decisions that are not { decision, instructions? }', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const path = `/v1/sessions/${seeded.id}/approvals/ap-1`;
    const cases: unknown[] = [
      {},
      { decision: 'maybe' },
      { decision: 'approve', extra: true },
      { decision: 'approve', instructions: 'x'.repeat(4001) },
      { decision: 'approve', instructions: 42 },
    ];
    for (const body of cases) {
      const response = await decide(path, body);
      expect(response.status).toBe(400);
      expect(response.body.error.type).toBe('invalid_request_error');
    }
    const malformed = await request(gateway.app)
      .post(path)
      .auth(TEST_KEY, { type: 'bearer' })
      .set('content-type', 'application/json')
      .send('{"decision":');
    expect(malformed.status).toBe(400);
    // None of them decided anything.
    expect((await store().get(seeded.id))?.approvals['ap-1']?.status).toBe('pending');
    const longest = await decide(path, { decision: 'deny', instructions: 'y'.repeat(4000) });
    expect(longest.status).toBe(200);
    expect(longest.body.approval.status).toBe('denied');
  });

  describe('questions (inputs)', () => {
    const answer = (path: string, body: unknown, key = TEST_KEY) => decide(path, body, key);

    it('lists questions in the documented shape, oldest first, and approvals without them', async () => {
      const seeded = await seedSession(store(), {
        approvalExpiresInMs: HOUR,
        questionExpiresInMs: HOUR,
      });
      await store().addApproval(seeded.id, {
        id: 'in-2',
        kind: 'input',
        nodeId: 'n1',
        agent: 'mail',
        action: 'answer-question',
        summary: 'And to whom?',
        preview: 'And to whom?',
        risk: 'low',
        expiresAt: new Date(Date.now() + HOUR).toISOString(),
      });
      const question = (await store().get(seeded.id))?.approvals['in-1'];
      const inputs = await get(`/v1/sessions/${seeded.id}/inputs`);
      expect(inputs.status).toBe(200);
      expect(inputs.body.object).toBe('list');
      expect(inputs.body.data).toHaveLength(2);
      expect(inputs.body.data[0]).toEqual({
        id: 'in-1',
        status: 'pending',
        nodeId: 'n1',
        agent: 'mail',
        question: SEEDED_QUESTION,
        createdAt: question?.createdAt,
        expiresAt: question?.expiresAt,
      });
      expect(inputs.body.data[1].id).toBe('in-2');

      const approvals = await get(`/v1/sessions/${seeded.id}/approvals`);
      expect(approvals.status).toBe(200);
      expect(idsOf(approvals.body)).toEqual(['ap-1']);
    });

    it('shows waiting_input, the question beside the approvals, and the pending counts', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      const response = await get(`/v1/sessions/${seeded.id}`);
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('waiting_input');
      expect(response.body.nodes.n1.state).toBe('waiting_input');
      expect(response.body.approvals).toEqual([]);
      expect(response.body.inputs).toHaveLength(1);
      expect(response.body.inputs[0]).toMatchObject({
        id: 'in-1',
        status: 'pending',
        question: SEEDED_QUESTION,
      });
      const listed = await get('/v1/sessions?limit=100');
      const summaries = (listed.body as { data: { id: string }[] }).data;
      const summary = summaries.find((entry) => entry.id === seeded.id);
      expect(summary).toMatchObject({
        status: 'waiting_input',
        pendingApprovals: 0,
        pendingInputs: 1,
      });
    });

    it("shows an approval's riskDescription when the agent gave words for the risk", async () => {
      const seeded = await seedSession(store());
      await store().addApproval(seeded.id, {
        id: 'ap-words',
        kind: 'node',
        nodeId: 'n1',
        agent: 'mail',
        action: 'pay',
        summary: 'Pay invoice 42',
        preview: 'Pay €1,200 to ACME',
        risk: 'high',
        riskDescription: 'Money leaves the company account',
        expiresAt: new Date(Date.now() + HOUR).toISOString(),
      });
      const listed = await get(`/v1/sessions/${seeded.id}/approvals`);
      expect(listed.body.data[0]).toMatchObject({
        id: 'ap-words',
        risk: 'high',
        riskDescription: 'Money leaves the company account',
      });
      const view = await get(`/v1/sessions/${seeded.id}`);
      expect(view.body.approvals[0].riskDescription).toBe('Money leaves the company account');
    });

    it('records an answer once: 200 with the question, the store shows it, then 409', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      const path = `/v1/sessions/${seeded.id}/inputs/in-1`;
      const first = await answer(path, { text: '  The monthly one.  ' });
      expect(first.status).toBe(200);
      expect(first.body.input).toMatchObject({
        id: 'in-1',
        status: 'answered',
        nodeId: 'n1',
        agent: 'mail',
        question: SEEDED_QUESTION,
        answer: 'The monthly one.',
      });
      expect(typeof first.body.input.answeredAt).toBe('string');

      const stored = (await store().get(seeded.id))?.approvals['in-1'];
      expect(stored?.status).toBe('answered');
      expect(stored?.answer).toBe('The monthly one.');

      const again = await answer(path, { text: 'The weekly one.' });
      expect(again.status).toBe(409);
      expect(again.body.error.type).toBe('conflict_error');
      expect(again.body.error.message).toContain('already answered');
      expect((await store().get(seeded.id))?.approvals['in-1']?.answer).toBe('The monthly one.');

      const listed = await get(`/v1/sessions/${seeded.id}/inputs`);
      expect(listed.body.data[0]).toMatchObject({ status: 'answered', answer: 'The monthly one.' });
    });

    it('answers 409 for an expired question', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: -1000 });
      const expired = await answer(`/v1/sessions/${seeded.id}/inputs/in-1`, { text: 'Late.' });
      expect(expired.status).toBe(409);
      expect(expired.body.error.message).toContain('expired');
      expect((await store().get(seeded.id))?.approvals['in-1']?.status).toBe('expired');
    });

    it("answers 404 for an unknown question, an approval's id, and another tenant's session", async () => {
      const seeded = await seedSession(store(), {
        approvalExpiresInMs: HOUR,
        questionExpiresInMs: HOUR,
      });
      const unknown = await answer(`/v1/sessions/${seeded.id}/inputs/in-9`, { text: 'Hi.' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.type).toBe('not_found_error');
      // An approval is not a question, and a question is not an approval.
      const approvalAsInput = await answer(`/v1/sessions/${seeded.id}/inputs/ap-1`, {
        text: 'Yes.',
      });
      expect(approvalAsInput.status).toBe(404);
      const inputAsApproval = await decide(`/v1/sessions/${seeded.id}/approvals/in-1`, {
        decision: 'approve',
      });
      expect(inputAsApproval.status).toBe(404);
      const stored = await store().get(seeded.id);
      expect(stored?.approvals['ap-1']?.status).toBe('pending');
      expect(stored?.approvals['in-1']?.status).toBe('pending');

      const theirs = await seedSession(store(), { tenant: 'globex', questionExpiresInMs: HOUR });
      const missing = 'no-such-session';
      const shapes = [
        (id: string) => get(`/v1/sessions/${id}/inputs`),
        (id: string) => answer(`/v1/sessions/${id}/inputs/in-1`, { text: 'Mine now.' }),
      ];
      for (const call of shapes) {
        const foreign = await call(theirs.id);
        const absent = await call(missing);
        expect(foreign.status).toBe(404);
        expect(absent.status).toBe(404);
        expect(JSON.stringify(foreign.body).replaceAll(theirs.id, 'ID')).toBe(
          JSON.stringify(absent.body).replaceAll(missing, 'ID'),
        );
      }
      const owner = await get(`/v1/sessions/${theirs.id}/inputs`, OTHER_KEY);
      expect(owner.body.data[0].status).toBe('pending');
    });

    it('refuses answers that are not { text } with 1–16000 characters, naming the field', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      const path = `/v1/sessions/${seeded.id}/inputs/in-1`;
      const cases: { body: unknown; param?: string; message: string }[] = [
        { body: {}, param: 'text', message: 'text is required' },
        { body: { text: 42 }, param: 'text', message: 'must be a string' },
        { body: { text: '' }, param: 'text', message: 'text must not be empty' },
        { body: { text: ' \n\t ' }, param: 'text', message: 'text must not be empty' },
        {
          body: { text: 'x'.repeat(16_001) },
          param: 'text',
          message: 'at most 16000 characters',
        },
        { body: { text: 'Fine.', extra: true }, message: 'Unrecognized key' },
      ];
      for (const { body, param, message } of cases) {
        const response = await answer(path, body);
        expect(response.status).toBe(400);
        expect(response.body.error.type).toBe('invalid_request_error');
        expect(response.body.error.message).toContain(message);
        if (param !== undefined) expect(response.body.error.param).toBe(param);
      }
      const malformed = await request(gateway.app)
        .post(path)
        .auth(TEST_KEY, { type: 'bearer' })
        .set('content-type', 'application/json')
        .send('{"text":');
      expect(malformed.status).toBe(400);
      // None of them answered anything.
      expect((await store().get(seeded.id))?.approvals['in-1']?.status).toBe('pending');
      const longest = await answer(path, { text: `  ${'y'.repeat(16_000)}  ` });
      expect(longest.status).toBe(200);
      expect(longest.body.input.answer).toHaveLength(16_000);
    });
  });

  describe('50 concurrent decisions on one approval', () => {
    let served: Served;

    beforeAll(async () => {
      served = await serve(gateway.app);
    });

    afterAll(() => served.close());

    it('records exactly one: one 200 and 49 409s', async () => {
      const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
      const url = `${served.url}/v1/sessions/${seeded.id}/approvals/ap-1`;
      const responses = await Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          const decision = index % 2 === 0 ? 'approve' : 'deny';
          const response = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ decision, instructions: `request ${index}` }),
          });
          return {
            status: response.status,
            body: (await response.json()) as {
              approval?: { status: string; instructions: string };
              error?: { type: string };
            },
          };
        }),
      );
      const winners = responses.filter((response) => response.status === 200);
      const losers = responses.filter((response) => response.status === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(49);
      for (const loser of losers) expect(loser.body.error?.type).toBe('conflict_error');
      const stored = (await store().get(seeded.id))?.approvals['ap-1'];
      expect(stored?.status).toBe(winners[0]?.body.approval?.status);
      expect(stored?.instructions).toBe(winners[0]?.body.approval?.instructions);
    });
  });

  it('cancels a session nobody runs: 200, pending approvals denied, then 409', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    let heard: () => void = () => undefined;
    const canceledEvent = new Promise<void>((resolve) => (heard = resolve));
    const unsubscribe = await store().subscribe(seeded.id, (event) => {
      if (event.type === 'session-canceled') heard();
    });
    const response = await request(gateway.app)
      .delete(`/v1/sessions/${seeded.id}`)
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: seeded.id, status: 'canceled' });
    expect(response.body.approvals[0]).toMatchObject({
      id: 'ap-1',
      status: 'denied',
      instructions: 'session canceled',
    });
    expect((await store().get(seeded.id))?.status).toBe('canceled');

    const again = await request(gateway.app)
      .delete(`/v1/sessions/${seeded.id}`)
      .auth(TEST_KEY, { type: 'bearer' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('already ended (canceled)');
    const decided = await decide(`/v1/sessions/${seeded.id}/approvals/ap-1`, {
      decision: 'approve',
    });
    expect(decided.status).toBe(409);

    // Subscribers (a waiting orchestrator) hear of it.
    await canceledEvent;
    await unsubscribe();
  });

  it('answers 409 when cancelling a completed session', async () => {
    const seeded = await seedSession(store(), { completedWith: 'Done [1].' });
    const response = await request(gateway.app)
      .delete(`/v1/sessions/${seeded.id}`)
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(409);
    expect((await store().get(seeded.id))?.status).toBe('completed');
  });
});
