import { describe, expect, it } from '@jest/globals';
import type { Plan, PlanNode } from '@fleet/a2a';
import { ConnectionError, UpstreamError } from '@fleet/errors';
import { AgentUnavailableError } from './agent-unavailable-error';
import { createAgentBreakers } from './agent-breakers';
import {
  executePlan,
  NOT_RESENT_MESSAGE,
  type ApprovalVerdict,
  type ExecutionEvent,
  type ExecutePlanOptions,
  type NodeApprovalRequest,
} from './execute-plan';
import type { InvokeAgent, InvokeAgentRequest, NodeOutcome } from './node-outcome';

function node(id: string, dependsOn: string[] = [], agent = `${id}-agent`): PlanNode {
  return { id, agent, task: `do ${id}`, dependsOn };
}

function plan(...nodes: PlanNode[]): Plan {
  return { nodes, rationale: 'test', confidence: 1 };
}

/** A promise the test settles by hand: the agents below wait on these, never on timers. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** A test agent as an {@link InvokeAgent}: its answers resolve and its throws reject. */
function agentOf(
  behaviour: (request: InvokeAgentRequest) => NodeOutcome | Promise<NodeOutcome>,
): InvokeAgent {
  return (request) => Promise.resolve(request).then(behaviour);
}

function completed(summary: string, data?: unknown): NodeOutcome {
  return data === undefined
    ? { status: 'completed', summary }
    : { status: 'completed', summary, data };
}

/** Runs a plan with quick retries and records every event as a compact line. */
async function run(
  options: Partial<ExecutePlanOptions> & Pick<ExecutePlanOptions, 'plan' | 'invokeAgent'>,
) {
  const events: ExecutionEvent[] = [];
  const result = await executePlan({
    sessionId: 'session-1',
    tenant: 'acme',
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  const lines = events.flatMap((event) => {
    switch (event.type) {
      case 'node-start':
        return [`start ${event.nodeId}`];
      case 'node-end':
        return [`end ${event.nodeId} ${event.run.state}`];
      case 'node-retry':
        return [`retry ${event.nodeId}`];
      case 'node-task':
        return [];
      case 'node-added':
        return [`added ${event.node.id}`];
      case 'handoff-refused':
        return [`refused ${event.nodeId} ${event.target}`];
    }
  });
  return { result, events, lines };
}

describe('executePlan', () => {
  it('starts independent nodes together', async () => {
    const started: string[] = [];
    const gates = { a: deferred(), b: deferred(), c: deferred() };
    const everyoneStarted = deferred();
    const execution = run({
      plan: plan(node('a'), node('b'), node('c')),
      invokeAgent: async ({ node: current }) => {
        started.push(current.id);
        if (started.length === 3) everyoneStarted.resolve();
        await gates[current.id as 'a' | 'b' | 'c'].promise;
        return completed(`${current.id} done`);
      },
    });
    // All three run at once: none can finish before the test opens its gate.
    await everyoneStarted.promise;
    expect(started.sort()).toEqual(['a', 'b', 'c']);
    gates.c.resolve();
    gates.a.resolve();
    gates.b.resolve();
    const { result, lines } = await execution;
    expect(result.nodes.map((entry) => entry.state)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(lines.slice(3)).toEqual(['end c completed', 'end a completed', 'end b completed']);
  });

  it('passes each node exactly its dependencies’ outputs along a chain', async () => {
    const received: Record<string, InvokeAgentRequest['input']> = {};
    const { result } = await run({
      plan: plan(node('fetch'), node('extract', ['fetch']), node('report', ['extract'])),
      invokeAgent: agentOf(({ node: current, input }) => {
        received[current.id] = input;
        if (current.id === 'fetch')
          return completed('Fetched 2 pages [1].', {
            sources: [{ title: 'A', url: 'https://a.example' }],
          });
        if (current.id === 'extract') return completed('Extracted 3 facts.', { facts: [1, 2, 3] });
        return completed('Report written.');
      }),
    });
    expect(received['fetch']?.fleet).toEqual({
      sessionId: 'session-1',
      nodeId: 'fetch',
      dependencyOutputs: {},
      entities: {},
      tenant: 'acme',
      memory: [],
    });
    expect(received['extract']?.fleet.dependencyOutputs).toEqual({
      fetch: {
        agent: 'fetch-agent',
        summary: 'Fetched 2 pages [1].',
        data: { sources: [{ title: 'A', url: 'https://a.example' }] },
      },
    });
    // Direct dependencies only: the report sees extract, not fetch.
    expect(received['report']?.fleet.dependencyOutputs).toEqual({
      extract: {
        agent: 'extract-agent',
        summary: 'Extracted 3 facts.',
        data: { facts: [1, 2, 3] },
      },
    });
    expect(result.nodes.at(-1)).toMatchObject({
      id: 'report',
      state: 'completed',
      summary: 'Report written.',
      attempts: 1,
    });
  });

  it('runs a diamond: both branches after the root, the join after both', async () => {
    const slow = deferred();
    const execution = run({
      plan: plan(
        node('root'),
        node('left', ['root']),
        node('right', ['root']),
        node('join', ['left', 'right']),
      ),
      invokeAgent: async ({ node: current, input }) => {
        if (current.id === 'left') await slow.promise;
        if (current.id === 'right') setImmediate(() => slow.resolve());
        return completed(
          `${current.id}:${Object.keys(input.fleet.dependencyOutputs).sort().join('+')}`,
        );
      },
    });
    const { result, lines } = await execution;
    expect(lines).toEqual([
      'start root',
      'end root completed',
      'start left',
      'start right',
      'end right completed',
      'end left completed',
      'start join',
      'end join completed',
    ]);
    expect(result.nodes.find((entry) => entry.id === 'join')?.summary).toBe('join:left+right');
  });

  it('starts a node as soon as its own dependencies finish, without waiting for a slow branch', async () => {
    const slowGate = deferred();
    const { lines } = await run({
      // slow → after-slow, and a quick chain quick1 → quick2 → quick3 beside it.
      plan: plan(
        node('slow'),
        node('after-slow', ['slow']),
        node('quick1'),
        node('quick2', ['quick1']),
        node('quick3', ['quick2']),
      ),
      invokeAgent: async ({ node: current }) => {
        if (current.id === 'slow') await slowGate.promise;
        if (current.id === 'quick3') slowGate.resolve();
        return completed(current.id);
      },
    });
    // The whole quick chain runs while `slow` is still working: no stage barrier.
    expect(lines.indexOf('end quick3 completed')).toBeLessThan(lines.indexOf('end slow completed'));
    expect(lines.indexOf('start quick2')).toBeLessThan(lines.indexOf('end slow completed'));
    expect(lines.indexOf('start after-slow')).toBeGreaterThan(lines.indexOf('end slow completed'));
  });

  it('waits for the whole previous level in stages mode', async () => {
    const slowGate = deferred();
    const quickDone = deferred();
    const { lines } = await run({
      scheduling: 'stages',
      plan: plan(
        node('slow'),
        node('after-slow', ['slow']),
        node('quick1'),
        node('quick2', ['quick1']),
      ),
      invokeAgent: async ({ node: current }) => {
        if (current.id === 'quick1') quickDone.resolve();
        if (current.id === 'slow') {
          await quickDone.promise;
          await new Promise((resolve) => setImmediate(resolve));
          slowGate.resolve();
        }
        await (current.id === 'slow' ? slowGate.promise : Promise.resolve());
        return completed(current.id);
      },
    });
    expect(lines.indexOf('start quick2')).toBeGreaterThan(lines.indexOf('end slow completed'));
    expect(lines.indexOf('start after-slow')).toBeGreaterThan(
      lines.indexOf('end quick1 completed'),
    );
  });

  it('hands a failed node’s error downstream as partial, and the dependents still run', async () => {
    const received: Record<string, InvokeAgentRequest['input']> = {};
    const { result } = await run({
      plan: plan(node('search', [], 'web-agent'), node('summarise', ['search'], 'writer')),
      invokeAgent: agentOf(({ node: current, input }) => {
        received[current.id] = input;
        if (current.id === 'search')
          return { status: 'failed', error: 'search provider refused the query' };
        return completed('Could not search; here is what is known.');
      }),
    });
    expect(received['summarise']?.fleet.dependencyOutputs).toEqual({
      search: {
        agent: 'web-agent',
        summary: 'Step search (web-agent) failed: search provider refused the query',
        partial: true,
        error: 'search provider refused the query',
      },
    });
    expect(result.nodes.map((entry) => [entry.id, entry.state, entry.attempts])).toEqual([
      ['search', 'failed', 1],
      ['summarise', 'completed', 1],
    ]);
  });

  it('retries transient failures with backoff, then succeeds', async () => {
    let calls = 0;
    const { result, events } = await run({
      plan: plan(node('flaky')),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      invokeAgent: agentOf(() => {
        calls += 1;
        if (calls === 1) throw new ConnectionError('connect ECONNREFUSED 127.0.0.1:9');
        if (calls === 2) throw new UpstreamError('agent answered 503', { status: 503 });
        return completed('third time lucky');
      }),
    });
    expect(calls).toBe(3);
    expect(result.nodes[0]).toMatchObject({
      state: 'completed',
      attempts: 3,
      summary: 'third time lucky',
    });
    expect(
      events
        .filter((event) => event.type === 'node-start')
        .map((event) => event.type === 'node-start' && event.attempt),
    ).toEqual([1, 2, 3]);
    expect(
      events
        .filter((event) => event.type === 'node-retry')
        .map((event) => event.type === 'node-retry' && event.error),
    ).toEqual(['connect ECONNREFUSED 127.0.0.1:9', 'agent answered 503']);
  });

  it('does not retry a task the agent reported FAILED', async () => {
    let calls = 0;
    const { result } = await run({
      plan: plan(node('mail')),
      invokeAgent: agentOf(() => {
        calls += 1;
        return { status: 'failed', error: 'SMTP rejected the recipient' };
      }),
    });
    expect(calls).toBe(1);
    expect(result.nodes[0]).toMatchObject({
      state: 'failed',
      attempts: 1,
      error: 'SMTP rejected the recipient',
    });
  });

  it('retries a FAILED task the agent marked retryable', async () => {
    let calls = 0;
    const { result } = await run({
      plan: plan(node('busy')),
      invokeAgent: agentOf(() => {
        calls += 1;
        return calls === 1
          ? { status: 'failed', error: 'upstream rate limit', retryable: true }
          : completed('fine now');
      }),
    });
    expect(calls).toBe(2);
    expect(result.nodes[0]).toMatchObject({ state: 'completed', attempts: 2, summary: 'fine now' });
  });

  it('gives up after the last attempt and reports the last error', async () => {
    let calls = 0;
    const { result } = await run({
      plan: plan(node('down')),
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      invokeAgent: agentOf(() => {
        calls += 1;
        throw new ConnectionError(`refused #${calls}`);
      }),
    });
    expect(calls).toBe(2);
    expect(result.nodes[0]).toMatchObject({ state: 'failed', attempts: 2, error: 'refused #2' });
  });

  it('opens an agent’s circuit after repeated failures and then fails its nodes fast', async () => {
    const breakers = createAgentBreakers({ threshold: 3, halfOpenAfterMs: 60_000 });
    let calls = 0;
    const refuse = (): never => {
      calls += 1;
      throw new ConnectionError('connect ECONNREFUSED');
    };
    const invokeAgent = agentOf(refuse);
    const first = await run({
      plan: plan(node('one', [], 'web-agent')),
      retry: { maxAttempts: 5, baseDelayMs: 1 },
      breakers,
      invokeAgent,
    });
    // Three failures open the circuit; the fourth attempt is refused without calling the agent.
    expect(calls).toBe(3);
    expect(breakers.stateOf('web-agent')).toBe('open');
    expect(first.result.nodes[0]?.state).toBe('failed');
    expect(first.result.nodes[0]?.error).toMatch(/circuit breaker is open/);

    const second = await run({
      plan: plan(node('two', [], 'web-agent'), node('other', [], 'rag-agent')),
      breakers,
      invokeAgent: agentOf(({ node: current }) =>
        current.agent === 'web-agent' ? refuse() : completed('rag is fine'),
      ),
    });
    expect(calls).toBe(3);
    expect(second.result.nodes.map((entry) => entry.state)).toEqual(['failed', 'completed']);
    expect(second.result.nodes[0]?.attempts).toBe(1);
  });

  it('counts only transient failures towards the circuit', async () => {
    const breakers = createAgentBreakers({ threshold: 2 });
    await run({
      plan: plan(
        node('a', [], 'mail-agent'),
        node('b', ['a'], 'mail-agent'),
        node('c', ['b'], 'mail-agent'),
      ),
      breakers,
      invokeAgent: agentOf(() => ({ status: 'failed', error: 'no such mailbox' })),
    });
    expect(breakers.stateOf('mail-agent')).toBe('closed');
  });

  it('aborts an attempt that outlives its time-out, then retries it', async () => {
    let calls = 0;
    const signals: AbortSignal[] = [];
    const { result, events } = await run({
      plan: plan(node('hang')),
      timeoutMs: 20,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      invokeAgent: async ({ signal }) => {
        calls += 1;
        signals.push(signal);
        if (calls === 1) await new Promise(() => undefined); // never answers, ignores its signal
        return completed('answered the second time');
      },
    });
    expect(signals[0]?.aborted).toBe(true);
    expect(events.find((event) => event.type === 'node-retry')).toMatchObject({
      error: expect.stringMatching(/no answer from hang-agent within 20 ms/),
    });
    expect(result.nodes[0]).toMatchObject({ state: 'completed', attempts: 2 });
  });

  it('reports the agent task id as soon as the agent creates it', async () => {
    const gateOpen = deferred();
    const seen: string[] = [];
    const execution = run({
      plan: plan(node('mail')),
      invokeAgent: async ({ onTask }) => {
        onTask?.('task-42');
        await gateOpen.promise;
        return completed('sent');
      },
      onEvent: (event) => {
        seen.push(event.type === 'node-task' ? `task ${event.taskId}` : event.type);
        if (event.type === 'node-task') gateOpen.resolve();
      },
    });
    const { result } = await execution;
    expect(seen).toEqual(['node-start', 'task task-42', 'node-end']);
    expect(result.nodes[0]?.taskId).toBe('task-42');
  });

  it('fails a node whose agent asks for approval when the run cannot ask a person', async () => {
    const { result } = await run({
      plan: plan(node('send', [], 'mail-agent'), node('after', ['send'])),
      invokeAgent: agentOf(({ node: current }) =>
        current.id === 'send'
          ? {
              status: 'interrupted',
              reason: 'auth-required',
              message: 'Send this mail?',
              parts: [{ text: 'Send this mail?' }],
              asked: { state: 'TASK_STATE_AUTH_REQUIRED' },
              taskId: 't-1',
            }
          : completed('after'),
      ),
    });
    expect(result.nodes[0]).toMatchObject({
      state: 'failed',
      interrupted: 'auth-required',
      error: 'needs approval, but this run cannot ask for it',
      taskId: 't-1',
    });
    expect(result.nodes[1]?.state).toBe('completed');
  });

  describe('approvals', () => {
    const asking: NodeOutcome = {
      status: 'interrupted',
      reason: 'auth-required',
      message: 'Send this mail?',
      parts: [
        { text: 'Send this mail?' },
        { data: { approval: { action: 'send-mail', summary: 'Send a mail to Bob' } } },
      ],
      asked: { state: 'TASK_STATE_AUTH_REQUIRED', messageId: 'ask-1' },
      data: { approval: { action: 'send-mail', summary: 'Send a mail to Bob' } },
      taskId: 'mail-task',
    };
    const approveContinuation = {
      messageId: 'fleet-decision-approval-1',
      parts: [{ text: 'Approved.' }],
    };

    it('lets only the asking node wait, then continues the same task with the decision', async () => {
      const decided = deferred<ApprovalVerdict>();
      const requests: InvokeAgentRequest[] = [];
      const approvalRequests: NodeApprovalRequest[] = [];
      const otherDone = deferred();
      const execution = run({
        plan: plan(node('send', [], 'mail-agent'), node('search'), node('write', ['send'])),
        invokeAgent: agentOf((request) => {
          requests.push(request);
          if (request.node.id === 'search') {
            otherDone.resolve();
            return completed('found it');
          }
          if (request.node.id === 'send') {
            return request.existingTask === undefined ? asking : completed('mail sent');
          }
          return completed('written');
        }),
        awaitApproval: (request) => {
          approvalRequests.push(request);
          return decided.promise;
        },
      });
      // The other branch finishes while `send` waits for a person.
      await otherDone.promise;
      decided.resolve({
        approvalId: 'approval-1',
        result: 'approve',
        continuation: approveContinuation,
        answered: asking.asked,
        deliver: true,
        effectiveTask: 'do send\n\nAdditional instructions from the approver: cc Alice',
      });
      const { result, lines } = await execution;
      expect(lines.indexOf('end search completed')).toBeLessThan(
        lines.indexOf('end send completed'),
      );
      expect(approvalRequests[0]).toMatchObject({
        taskId: 'mail-task',
        task: 'do send',
        approval: { action: 'send-mail', summary: 'Send a mail to Bob', risk: 'medium' },
      });
      const continuation = requests.find(
        (request) => request.node.id === 'send' && request.existingTask !== undefined,
      );
      expect(continuation?.existingTask).toEqual({
        taskId: 'mail-task',
        continuation: approveContinuation,
        answered: { state: 'TASK_STATE_AUTH_REQUIRED', messageId: 'ask-1' },
      });
      expect(result.nodes[0]).toMatchObject({
        state: 'completed',
        summary: 'mail sent',
        approvalId: 'approval-1',
        effectiveTask: 'do send\n\nAdditional instructions from the approver: cc Alice',
        attempts: 1,
      });
      expect(result.nodes[2]?.state).toBe('completed');
    });

    it('ends a denied node rejected and hands the reason downstream as partial', async () => {
      const requests: InvokeAgentRequest[] = [];
      const { result } = await run({
        plan: plan(node('send', [], 'mail-agent'), node('write', ['send'])),
        invokeAgent: agentOf((request) => {
          requests.push(request);
          if (request.node.id === 'send') {
            return request.existingTask === undefined
              ? asking
              : { status: 'failed', error: 'the agent rejected the task: Denied' };
          }
          return completed('written');
        }),
        awaitApproval: () =>
          Promise.resolve({
            approvalId: 'a-1',
            result: 'deny',
            continuation: { messageId: 'fleet-decision-a-1', parts: [{ text: 'Denied.' }] },
            answered: undefined,
            deliver: true,
            reason: 'denied by a person: not to Bob',
          }),
      });
      expect(result.nodes[0]).toMatchObject({
        state: 'rejected',
        error: 'denied by a person: not to Bob',
        approvalId: 'a-1',
      });
      const write = requests.find((request) => request.node.id === 'write');
      expect(write?.input.fleet.dependencyOutputs['send']).toEqual({
        agent: 'mail-agent',
        summary: 'Step send (mail-agent) was not done: denied by a person: not to Bob',
        partial: true,
        error: 'denied by a person: not to Bob',
      });
    });

    it('only follows the task when the decision was delivered before', async () => {
      const requests: InvokeAgentRequest[] = [];
      const { result } = await run({
        plan: plan(node('send', [], 'mail-agent')),
        invokeAgent: agentOf((request) => {
          requests.push(request);
          return request.existingTask === undefined ? asking : completed('mail sent');
        }),
        awaitApproval: () =>
          Promise.resolve({
            approvalId: 'a-1',
            result: 'approve',
            continuation: approveContinuation,
            answered: undefined,
            deliver: false,
          }),
      });
      expect(requests[1]?.existingTask).toEqual({
        taskId: 'mail-task',
        continuation: undefined,
        answered: undefined,
      });
      expect(result.nodes[0]?.state).toBe('completed');
    });

    it('never sends the node again after its continuation failed', async () => {
      let calls = 0;
      const { result } = await run({
        plan: plan(node('send', [], 'mail-agent')),
        retry: { maxAttempts: 5, baseDelayMs: 1 },
        invokeAgent: agentOf((request) => {
          calls += 1;
          if (request.existingTask === undefined) return asking;
          throw new ConnectionError('connection reset');
        }),
        awaitApproval: () =>
          Promise.resolve({
            approvalId: 'a-1',
            result: 'approve',
            continuation: approveContinuation,
            answered: undefined,
            deliver: true,
          }),
      });
      expect(calls).toBe(2);
      expect(result.nodes[0]).toMatchObject({ state: 'failed', error: 'connection reset' });
    });

    it('sends a continuation again while no replica of its agent was up to receive it', async () => {
      let calls = 0;
      const { result } = await run({
        plan: plan(node('send', [], 'mail-agent')),
        retry: { baseDelayMs: 1 },
        invokeAgent: agentOf((request) => {
          calls += 1;
          if (request.existingTask === undefined) return asking;
          // The agent's card is not re-read yet (e.g. the orchestrator just restarted): not sent.
          if (calls < 4) throw new AgentUnavailableError('mail-agent');
          return completed('mail sent');
        }),
        awaitApproval: () =>
          Promise.resolve({
            approvalId: 'a-1',
            result: 'approve',
            continuation: approveContinuation,
            answered: undefined,
            deliver: true,
          }),
      });
      expect(calls).toBe(4);
      expect(result.nodes[0]).toMatchObject({ state: 'completed', summary: 'mail sent' });
    });

    it('asks a person even when the agent sends no approval data part (its text is the request)', async () => {
      const approvalRequests: NodeApprovalRequest[] = [];
      const { result } = await run({
        plan: plan(node('pay', [], 'payments')),
        invokeAgent: agentOf((request) =>
          request.existingTask === undefined
            ? {
                ...asking,
                parts: [{ text: 'Pay invoice 42 (EUR 1,200) to ACME?' }],
                data: undefined,
              }
            : completed('paid'),
        ),
        awaitApproval: (request) => {
          approvalRequests.push(request);
          return Promise.resolve({
            approvalId: 'a-1',
            result: 'approve',
            continuation: approveContinuation,
            answered: request.asked,
            deliver: true,
          });
        },
      });
      expect(approvalRequests[0]).toMatchObject({
        kind: 'approval',
        approval: {
          action: 'continue',
          summary: 'Pay invoice 42 (EUR 1,200) to ACME?',
          preview: 'Pay invoice 42 (EUR 1,200) to ACME?',
          risk: 'medium',
        },
      });
      expect(result.nodes[0]).toMatchObject({ state: 'completed', summary: 'paid' });
    });

    it('asks the agent’s question and continues the same task with the answer', async () => {
      const requests: InvokeAgentRequest[] = [];
      const approvalRequests: NodeApprovalRequest[] = [];
      const answer = { messageId: 'fleet-answer-q-1', parts: [{ text: 'Berlin' }] };
      const { result } = await run({
        plan: plan(node('book', [], 'travel')),
        invokeAgent: agentOf((request) => {
          requests.push(request);
          return request.existingTask === undefined
            ? {
                status: 'interrupted',
                reason: 'input-required',
                message: 'Which city?',
                parts: [{ text: 'Which city?' }],
                asked: { state: 'TASK_STATE_INPUT_REQUIRED', messageId: 'q' },
                taskId: 'travel-task',
              }
            : completed('booked in Berlin');
        }),
        awaitApproval: (request) => {
          approvalRequests.push(request);
          return Promise.resolve({
            approvalId: 'q-1',
            result: 'answer',
            continuation: answer,
            answered: request.asked,
            deliver: true,
          });
        },
      });
      expect(approvalRequests[0]).toMatchObject({
        kind: 'input',
        question: 'Which city?',
        approval: undefined,
        taskId: 'travel-task',
      });
      expect(requests[1]?.existingTask).toEqual({
        taskId: 'travel-task',
        continuation: answer,
        answered: { state: 'TASK_STATE_INPUT_REQUIRED', messageId: 'q' },
      });
      expect(result.nodes[0]).toMatchObject({ state: 'completed', summary: 'booked in Berlin' });
    });

    it('ends a node whose question nobody answered rejected, sending nothing', async () => {
      const requests: InvokeAgentRequest[] = [];
      const { result } = await run({
        plan: plan(node('book', [], 'travel')),
        invokeAgent: agentOf((request) => {
          requests.push(request);
          return {
            status: 'interrupted',
            reason: 'input-required',
            message: 'Which city?',
            parts: [{ text: 'Which city?' }],
            asked: { state: 'TASK_STATE_INPUT_REQUIRED' },
            taskId: 'travel-task',
          };
        }),
        awaitApproval: () =>
          Promise.resolve({
            approvalId: 'q-1',
            result: 'unanswered',
            continuation: undefined,
            answered: undefined,
            deliver: true,
            reason: 'its question was not answered in time',
          }),
      });
      expect(requests).toHaveLength(1);
      expect(result.nodes[0]).toMatchObject({
        state: 'rejected',
        error: 'its question was not answered in time',
      });
    });

    it('ends a node the agent rejected as rejected, not failed', async () => {
      const { result } = await run({
        plan: plan(node('pay', [], 'payments')),
        invokeAgent: agentOf(() => ({
          status: 'failed',
          rejected: true,
          error: 'the agent rejected the task: no budget',
          taskId: 't',
        })),
      });
      expect(result.nodes[0]).toMatchObject({
        state: 'rejected',
        error: 'the agent rejected the task: no budget',
      });
    });
  });

  describe('resumeFrom', () => {
    it('does not run finished nodes again, follows running ones and waits again for recorded approvals', async () => {
      const requests: InvokeAgentRequest[] = [];
      const approvalRequests: NodeApprovalRequest[] = [];
      const { result, lines } = await run({
        plan: plan(
          node('done'),
          node('busy'),
          node('waiting', [], 'mail-agent'),
          node('lost'),
          node('next', ['done', 'busy', 'waiting']),
        ),
        resumeFrom: {
          done: {
            agent: 'done-agent',
            state: 'completed',
            attempts: 1,
            summary: 'done before',
            data: { sources: [] },
          },
          busy: { agent: 'busy-agent', state: 'running', attempts: 1, taskId: 'busy-task' },
          waiting: {
            agent: 'mail-agent',
            state: 'waiting_approval',
            attempts: 1,
            taskId: 'mail-task',
            approvalId: 'a-1',
          },
          lost: { agent: 'lost-agent', state: 'running', attempts: 1 },
          next: { agent: 'next-agent', state: 'pending', attempts: 0 },
        },
        invokeAgent: agentOf((request) => {
          requests.push(request);
          if (request.node.id === 'busy') return completed('busy finished');
          if (request.node.id === 'waiting') return completed('mail sent');
          return completed(`${request.node.id} ran`);
        }),
        awaitApproval: (request) => {
          approvalRequests.push(request);
          return Promise.resolve({
            approvalId: 'a-1',
            result: 'approve',
            continuation: { messageId: 'fleet-decision-a-1', parts: [{ text: 'Approved.' }] },
            answered: undefined,
            deliver: true,
          });
        },
      });
      expect(requests.map((request) => [request.node.id, request.existingTask])).toEqual(
        expect.arrayContaining([
          ['busy', { taskId: 'busy-task' }],
          [
            'waiting',
            {
              taskId: 'mail-task',
              continuation: { messageId: 'fleet-decision-a-1', parts: [{ text: 'Approved.' }] },
              answered: undefined,
            },
          ],
          ['next', undefined],
        ]),
      );
      expect(requests.some((request) => request.node.id === 'done')).toBe(false);
      expect(requests.some((request) => request.node.id === 'lost')).toBe(false);
      expect(approvalRequests).toHaveLength(1);
      expect(approvalRequests[0]).toMatchObject({ taskId: 'mail-task', approval: undefined });
      expect(result.nodes.map((entry) => [entry.id, entry.state])).toEqual([
        ['done', 'completed'],
        ['busy', 'completed'],
        ['waiting', 'completed'],
        ['lost', 'failed'],
        ['next', 'completed'],
      ]);
      expect(result.nodes[3]?.error).toBe(NOT_RESENT_MESSAGE);
      expect(lines).not.toContain('end done completed');
      expect(lines).not.toContain('start busy');
      const next = requests.find((request) => request.node.id === 'next');
      expect(next?.input.fleet.dependencyOutputs['done']).toEqual({
        agent: 'done-agent',
        summary: 'done before',
        data: { sources: [] },
      });
    });
  });

  it('on cancel stops launching nodes and aborts the running ones', async () => {
    const controller = new AbortController();
    const started = deferred();
    let runningSignal: AbortSignal | undefined;
    const invoked: string[] = [];
    const execution = run({
      plan: plan(node('long'), node('next', ['long']), node('last', ['next'])),
      signal: controller.signal,
      invokeAgent: async ({ node: current, signal }) => {
        invoked.push(current.id);
        runningSignal = signal;
        started.resolve();
        await new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        });
        return completed('never');
      },
    });
    await started.promise;
    controller.abort();
    const { result, lines } = await execution;
    expect(invoked).toEqual(['long']);
    expect(runningSignal?.aborted).toBe(true);
    expect(result.canceled).toBe(true);
    expect(result.nodes.map((entry) => entry.state)).toEqual(['failed', 'skipped', 'skipped']);
    expect(result.nodes[0]?.error).toBe('the run was canceled');
    expect(lines).toEqual([
      'start long',
      'end long failed',
      'end next skipped',
      'end last skipped',
    ]);
  });
});
