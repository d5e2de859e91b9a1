import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { silentLogger } from '@fleet/http';
import {
  buildGateway,
  createTestSessions,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from '../test-support/build-gateway';
import {
  startScriptedSessionOrchestrator,
  type ScriptedSessionOrchestrator,
} from '../test-support/scripted-session-orchestrator';
import { seedSession } from '../test-support/seed-session';
import { resumeInBackground } from './resume-in-background';

const HOUR = 3_600_000;

describe('what the gateway asks of the orchestrator', () => {
  let sessions: TestSessions;
  let orchestrator: ScriptedSessionOrchestrator;
  let gateway: TestGateway;

  beforeAll(async () => {
    sessions = createTestSessions();
    orchestrator = await startScriptedSessionOrchestrator(sessions.store);
    gateway = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: { orchestratorClient: orchestrator.client },
    });
  });

  afterAll(async () => {
    await orchestrator.close();
    await gateway.close();
  });

  const store = () => sessions.store;
  const resumeCalls = (sessionId: string) =>
    orchestrator.double.calls.filter((call) => call.input?.resumeSessionId === sessionId);

  describe('resumeInBackground', () => {
    it('resumes a session nobody runs with a non-blocking SendMessage', async () => {
      const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
      // Held: a blocking SendMessage would not return before the run ends.
      const release = orchestrator.hold(seeded.id);
      const outcome = await resumeInBackground({
        store: store(),
        client: orchestrator.client,
        logger: silentLogger,
        sessionId: seeded.id,
      });
      expect(outcome).toBe('sent');
      const call = await orchestrator.double.waitForCall(
        (candidate) => candidate.input?.resumeSessionId === seeded.id,
      );
      expect(call.input).toMatchObject({ tenant: 'acme', planApproval: 'none' });
      release();
    });

    it('leaves a session a live orchestrator runs to that orchestrator', async () => {
      const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
      const lease = await store().acquireRunner(seeded.id, 'another-orchestrator');
      try {
        const outcome = await resumeInBackground({
          store: store(),
          client: orchestrator.client,
          logger: silentLogger,
          sessionId: seeded.id,
          recheckAfterMs: 0,
        });
        expect(outcome).toBe('running');
        expect(resumeCalls(seeded.id)).toHaveLength(0);
      } finally {
        await lease?.release();
      }
    });

    it('does nothing for a session that has ended', async () => {
      const seeded = await seedSession(store(), { completedWith: 'Done.' });
      const outcome = await resumeInBackground({
        store: store(),
        client: orchestrator.client,
        logger: silentLogger,
        sessionId: seeded.id,
      });
      expect(outcome).toBe('ended');
      expect(resumeCalls(seeded.id)).toHaveLength(0);
    });
  });

  it('resumes the session after a decision posted to the gateway, with no client attached', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const decided = await request(gateway.app)
      .post(`/v1/sessions/${seeded.id}/approvals/ap-1`)
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ decision: 'approve' });
    expect(decided.status).toBe(200);
    const call = await orchestrator.double.waitForCall(
      (candidate) => candidate.input?.resumeSessionId === seeded.id,
    );
    expect(call.input?.tenant).toBe('acme');
    // The run finishes in the orchestrator: follow its task to the end (it may be over already).
    try {
      for await (const event of orchestrator.client.subscribeToTask({ id: call.taskId })) {
        void event;
      }
    } catch {
      // Already terminal: nothing to follow.
    }
    expect((await orchestrator.client.getTask({ id: call.taskId })).status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    const stored = await store().get(seeded.id);
    expect(stored?.status).toBe('completed');
    expect(stored?.approvals['ap-1']?.status).toBe('approved');
  });

  it('resumes the session after a review decision, with its result review kept', async () => {
    const seeded = await seedSession(store(), { reviewExpiresInMs: HOUR });
    const release = orchestrator.hold(seeded.id);
    try {
      const decided = await request(gateway.app)
        .post(`/v1/sessions/${seeded.id}/review`)
        .auth(TEST_KEY, { type: 'bearer' })
        .send({ decision: 'recompose', feedback: 'Shorter.' });
      expect(decided.status).toBe(200);
      const call = await orchestrator.double.waitForCall(
        (candidate) => candidate.input?.resumeSessionId === seeded.id,
      );
      expect(call.input).toMatchObject({ tenant: 'acme', resultReview: 'required' });
    } finally {
      release();
    }
  });

  it('resumes the session after an answer posted to the gateway, with no client attached', async () => {
    const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
    const answered = await request(gateway.app)
      .post(`/v1/sessions/${seeded.id}/inputs/in-1`)
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ text: 'The monthly one.' });
    expect(answered.status).toBe(200);
    const call = await orchestrator.double.waitForCall(
      (candidate) => candidate.input?.resumeSessionId === seeded.id,
    );
    expect(call.input?.tenant).toBe('acme');
    try {
      for await (const event of orchestrator.client.subscribeToTask({ id: call.taskId })) {
        void event;
      }
    } catch {
      // Already terminal: nothing to follow.
    }
    const stored = await store().get(seeded.id);
    expect(stored?.status).toBe('completed');
    expect(stored?.approvals['in-1']).toMatchObject({
      status: 'answered',
      answer: 'The monthly one.',
    });
  });

  it('cancels through the orchestrator task when an orchestrator runs the session', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    // Held: the run waits for its approval until CancelTask stops it.
    orchestrator.hold(seeded.id);
    const { taskId } = await orchestrator.startLiveRun(seeded.id);
    const response = await request(gateway.app)
      .delete(`/v1/sessions/${seeded.id}`)
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(200);
    // Recorded by the orchestrator that ran it, not by the gateway.
    expect(response.body).toMatchObject({
      status: 'canceled',
      error: 'Canceled by the orchestrator.',
    });
    const task = await orchestrator.client.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });
});
