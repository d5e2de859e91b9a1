import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import {
  buildGateway,
  createTestSessions,
  OTHER_KEY,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';
import {
  SCRIPTED_ANSWER,
  startScriptedSessionOrchestrator,
  type ScriptedSessionOrchestrator,
} from '../test-support/scripted-session-orchestrator';
import { SEEDED_QUESTION, seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';
import { fleetObjects, sseFrames } from '../test-support/sse-frames';
import { followSession } from './session-events';

const HOUR = 3_600_000;
const BODY = { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'ignored' }] };

describe('resumeSession (X-Session-ID)', () => {
  let sessions: TestSessions;
  let orchestrator: ScriptedSessionOrchestrator;
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    sessions = createTestSessions();
    orchestrator = await startScriptedSessionOrchestrator(sessions.store);
    gateway = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: { orchestratorClient: orchestrator.client },
    });
    served = await serve(gateway.app);
  });

  afterAll(async () => {
    await served.close();
    await orchestrator.close();
    await gateway.close();
  });

  const store = () => sessions.store;
  const resume = (sessionId: string, body: object = { ...BODY, stream: true }, key = TEST_KEY) =>
    request(gateway.app)
      .post('/v1/chat/completions')
      .auth(key, { type: 'bearer' })
      .set('x-session-id', sessionId)
      .send(body)
      .buffer(true)
      .parse(readText);

  const resumeCalls = (sessionId: string) =>
    orchestrator.double.calls.filter((call) => call.input?.resumeSessionId === sessionId);

  it('answers a completed session with its stored answer at once, streamed', async () => {
    const seeded = await seedSession(store(), { completedWith: 'Done [1].' });
    const response = await resume(seeded.id);
    expect(response.status).toBe(200);
    expect(response.headers['x-session-id']).toBe(seeded.id);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    const { chunks, done } = sseFrames(response.body as string);
    expect(done).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.reasoning_content).toBe(
      `Session ${seeded.id} has already completed; this is its answer.\n`,
    );
    expect(chunks[0]?.fleet).toEqual({ sessionId: seeded.id, type: 'run-end', state: 'completed' });
    expect(chunks[1]?.choices[0]?.delta).toEqual({ content: 'Done [1].' });
    expect(chunks[1]?.fleet).toMatchObject({
      type: 'run-result',
      sessionId: seeded.id,
      plan: seeded.plan,
      citations: [{ title: 'Report', url: 'https://example.com/report' }],
      nodes: [{ id: 'n1', agent: 'mail', state: 'completed', attempts: 1, durationMs: 2000 }],
    });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    // Answered from the session: the orchestrator was not asked.
    expect(resumeCalls(seeded.id)).toHaveLength(0);
  });

  it('answers a completed session with one chat.completion when not streaming', async () => {
    const seeded = await seedSession(store(), { completedWith: 'Done [1].' });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-session-id', seeded.id)
      .send(BODY);
    expect(response.status).toBe(200);
    expect(response.headers['x-session-id']).toBe(seeded.id);
    expect(response.body.object).toBe('chat.completion');
    expect(response.body.choices[0].message.content).toBe('Done [1].');
    expect(response.body.fleet).toMatchObject({ sessionId: seeded.id, plan: seeded.plan });
  });

  it('continues a session nobody runs with resumeSessionId, streaming the rest like a new run', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    await store().decideApproval({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      tenant: 'acme',
      decision: 'approve',
    });
    const response = await resume(seeded.id);
    expect(response.status).toBe(200);
    expect(response.headers['x-session-id']).toBe(seeded.id);
    const { chunks, done } = sseFrames(response.body as string);
    expect(done).toBe(true);
    expect(fleetObjects(chunks).map((fleet) => fleet['type'])).toEqual([
      'run-start',
      'approval-end',
      'node-end',
      'run-result',
    ]);
    expect(fleetObjects(chunks)[1]).toEqual({
      sessionId: seeded.id,
      type: 'approval-end',
      approvalId: 'ap-1',
      status: 'approved',
    });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      SCRIPTED_ANSWER,
    );
    const calls = resumeCalls(seeded.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.input).toMatchObject({ tenant: 'acme', resumeSessionId: seeded.id });
    expect((await store().get(seeded.id))?.status).toBe('completed');
  });

  it('follows the task of a live orchestrator (SubscribeToTask), approval events included', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const release = orchestrator.hold(seeded.id);
    const { taskId } = await orchestrator.startLiveRun(seeded.id);
    expect((await store().get(seeded.id))?.taskId).toBe(taskId);

    const response = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        'x-session-id': seeded.id,
      },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error('no body');
    let text = '';
    // Where the run stands (it waits for the approval) comes first…
    while (!text.includes('approval-required')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toContain('Waiting for approval: Send the report to bob@example.com');
    // …then the approval is decided and the live run finishes.
    await store().decideApproval({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      tenant: 'acme',
      decision: 'approve',
    });
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const { chunks, done } = sseFrames(text);
    expect(done).toBe(true);
    const fleet = fleetObjects(chunks);
    expect(fleet.map((event) => event['type'])).toEqual([
      'approval-required',
      'approval-end',
      'node-end',
      'run-result',
    ]);
    expect(fleet[0]).toMatchObject({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      kind: 'node',
      action: 'send-mail',
      risk: 'high',
    });
    expect(chunks[0]?.choices[0]?.delta.reasoning_content).toBe(
      'Waiting for approval: Send the report to bob@example.com\n',
    );
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      SCRIPTED_ANSWER,
    );
    // Followed, not resumed a second time.
    expect(resumeCalls(seeded.id)).toHaveLength(0);
  });

  it('does not ask again for an approval decided before the follow began (the task snapshot’s last line)', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const release = orchestrator.hold(seeded.id);
    await orchestrator.startLiveRun(seeded.id);
    // Decided while the live run has not moved on yet: its task still ends on approval-required.
    await store().decideApproval({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      tenant: 'acme',
      decision: 'approve',
    });
    const events = followSession({
      store: store(),
      client: orchestrator.client,
      sessionId: seeded.id,
    })(new AbortController().signal);
    const types: string[] = [];
    for await (const event of events) {
      if (types.length === 0) release();
      const parts =
        'task' in event
          ? (event.task.status.message?.parts ?? [])
          : 'statusUpdate' in event
            ? (event.statusUpdate.status.message?.parts ?? [])
            : [];
      const progress = parts.find((part) => part.data !== undefined)?.data as
        { progress?: { type: string } } | undefined;
      types.push(progress?.progress?.type ?? Object.keys(event)[0] ?? '?');
    }
    expect(types).not.toContain('approval-required');
    expect(types).toEqual(expect.arrayContaining(['approval-end', 'node-end']));
  });

  it('follows the replica that took the session when a resume races with it', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    const release = orchestrator.hold(seeded.id);
    orchestrator.raceOnResume(seeded.id);
    const response = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        'x-session-id': seeded.id,
      },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error('no body');
    let text = '';
    while (!text.includes('approval-required')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const { chunks, done } = sseFrames(text);
    expect(done).toBe(true);
    // The refused resume is not reported as a failure: the client sees the other replica's run.
    expect(text).not.toContain('another orchestrator replica');
    expect(fleetObjects(chunks).map((fleet) => fleet['type'])).toEqual([
      'approval-required',
      'approval-end',
      'node-end',
      'run-result',
    ]);
    expect(resumeCalls(seeded.id)).toHaveLength(1);
    expect((await store().get(seeded.id))?.status).toBe('completed');
  });

  it('lets one request stream a session: of 10 concurrent resumes one streams, nine get 409', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    await store().decideApproval({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      tenant: 'acme',
      decision: 'approve',
    });
    const release = orchestrator.hold(seeded.id);
    let conflicts = 0;
    let allConflicts: () => void = () => undefined;
    const nineConflicts = new Promise<void>((resolve) => (allConflicts = resolve));
    const attempts = Array.from({ length: 10 }, async () => {
      const response = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          'x-session-id': seeded.id,
        },
        body: JSON.stringify({ ...BODY, stream: true }),
      });
      if (response.status === 409 && ++conflicts === 9) allConflicts();
      return { status: response.status, body: await response.text() };
    });
    // The run is held until every other request has been refused: only one can be streaming.
    await nineConflicts;
    release();
    const responses = await Promise.all(attempts);
    const streamed = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 409);
    expect(streamed).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const response of refused) {
      expect(JSON.parse(response.body)).toMatchObject({
        error: {
          type: 'conflict_error',
          message: 'Another request is already streaming this session.',
        },
      });
    }
    const { chunks, done } = sseFrames(streamed[0]?.body ?? '');
    expect(done).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      SCRIPTED_ANSWER,
    );
    // One resume reached the orchestrator, and its writes all landed.
    expect(resumeCalls(seeded.id)).toHaveLength(1);
    const stored = await store().get(seeded.id);
    expect(stored?.status).toBe('completed');
    expect(stored?.nodes['n1']).toMatchObject({ state: 'completed', attempts: 2 });
    expect(stored?.approvals['ap-1']?.status).toBe('approved');
    // The lease went with the response: the next resume gets the stored answer.
    const after = await resume(seeded.id);
    expect(after.status).toBe(200);
    expect(sseFrames(after.body as string).chunks[1]?.choices[0]?.delta.content).toBe(
      SCRIPTED_ANSWER,
    );
  });

  it('takes over from an orchestrator that died holding the session (followSession)', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    await store().decideApproval({
      sessionId: seeded.id,
      approvalId: 'ap-1',
      tenant: 'acme',
      decision: 'approve',
    });
    // A dead orchestrator: its task still shows WORKING, its lease runs out and is not renewed.
    const { taskId } = await orchestrator.startZombieTask(seeded.id);
    await store().update(seeded.id, (draft) => {
      draft.taskId = taskId;
    });
    const deadLease = await store().acquireRunner(seeded.id, 'dead-orchestrator', 300);
    expect(deadLease).toBeDefined();

    const events = followSession({
      store: store(),
      client: orchestrator.client,
      sessionId: seeded.id,
      leaseCheckMs: 50,
    })(new AbortController().signal);
    const seen: string[] = [];
    for await (const event of events) {
      if ('task' in event) seen.push(`task ${event.task.id === taskId ? 'zombie' : 'resume'}`);
      else if ('statusUpdate' in event) {
        const progress = event.statusUpdate.status.message?.parts.find(
          (part) => part.data !== undefined,
        )?.data as { progress?: { type: string } } | undefined;
        if (progress?.progress !== undefined) seen.push(progress.progress.type);
      } else if ('artifactUpdate' in event) seen.push('result');
    }
    // First the dead run as it stands, then, once its lease ran out, the same task taken over.
    expect(seen).toEqual([
      'task zombie',
      'task zombie',
      'run-start',
      'approval-end',
      'node-end',
      'result',
    ]);
    expect(resumeCalls(seeded.id)).toEqual([expect.objectContaining({ taskId })]);
    expect((await store().get(seeded.id))?.status).toBe('completed');
  });

  describe('while the session waits for an answer to a question', () => {
    const addQuestion = (sessionId: string, id: string) =>
      store().addApproval(sessionId, {
        id,
        kind: 'input',
        nodeId: 'n1',
        agent: 'mail',
        action: 'answer-question',
        summary: 'And to whom?',
        preview: 'And to whom?',
        risk: 'low',
        expiresAt: new Date(Date.now() + HOUR).toISOString(),
      });

    it('answers the oldest pending question with the last user message, then streams the rest', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      await addQuestion(seeded.id, 'in-2');
      expect((await store().get(seeded.id))?.status).toBe('waiting_input');
      const response = await resume(seeded.id, {
        model: 'fleet-orchestration',
        stream: true,
        messages: [
          { role: 'user', content: 'Send the report to Bob' },
          { role: 'assistant', content: SEEDED_QUESTION },
          {
            role: 'user',
            content: [
              { type: 'text', text: '  The monthly ' },
              { type: 'text', text: 'one.  ' },
            ],
          },
          { role: 'assistant', content: 'not the last user message' },
        ],
      });
      expect(response.status).toBe(200);
      expect(response.headers['x-session-id']).toBe(seeded.id);
      const { chunks, done } = sseFrames(response.body as string);
      expect(done).toBe(true);
      const fleet = fleetObjects(chunks);
      expect(fleet.map((event) => event['type'])).toEqual([
        'run-start',
        'input-end',
        'input-end',
        'node-end',
        'run-result',
      ]);
      // The answer was recorded before the run was resumed: the resumed run finds it answered.
      expect(fleet[1]).toEqual({
        sessionId: seeded.id,
        type: 'input-end',
        inputId: 'in-1',
        status: 'answered',
      });
      expect(fleet[2]).toMatchObject({ inputId: 'in-2', status: 'pending' });
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
        SCRIPTED_ANSWER,
      );
      expect(resumeCalls(seeded.id)).toHaveLength(1);
      const stored = await store().get(seeded.id);
      expect(stored?.approvals['in-1']).toMatchObject({
        status: 'answered',
        answer: 'The monthly one.',
      });
      expect(stored?.approvals['in-2']?.status).toBe('pending');
      expect(stored?.status).toBe('completed');
    });

    it('answers a newer question when the oldest is past its expiry', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: -1000 });
      await addQuestion(seeded.id, 'in-2');
      const response = await resume(seeded.id, {
        ...BODY,
        stream: true,
        messages: [{ role: 'user', content: 'To Bob.' }],
      });
      expect(response.status).toBe(200);
      const stored = await store().get(seeded.id);
      expect(stored?.approvals['in-2']).toMatchObject({ status: 'answered', answer: 'To Bob.' });
      expect(stored?.approvals['in-1']?.answer).toBeUndefined();
    });

    it('refuses an empty last user message with 400 naming messages, and records nothing', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      const bodies = [
        {
          ...BODY,
          messages: [
            { role: 'user', content: 'The monthly one.' },
            { role: 'user', content: ' \n ' },
          ],
        },
        { ...BODY, messages: [{ role: 'system', content: 'Be brief.' }] },
        { ...BODY, messages: [{ role: 'user', content: 'z'.repeat(16_001) }] },
      ];
      for (const body of bodies) {
        const response = await request(gateway.app)
          .post('/v1/chat/completions')
          .auth(TEST_KEY, { type: 'bearer' })
          .set('x-session-id', seeded.id)
          .send(body);
        expect(response.status).toBe(400);
        expect(response.body.error).toMatchObject({
          type: 'invalid_request_error',
          param: 'messages',
        });
        expect(response.body.error.message).toContain('in-1');
      }
      expect(resumeCalls(seeded.id)).toHaveLength(0);
      expect((await store().get(seeded.id))?.approvals['in-1']?.status).toBe('pending');
      // The attach lease went with the refusal: a good answer streams at once.
      const answered = await resume(seeded.id, {
        ...BODY,
        stream: true,
        messages: [{ role: 'user', content: 'The weekly one.' }],
      });
      expect(answered.status).toBe(200);
      expect((await store().get(seeded.id))?.approvals['in-1']?.answer).toBe('The weekly one.');
    });

    it('still streams when the question was answered meanwhile (the 409 is not an error)', async () => {
      const seeded = await seedSession(store(), { questionExpiresInMs: HOUR });
      const original = store().answerInput.bind(store());
      const answerInput = jest
        .spyOn(store(), 'answerInput')
        .mockImplementationOnce(async (input) => {
          // Another client's answer lands first.
          await original({ ...input, text: 'Answered elsewhere.' });
          return original(input);
        });
      try {
        const response = await resume(seeded.id, {
          ...BODY,
          stream: true,
          messages: [{ role: 'user', content: 'Too late.' }],
        });
        expect(answerInput).toHaveBeenCalledTimes(1);
        expect(response.status).toBe(200);
        const { chunks, done } = sseFrames(response.body as string);
        expect(done).toBe(true);
        expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
          SCRIPTED_ANSWER,
        );
      } finally {
        answerInput.mockRestore();
      }
      expect((await store().get(seeded.id))?.approvals['in-1']?.answer).toBe('Answered elsewhere.');
    });
  });

  it("answers 404 for another tenant's session, as for a missing one", async () => {
    const theirs = await seedSession(store(), { tenant: 'globex', completedWith: 'Secret.' });
    const foreign = await resume(theirs.id, BODY);
    const missing = await resume('no-such-session', BODY);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((foreign.body as string).replaceAll(theirs.id, 'ID')).toBe(
      (missing.body as string).replaceAll('no-such-session', 'ID'),
    );
    const owner = await resume(theirs.id, BODY, OTHER_KEY);
    expect(owner.status).toBe(200);
  });

  it('answers 409 for a canceled session, and 400 for a malformed id or body', async () => {
    const seeded = await seedSession(store(), { approvalExpiresInMs: HOUR });
    await store().update(seeded.id, (draft) => {
      draft.status = 'canceled';
    });
    const canceled = await resume(seeded.id, BODY);
    expect(canceled.status).toBe(409);
    expect(canceled.body as string).toContain('has ended (canceled)');

    const malformed = await resume('not an id', BODY);
    expect(malformed.status).toBe(400);
    expect(malformed.body as string).toContain('X-Session-ID');
    const noMessages = await resume(seeded.id, { model: 'm' });
    expect(noMessages.status).toBe(400);
  });
});
