import { describe, expect, it } from '@jest/globals';
import type { Plan } from '@fleet/a2a';
import type { Approval, Session } from '@fleet/sessions';
import { describeResume, resumedNodes, storedResult } from './run-result';
import { syncStatus } from './session-writer';

const plan: Plan = {
  nodes: [
    { id: 'search', agent: 'web', task: 'Search', dependsOn: [] },
    { id: 'send', agent: 'mail', task: 'Send', dependsOn: ['search'] },
    { id: 'run', agent: 'code', task: 'Run', dependsOn: [] },
    { id: 'write', agent: 'writer', task: 'Write', dependsOn: ['send', 'run'] },
  ],
  rationale: 'r',
  confidence: 1,
};

function approval(id: string, overrides: Partial<Approval> = {}): Approval {
  return {
    id,
    kind: 'node',
    status: 'approved',
    action: 'act',
    summary: 's',
    preview: '',
    risk: 'medium',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:02:00.000Z',
    ...overrides,
  };
}

function session(overrides: Partial<Session> = {}): Session {
  return {
    id: 's-1',
    tenant: 'acme',
    status: 'waiting_approval',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    request: 'do it',
    history: [],
    planApproval: false,
    plan,
    planSource: 'request',
    nodes: {
      search: {
        agent: 'web',
        state: 'completed',
        attempts: 1,
        summary: 'found',
        startedAt: '2026-01-01T00:00:00.000Z',
        endedAt: '2026-01-01T00:00:01.500Z',
      },
      send: {
        agent: 'mail',
        state: 'waiting_approval',
        attempts: 1,
        taskId: 'mail-task',
        approvalId: 'a-send',
      },
      run: {
        agent: 'code',
        state: 'waiting_approval',
        attempts: 1,
        taskId: 'code-task',
        approvalId: 'a-run',
      },
      write: { agent: 'writer', state: 'pending', attempts: 0 },
    },
    approvals: {
      'a-send': approval('a-send', { status: 'pending', nodeId: 'send' }),
      'a-run': approval('a-run', { nodeId: 'run', deliveredAt: '2026-01-01T00:00:30.000Z' }),
    },
    ...overrides,
  };
}

describe('resumedNodes', () => {
  it('keeps recorded states, and follows a waiting node whose decision was delivered', () => {
    const nodes = resumedNodes(plan, session());
    expect(nodes['search']).toMatchObject({
      state: 'completed',
      summary: 'found',
      startedAt: Date.parse('2026-01-01T00:00:00.000Z'),
    });
    expect(nodes['send']).toMatchObject({ state: 'waiting_approval', taskId: 'mail-task' });
    expect(nodes['run']).toMatchObject({ state: 'running', taskId: 'code-task' });
    expect(nodes['write']).toMatchObject({ state: 'pending' });
    // No status recorded for what asked: nothing can be sent again safely, only followed.
    expect(nodes['run']?.redeliver).toBeUndefined();
  });

  it('carries the delivered decision (same message id) to send again if the task still asks', () => {
    const asked = { state: 'TASK_STATE_AUTH_REQUIRED', messageId: 'ask-7' };
    const nodes = resumedNodes(
      plan,
      session({
        approvals: {
          'a-send': approval('a-send', { status: 'pending', nodeId: 'send' }),
          'a-run': approval('a-run', {
            nodeId: 'run',
            deliveredAt: '2026-01-01T00:00:30.000Z',
            instructions: 'only the first file',
            mode: 'enhance',
            askedStatus: asked,
          }),
        },
      }),
    );
    expect(nodes['run']).toMatchObject({
      state: 'running',
      redeliver: {
        answered: asked,
        continuation: {
          messageId: 'fleet-decision-a-run',
          parts: [
            { text: 'Approved. Instructions: only the first file' },
            {
              data: {
                approvalDecision: {
                  decision: 'approve',
                  instructions: 'only the first file',
                  mode: 'enhance',
                },
              },
            },
          ],
        },
      },
    });
  });

  it('carries a delivered answer to a question, and resumes a node waiting for one', () => {
    const asked = { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T00:00:10.000Z' };
    const nodes = resumedNodes(
      plan,
      session({
        nodes: {
          ...session().nodes,
          send: {
            agent: 'mail',
            state: 'waiting_input',
            attempts: 1,
            taskId: 'mail-task',
            approvalId: 'q-send',
          },
        },
        approvals: {
          'q-send': approval('q-send', {
            kind: 'input',
            status: 'answered',
            answer: 'Bob',
            nodeId: 'send',
            deliveredAt: '2026-01-01T00:00:30.000Z',
            askedStatus: asked,
          }),
        },
      }),
    );
    expect(nodes['send']).toMatchObject({
      state: 'running',
      redeliver: {
        answered: asked,
        continuation: { messageId: 'fleet-answer-q-send', parts: [{ text: 'Bob' }] },
      },
    });
  });
});

describe('describeResume', () => {
  it('says where the session stands', () => {
    expect(describeResume(session())).toBe(
      'Resuming session s-1: 1 of 4 steps done (search); waiting for approval: send, run; still to run: write.',
    );
    expect(describeResume(session({ plan: undefined, nodes: {} }))).toBe(
      'Resuming session s-1: no plan yet.',
    );
  });
});

describe('storedResult', () => {
  it('rebuilds the run result of a completed session', () => {
    const stored = storedResult(
      session({
        status: 'completed',
        result: { text: 'answer', citations: [], composer: 'offline', failedNodes: ['send'] },
      }),
    );
    expect(stored?.text).toBe('answer');
    expect(stored?.result.nodes[0]).toEqual({
      id: 'search',
      agent: 'web',
      state: 'completed',
      attempts: 1,
      durationMs: 1500,
    });
    expect(storedResult(session())).toBeUndefined();
  });
});

describe('syncStatus', () => {
  it('is waiting_approval while an approval is pending, running after, and leaves ended sessions alone', () => {
    const draft = session({ status: 'running' });
    syncStatus(draft);
    expect(draft.status).toBe('waiting_approval');
    (draft.approvals['a-send'] as Approval).status = 'approved';
    syncStatus(draft);
    expect(draft.status).toBe('running');
    const ended = session({ status: 'canceled' });
    syncStatus(ended);
    expect(ended.status).toBe('canceled');
  });
});

describe('run files after a restart', () => {
  const chart = {
    id: `file-${'a'.repeat(32)}`,
    name: 'chart.png',
    mediaType: 'image/png',
    size: 10,
    sha256: '0'.repeat(64),
    source: 'step' as const,
    sessionId: 's-1',
    nodeId: 'search',
    agent: 'web',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  };

  it('gives a resumed node back the files it made', () => {
    const recorded = session({
      files: [chart],
      nodes: { search: { agent: 'web', state: 'completed', attempts: 1, files: [chart.id] } },
    });
    expect(resumedNodes(plan, recorded)['search']?.files).toEqual([chart]);
  });

  it('lists the files in the stored result and each node report', () => {
    const stored = storedResult(
      session({
        status: 'completed',
        files: [chart],
        nodes: { search: { agent: 'web', state: 'completed', attempts: 1, files: [chart.id] } },
        result: { text: 'done', citations: [], composer: 'offline', failedNodes: [] },
      }),
    );
    expect(stored?.result.files).toEqual([chart]);
    expect(stored?.result.nodes.find((node) => node.id === 'search')?.files).toEqual([chart.id]);
  });
});
