import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { seedSession } from '../test-support/seed-session';
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
        'nodes',
        'plan',
        'planApproval',
        'request',
        'result',
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
