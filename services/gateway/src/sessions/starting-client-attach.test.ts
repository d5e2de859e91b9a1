import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import {
  buildGateway,
  createTestSessions,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from '../test-support/build-gateway';
import {
  gate,
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';

const HOUR = 3_600_000;

describe('the request that starts a run holds its session (one attached client at a time)', () => {
  let sessions: TestSessions;
  let orchestrator: OrchestratorDouble;
  let gateway: TestGateway;
  let served: Served;
  /** The session the next run reports, and the gate it waits on before answering. */
  let sessionId = '';
  let held = gate();

  beforeAll(async () => {
    sessions = createTestSessions();
    orchestrator = await startOrchestratorDouble(async function* run(_context, call) {
      if (call.input?.resumeSessionId !== undefined) {
        // A resume that got through: it only follows what the run says.
        yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'Following.' };
        return;
      }
      const id = sessionId;
      yield progressStatus(`Run ${id} started.`, { type: 'run-start', sessionId: id }, id);
      await held.promise;
      const result: RunResult = {
        sessionId: id,
        plan: { nodes: [], rationale: 'send it', confidence: 1 },
        nodes: [],
        citations: [],
        failedNodes: [],
        composer: 'offline',
      };
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('Sent.'), dataPart(result)] },
      };
      yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
    });
    gateway = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: { orchestratorClient: orchestrator.client },
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    held.open();
    await served.close();
    await orchestrator.close();
    await gateway.close();
  });

  const post = (headers: Record<string, string>, stream: boolean) =>
    fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify({
        model: 'fleet-orchestration',
        stream,
        messages: [{ role: 'user', content: 'Send the report to Bob' }],
      }),
      signal: AbortSignal.timeout(5000),
    });

  it.each([true, false])(
    'answers 409 to an X-Session-ID request while the starting request is still open (stream: %s), and lets it attach after',
    async (stream) => {
      const seeded = await seedSession(sessions.store, { approvalExpiresInMs: HOUR });
      sessionId = seeded.id;
      held = gate();
      const calls = orchestrator.calls.length;
      const starting = post({ 'x-routing-mode': 'orchestration' }, stream);
      // The run has reported its session: the starting request is attached to it.
      await orchestrator.waitForCall(
        (call) =>
          orchestrator.calls.indexOf(call) >= calls && call.input?.resumeSessionId === undefined,
      );
      if (stream) {
        const response = await starting;
        expect(response.headers.get('x-session-id')).toBe(seeded.id);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const second = await post({ 'x-session-id': seeded.id }, true);
      expect(second.status).toBe(409);
      expect(await second.json()).toMatchObject({
        error: {
          type: 'conflict_error',
          message: 'Another request is already streaming this session.',
        },
      });
      held.open();
      const first = await starting;
      expect(first.status).toBe(200);
      expect(await first.text()).toContain('Sent.');
      // The starting request gave its lease back with its answer.
      const lease = await sessions.store.acquireAttach(seeded.id, 'test', 1000);
      expect(lease).toBeDefined();
      await lease?.release();
    },
  );

  it('lets the client of a starting stream it dropped attach at once, as a reload does', async () => {
    const seeded = await seedSession(sessions.store, { approvalExpiresInMs: HOUR });
    sessionId = seeded.id;
    held = gate();
    const abort = new AbortController();
    const starting = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        'x-routing-mode': 'orchestration',
      },
      body: JSON.stringify({
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: 'Send the report to Bob' }],
      }),
      signal: abort.signal,
    });
    expect(starting.headers.get('x-session-id')).toBe(seeded.id);
    await starting.body?.getReader().read();
    // Gone, and back at once: the gateway may not have seen the close yet.
    abort.abort();
    const again = await post({ 'x-session-id': seeded.id }, true);
    expect(again.status).toBe(200);
    held.open();
    await again.text();
  });
});
