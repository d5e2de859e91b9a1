import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  dataPart,
  findData,
  nodeInputSchema,
  partsText,
  textPart,
  type AgentCard,
  type NodeInput,
  type PlanNode,
} from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import type { AgentExecute } from '@fleet/a2a/server';
import { NotFoundError, ServiceUnavailableError } from '@fleet/errors';
import { silentLogger, type RunningServer } from '@fleet/http';
import { summaryOf, type AvailableAgent } from '../discovery';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import { approvalDecisionSchema, decisionParts } from '@fleet/a2a';
import { createA2AAgentInvoker, type A2AAgentInvoker } from './a2a-agent-invoker';
import { RunHandover } from './run-handover';

const TOKEN = 'test-internal-token-0123456789';

const input: NodeInput = {
  fleet: {
    sessionId: 'session-1',
    nodeId: 'n1',
    dependencyOutputs: {
      search: {
        agent: 'web-agent',
        summary: 'Paris [1].',
        data: { sources: [{ title: 'Paris' }] },
      },
    },
    entities: {},
    tenant: 'acme',
    memory: [],
  },
};

function node(agent: string): PlanNode {
  return { id: 'n1', agent, task: 'Summarise what was found', dependsOn: ['search'] };
}

describe('createA2AAgentInvoker', () => {
  const servers: RunningServer[] = [];
  const agents = new Map<string, AvailableAgent>();
  const received: { agent: string; text: string; input: NodeInput | undefined }[] = [];
  const canceled: string[] = [];
  let hangingStarted: () => void = () => undefined;
  let invokeAgent: A2AAgentInvoker;
  const gated: { started: () => void; open: Promise<void> } = {
    started: () => undefined,
    open: Promise.resolve(),
  };
  const decisions: unknown[] = [];

  async function start(
    name: string,
    execute: AgentExecute,
    cancelOnDisconnect = true,
  ): Promise<void> {
    // Agents that keep running when their caller leaves show that the invoker's CancelTask stops them.
    const server = await startTestAgent({ name, execute, token: TOKEN, cancelOnDisconnect });
    servers.push(server);
    const card: AgentCard = await discoverAgentCard(server.url);
    const existing = agents.get(name);
    if (existing) existing.replicas.push({ url: server.url, card });
    else
      agents.set(name, {
        name,
        url: server.url,
        card,
        summary: summaryOf(card),
        replicas: [{ url: server.url, card }],
      });
  }

  beforeAll(async () => {
    await start(
      'writer',
      answering(({ message }) => {
        received.push({
          agent: 'writer',
          text: partsText(message.parts),
          input: findData(message.parts, nodeInputSchema),
        });
        return [
          { type: 'status', state: 'TASK_STATE_WORKING', message: 'writing' },
          { type: 'artifact', artifact: { name: 'notes', parts: [textPart('not the result')] } },
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart('Summary [1].'), dataPart({ sources: [{ title: 'Paris' }] })],
            },
          },
        ];
      }),
    );
    await start(
      'plain',
      answering(() => [
        { type: 'artifact', artifact: { parts: [textPart('an unnamed artifact')] } },
      ]),
    );
    await start(
      'mailer',
      answering(() => [
        {
          type: 'status',
          state: 'TASK_STATE_AUTH_REQUIRED',
          message: [
            textPart('Send this mail?'),
            dataPart({ approval: { action: 'send', summary: 'Mail Bob', risk: 'medium' } }),
          ],
        },
      ]),
    );
    await start(
      'approver',
      answering(({ message, isContinuation }) => {
        const decision = findData(message.parts, approvalDecisionSchema)?.approvalDecision;
        if (!isContinuation) {
          return [
            {
              type: 'status',
              state: 'TASK_STATE_AUTH_REQUIRED',
              message: [
                textPart('Send this mail?'),
                dataPart({ approval: { action: 'send', summary: 'Mail Bob' } }),
              ],
            },
          ];
        }
        decisions.push(decision);
        if (decision?.decision !== 'approve') {
          return [{ type: 'status', state: 'TASK_STATE_REJECTED', message: 'Denied.' }];
        }
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart(`sent: ${decision.effectiveTask ?? ''}`)],
            },
          },
        ];
      }),
    );
    await start(
      'gated',
      async function* () {
        yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'working' };
        gated.started();
        await gated.open;
        yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('finally')] } };
      },
      false,
    );
    await start(
      'failing',
      answering(() => {
        throw new Error('no such mailbox');
      }),
    );
    await start(
      'busy',
      answering(() => [
        {
          type: 'status',
          state: 'TASK_STATE_FAILED',
          message: [textPart('upstream rate limit'), dataPart({ retryable: true })],
        },
      ]),
    );
    await start(
      'hanging',
      async function* ({ taskId, signal }) {
        yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'thinking' };
        hangingStarted();
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        canceled.push(taskId);
      },
      false,
    );
    for (const replica of ['one', 'two']) {
      await start(
        'echo',
        answering(() => [
          { type: 'artifact', artifact: { name: 'result', parts: [textPart(replica)] } },
        ]),
      );
    }
    invokeAgent = createA2AAgentInvoker({
      findAgent: (name) => Promise.resolve(agents.get(name)),
      token: TOKEN,
      logger: silentLogger,
    });
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown()));
  });

  const call = (
    agent: string,
    {
      signal = new AbortController().signal,
      onTask,
    }: { signal?: AbortSignal; onTask?: (taskId: string) => void } = {},
  ) => invokeAgent({ node: node(agent), input, attempt: 1, signal, onTask });

  it('sends the task with the dependencies as text and data, and reads the result artifact', async () => {
    const outcome = await call('writer');
    expect(outcome).toEqual({
      status: 'completed',
      summary: 'Summary [1].',
      data: { sources: [{ title: 'Paris' }] },
      taskId: expect.any(String),
    });
    expect(received.at(-1)).toEqual({
      agent: 'writer',
      text: 'Summarise what was found\n\nResults of earlier steps:\n- Step search (web-agent): Paris [1].',
      input,
    });
  });

  it('takes the artifacts’ text from an agent that does not name its result', async () => {
    await expect(call('plain')).resolves.toMatchObject({
      status: 'completed',
      summary: 'an unnamed artifact',
    });
  });

  it('reports a FAILED task as not retryable, with the agent’s message', async () => {
    await expect(call('failing')).resolves.toMatchObject({
      status: 'failed',
      error: 'no such mailbox',
      retryable: false,
    });
  });

  it('retries a FAILED task only when the agent marks it retryable', async () => {
    await expect(call('busy')).resolves.toMatchObject({
      status: 'failed',
      error: 'upstream rate limit',
      retryable: true,
    });
  });

  it('reports an approval request as interrupted, with its data', async () => {
    await expect(call('mailer')).resolves.toMatchObject({
      status: 'interrupted',
      reason: 'auth-required',
      message: 'Send this mail?',
      data: { approval: { action: 'send', summary: 'Mail Bob', risk: 'medium' } },
      taskId: expect.any(String),
    });
  });

  it('cancels the remote task when the node is aborted', async () => {
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      hangingStarted = resolve;
    });
    let announceTask: (taskId: string) => void = () => undefined;
    const known = new Promise<string>((resolve) => {
      announceTask = resolve;
    });
    const outcome = call('hanging', {
      signal: controller.signal,
      onTask: (id) => announceTask(id),
    });
    // Abort once the agent works on the task and the invoker knows the task's id.
    const [, taskId] = await Promise.all([started, known]);
    controller.abort(new Error('time-out'));
    await expect(outcome).rejects.toThrow();
    for (let tries = 0; tries < 100 && canceled.length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The agent keeps tasks whose caller left: only the invoker's CancelTask stopped it.
    expect(canceled).toEqual([taskId]);
  });

  it('continues the same task with the approval decision and reads its result', async () => {
    const asked = await call('approver');
    if (asked.status !== 'interrupted' || asked.taskId === undefined)
      throw new Error('expected a question');
    const outcome = await invokeAgent({
      node: node('approver'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: {
        taskId: asked.taskId,
        continuation: {
          messageId: 'fleet-decision-a-1',
          parts: decisionParts({
            decision: 'approve',
            mode: 'override',
            effectiveTask: 'Mail Carol instead',
          }),
        },
        answered: asked.asked,
      },
    });
    expect(outcome).toEqual({
      status: 'completed',
      summary: 'sent: Mail Carol instead',
      taskId: asked.taskId,
    });
    expect(decisions.at(-1)).toEqual({
      decision: 'approve',
      mode: 'override',
      effectiveTask: 'Mail Carol instead',
    });
  });

  it('leaves the agent task running on a hand-over, and a later call follows it to its end', async () => {
    let open: () => void = () => undefined;
    gated.open = new Promise<void>((resolve) => {
      open = resolve;
    });
    const started = new Promise<void>((resolve) => {
      gated.started = resolve;
    });
    let announceTask: (taskId: string) => void = () => undefined;
    const known = new Promise<string>((resolve) => {
      announceTask = resolve;
    });
    const controller = new AbortController();
    const first = call('gated', { signal: controller.signal, onTask: (id) => announceTask(id) });
    const [, taskId] = await Promise.all([started, known]);
    controller.abort(new RunHandover());
    await expect(first).rejects.toThrow();
    const followed = invokeAgent({
      node: node('gated'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: { taskId },
    });
    open();
    await expect(followed).resolves.toEqual({ status: 'completed', summary: 'finally', taskId });
  });

  it('fails clearly when the agent no longer knows the task', async () => {
    const followed = invokeAgent({
      node: node('writer'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: { taskId: 'no-such-task' },
    });
    await expect(followed).rejects.toBeInstanceOf(NotFoundError);
    await expect(followed).rejects.toThrow(
      /its agent task no-such-task is gone \(writer no longer knows it\)/,
    );
  });

  it('spreads calls over the replicas of an agent', async () => {
    const answers = [await call('echo'), await call('echo'), await call('echo')];
    expect(answers.map((outcome) => outcome.status === 'completed' && outcome.summary)).toEqual([
      'one',
      'two',
      'one',
    ]);
  });

  it('throws a retryable error for an agent that is not available', async () => {
    await expect(call('ghost')).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
