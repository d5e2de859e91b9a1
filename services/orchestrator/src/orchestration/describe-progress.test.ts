import { describe, expect, it } from '@jest/globals';
import { describeProgress } from './describe-progress';

describe('describeProgress', () => {
  it('writes one readable line per progress event', () => {
    expect([
      describeProgress({ type: 'run-start', sessionId: 's-1' }),
      describeProgress({ type: 'plan-start', agents: ['web-agent', 'writer'] }),
      describeProgress({
        type: 'plan-end',
        source: 'llm',
        plan: {
          nodes: [
            { id: 'search', agent: 'web-agent', task: 't', dependsOn: [] },
            { id: 'write', agent: 'writer', task: 't', dependsOn: ['search'] },
          ],
          rationale: 'r',
          confidence: 0.9,
        },
      }),
      describeProgress({ type: 'node-start', nodeId: 'search', agent: 'web-agent', attempt: 2 }),
      describeProgress({
        type: 'node-progress',
        nodeId: 'search',
        agent: 'web-agent',
        text: 'Reading https://example.org/…',
        stage: 'reading',
      }),
      describeProgress({
        type: 'node-end',
        nodeId: 'search',
        agent: 'web-agent',
        state: 'completed',
        durationMs: 1234,
      }),
      describeProgress({
        type: 'node-end',
        nodeId: 'write',
        agent: 'writer',
        state: 'failed',
        durationMs: 5,
        error: 'refused.',
      }),
      describeProgress({ type: 'compose-start' }),
      describeProgress({ type: 'run-end', state: 'completed' }),
    ]).toEqual([
      'Session s-1: working on the request.',
      'Planning with 2 agents: web-agent, writer.',
      'The plan (made by the model) has 2 steps: search by web-agent; write by writer, after search.',
      'Step search (web-agent): attempt 2.',
      'Step search (web-agent): Reading https://example.org/…',
      'Step search (web-agent) completed in 1.2 s.',
      'Step write (writer) failed: refused.',
      'Writing the answer.',
      'Done.',
    ]);
  });
  it('says what a review waits for and decided, and how the plan grew', () => {
    expect([
      describeProgress({
        type: 'review-required',
        sessionId: 's-1',
        approvalId: 'rv-1',
        round: 2,
        answer: 'The G3 costs 499 EUR.',
        steps: [],
        expiresAt: '2026-11-28T05:00:00.000Z',
        onTimeout: 'approve',
      }),
      describeProgress({
        type: 'review-end',
        approvalId: 'rv-1',
        round: 2,
        decision: 'revise',
        feedback: 'the G3, not the G2.',
        targets: ['find'],
        rerun: ['find', 'draft'],
        kept: ['send'],
      }),
      describeProgress({
        type: 'review-end',
        approvalId: 'rv-2',
        round: 3,
        decision: 'approve',
        timedOut: true,
      }),
      describeProgress({
        type: 'node-added',
        node: {
          id: 'look-handoff-1',
          agent: 'mail-agent',
          task: 'Draft the mail.',
          dependsOn: ['look'],
          origin: { kind: 'handoff', from: 'look' },
        },
      }),
      describeProgress({
        type: 'handoff-refused',
        nodeId: 'pong-1',
        agent: 'pong',
        target: 'ping',
        reason: 'it goes back to ping, which handed off before.',
      }),
    ]).toEqual([
      'The answer (round 2) waits for your review: approve it, revise steps, re-plan or rewrite it with POST /v1/sessions/s-1/review before 2026-11-28T05:00:00.000Z; after that it is sent as it stands.',
      'Review: steps find, draft run again (the G3, not the G2); send keeps its result (an approved action is not redone).',
      'Nobody reviewed the answer in time: the answer is approved.',
      'Step look-handoff-1 (mail-agent) added to the plan, handed off by step look: Draft the mail.',
      'Step pong-1 (pong) handed off to ping; not taken: it goes back to ping, which handed off before.',
    ]);
  });
});
