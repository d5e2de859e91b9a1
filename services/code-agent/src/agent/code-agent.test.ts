import { describe, expect, it } from '@jest/globals';
import { createMessage, dataPart, textPart, type Task } from '@fleet/a2a';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { createCodeWriter } from '../authoring';
import { createSandbox } from '../sandbox';
import { countRuns } from '../test-support/count-runs';
import { createCodeAgent } from './code-agent';
import type { CodeProposal } from './code-proposal';

const PROPOSAL: CodeProposal = {
  code: 'print("once")\n',
  source: 'task',
  attempt: 1,
  task: 'print once',
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
  previousAttempts: [],
  dataFiles: [],
};

/** A continuation turn of a task that asked for approval of PROPOSAL. */
function continuation(claims: Set<string>): AgentContext {
  const first = createMessage({ parts: [textPart('print once')] });
  const asked = createMessage({
    role: 'ROLE_AGENT',
    parts: [textPart('approve?'), dataPart({ codeProposal: PROPOSAL })],
  });
  const message = createMessage({
    parts: [dataPart({ approvalDecision: { decision: 'approve' } })],
  });
  const task: Task = {
    id: 'task-1',
    contextId: 'context-1',
    status: { state: 'TASK_STATE_WORKING' },
    history: [first, asked, message],
  };
  return {
    taskId: task.id,
    contextId: task.contextId,
    message,
    task,
    isContinuation: true,
    signal: new AbortController().signal,
    claimOnce: (key) => {
      if (claims.has(key)) return Promise.resolve(false);
      claims.add(key);
      return Promise.resolve(true);
    },
  };
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('createCodeAgent', () => {
  it('runs an approved program at most once, however often the approval arrives', async () => {
    const { sandbox, runs } = countRuns(createSandbox({ limits: { wallClockMs: 5_000 } }));
    const execute = createCodeAgent({ writer: createCodeWriter(), sandbox });
    // Shared claims stand for the task store every replica uses.
    const claims = new Set<string>();
    const [first, second] = await Promise.all([
      collect(execute(continuation(claims))),
      collect(execute(continuation(claims))),
    ]);
    expect(runs).toEqual(['print("once")\n']);
    const states = [first, second].map((events) =>
      events.filter((event) => event.type === 'status').at(-1),
    );
    expect(states.map((event) => event?.type === 'status' && event.state).sort()).toEqual([
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
    ]);
    const refused = states.find(
      (event) => event?.type === 'status' && event.state === 'TASK_STATE_FAILED',
    );
    expect(JSON.stringify(refused)).toContain('already started for this task');
  });
});
