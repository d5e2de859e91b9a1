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
});
