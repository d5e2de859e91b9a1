import { describe, expect, it } from '@jest/globals';
import { createMessage, dataPart, textPart, type Part, type Task } from '@fleet/a2a';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { createCodeWriter } from '../authoring';
import { summarizeDataFiles } from '../data-files';
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

/** A continuation turn of a task that asked for approval of `proposal` (PROPOSAL). */
function continuation(
  claims: Set<string>,
  {
    proposal = PROPOSAL,
    firstParts = [textPart('print once')],
  }: { proposal?: CodeProposal; firstParts?: Part[] } = {},
): AgentContext {
  const first = createMessage({ parts: firstParts });
  const asked = createMessage({
    role: 'ROLE_AGENT',
    parts: [textPart('approve?'), dataPart({ codeProposal: proposal })],
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

  it('runs only with the files at /data that were approved with the program', async () => {
    const { sandbox, runs } = countRuns(createSandbox({ limits: { wallClockMs: 5_000 } }));
    const execute = createCodeAgent({ writer: createCodeWriter(), sandbox });
    const approvedBytes = Buffer.from('month,amount\n2024-01,5\n');
    const proposal: CodeProposal = {
      ...PROPOSAL,
      code: 'print(open("/data/sales.csv").read().splitlines()[1])\n',
      dataFiles: summarizeDataFiles([
        { name: 'sales.csv', mediaType: 'text/csv', bytes: approvedBytes },
      ]),
    };
    const withFile = (bytes: Buffer): Part[] => [
      textPart('print the first row'),
      { raw: bytes.toString('base64'), filename: 'sales.csv', mediaType: 'text/csv' },
    ];
    const swapped = await collect(
      execute(
        continuation(new Set(), {
          proposal,
          firstParts: withFile(Buffer.from('month,amount\n2024-01,999\n')),
        }),
      ),
    );
    const refused = swapped.filter((event) => event.type === 'status').at(-1);
    expect(refused).toMatchObject({ state: 'TASK_STATE_FAILED' });
    expect(JSON.stringify(refused)).toContain('PERMISSION_DENIED');
    expect(JSON.stringify(refused)).toContain('not the ones that were approved');
    expect(runs).toEqual([]);

    const same = await collect(
      execute(continuation(new Set(), { proposal, firstParts: withFile(approvedBytes) })),
    );
    expect(same.filter((event) => event.type === 'status').at(-1)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
    });
    expect(runs).toEqual([proposal.code]);
    expect(JSON.stringify(same)).toContain('2024-01,5');
  });
});
