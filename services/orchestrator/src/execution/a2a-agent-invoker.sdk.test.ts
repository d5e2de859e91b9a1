/**
 * The invoker against agents we did not write: `@a2a-js/sdk` 1.3 servers. The SDK requires every
 * turn — a continuation too — to begin with the Task, so an agent answering an approval first
 * re-publishes its snapshot, still TASK_STATE_AUTH_REQUIRED; that snapshot is not a new request.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import {
  AGENT_CARD_PATH,
  Message as SdkMessage,
  Task as SdkTask,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  type AgentCard as SdkAgentCard,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import {
  decisionParts,
  readApprovalRequest,
  type AgentCard,
  type NodeInput,
  type PlanNode,
} from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import { StreamInterruptedError } from '@fleet/errors';
import { silentLogger } from '@fleet/http';
import type { Server } from 'node:http';
import { summaryOf, type AvailableAgent } from '../discovery';
import { createA2AAgentInvoker, type A2AAgentInvoker } from './a2a-agent-invoker';
import type { NodeOutcome } from './node-outcome';

const input: NodeInput = {
  fleet: {
    sessionId: 's-1',
    nodeId: 'pay',
    dependencyOutputs: {},
    entities: {},
    tenant: 'acme',
    memory: [],
  },
};

const now = (): string => new Date().toISOString();

/** What a scenario does on one `execute`; `ctx.task` is set for continuations. */
type Scenario = (ctx: RequestContext, publish: Publisher) => Promise<void> | void;

interface Publisher {
  task(state: string): void;
  snapshot(): void;
  status(state: string, parts?: unknown[]): void;
  artifact(
    artifact: { artifactId: string; name?: string; parts: unknown[] },
    append?: boolean,
  ): void;
  message(text: string): void;
}

class ScenarioExecutor implements AgentExecutor {
  constructor(private readonly scenario: Scenario) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const publish: Publisher = {
      task: (state) =>
        bus.publish(
          AgentEvent.task(
            SdkTask.fromJSON({
              id: taskId,
              contextId,
              status: { state, timestamp: now() },
              history: [SdkMessage.toJSON(ctx.userMessage)],
            }),
          ),
        ),
      snapshot: () => {
        if (ctx.task !== undefined) bus.publish(AgentEvent.task(ctx.task));
      },
      status: (state, parts) =>
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              taskId,
              contextId,
              status: {
                state,
                timestamp: now(),
                ...(parts === undefined
                  ? {}
                  : {
                      message: {
                        messageId: `${taskId}-${state}-${Date.now()}`,
                        role: 'ROLE_AGENT',
                        parts,
                        taskId,
                        contextId,
                      },
                    }),
              },
            }),
          ),
        ),
      artifact: (artifact, append = false) =>
        bus.publish(
          AgentEvent.artifactUpdate(
            TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, append, artifact }),
          ),
        ),
      message: (text) =>
        bus.publish(
          AgentEvent.message(
            SdkMessage.fromJSON({
              messageId: `reply-${Date.now()}`,
              role: 'ROLE_AGENT',
              parts: [{ text }],
              contextId,
            }),
          ),
        ),
    };
    await this.scenario(ctx, publish);
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: now() },
        }),
      ),
    );
    return Promise.resolve();
  }
}

async function startSdkAgent(name: string, scenario: Scenario): Promise<Server> {
  const app = express();
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: SdkAgentCard = {
    name,
    description: `${name}, built with @a2a-js/sdk`,
    version: '1.0.0',
    provider: undefined,
    supportedInterfaces: [
      { url: `${baseUrl}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: name,
        name,
        description: name,
        tags: [name],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new ScenarioExecutor(scenario),
  );
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return server;
}

function userText(ctx: RequestContext): string {
  return ctx.userMessage.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join(' ');
}

function userData(ctx: RequestContext): unknown[] {
  return ctx.userMessage.parts
    .map((part) => (part.content?.$case === 'data' ? part.content.value : undefined))
    .filter((data) => data !== undefined);
}

describe('createA2AAgentInvoker with @a2a-js/sdk agents', () => {
  const servers: Server[] = [];
  const agents = new Map<string, AvailableAgent>();
  let invokeAgent: A2AAgentInvoker;
  let payments = 0;
  const continuations: string[] = [];

  /** Pays after approval; re-publishes its snapshot first on every execute, as the SDK requires. */
  const payer: Scenario = (ctx, publish) => {
    if (ctx.task === undefined) {
      publish.task('TASK_STATE_SUBMITTED');
      publish.status('TASK_STATE_WORKING');
      publish.status('TASK_STATE_AUTH_REQUIRED', [
        { text: 'Pay invoice 42?' },
        {
          data: {
            approval: {
              action: 'pay-invoice',
              summary: 'Pay invoice 42 (EUR 1,200) to ACME',
              preview: 'EUR 1,200 → ACME GmbH, IBAN DE00 1234',
              risk: 'Money leaves the company account',
            },
          },
        },
      ]);
      return;
    }
    continuations.push(ctx.userMessage.messageId);
    publish.snapshot();
    publish.status('TASK_STATE_WORKING');
    const approved = userData(ctx).some(
      (data) =>
        typeof data === 'object' &&
        data !== null &&
        (data as { approvalDecision?: { decision?: string } }).approvalDecision?.decision ===
          'approve',
    );
    if (!approved) {
      publish.status('TASK_STATE_REJECTED', [{ text: 'Not paid: denied.' }]);
      return;
    }
    payments += 1;
    publish.artifact({ artifactId: 'receipt', name: 'receipt', parts: [{ text: 'Paid ' }] });
    publish.artifact({ artifactId: 'receipt', parts: [{ text: 'invoice 42.' }] }, true);
    publish.status('TASK_STATE_COMPLETED');
  };

  async function start(name: string, scenario: Scenario): Promise<void> {
    const server = await startSdkAgent(name, scenario);
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const card: AgentCard = await discoverAgentCard(url);
    agents.set(name, { name, url, card, summary: summaryOf(card), replicas: [{ url, card }] });
  }

  beforeAll(async () => {
    await start('payer', payer);
    await start('replier', (_ctx, publish) => publish.message('A plain reply.'));
    await start('several', (_ctx, publish) => {
      publish.task('TASK_STATE_WORKING');
      publish.artifact({ artifactId: 'a', name: 'first', parts: [{ text: 'One.' }] });
      publish.artifact({ artifactId: 'b', name: 'second', parts: [{ text: 'Two.' }] });
      publish.status('TASK_STATE_COMPLETED');
    });
    await start('failing', (_ctx, publish) => {
      publish.task('TASK_STATE_WORKING');
      publish.status('TASK_STATE_FAILED', [{ text: 'The ledger is closed.' }]);
    });
    await start('refusing', (_ctx, publish) => {
      publish.task('TASK_STATE_SUBMITTED');
      publish.status('TASK_STATE_REJECTED', [{ text: 'I only pay invoices.' }]);
    });
    await start('asker', (ctx, publish) => {
      if (ctx.task === undefined) {
        publish.task('TASK_STATE_SUBMITTED');
        publish.status('TASK_STATE_INPUT_REQUIRED', [{ text: 'Which city?' }]);
        return;
      }
      publish.snapshot();
      publish.artifact({
        artifactId: 'r',
        name: 'result',
        parts: [{ text: `Booked in ${userText(ctx)}.` }],
      });
      publish.status('TASK_STATE_COMPLETED');
    });
    await start('unfinished', (_ctx, publish) => {
      publish.task('TASK_STATE_SUBMITTED');
      publish.status('TASK_STATE_WORKING');
    });
    invokeAgent = createA2AAgentInvoker({
      findAgent: (name) => Promise.resolve(agents.get(name)),
      token: 'unused-by-these-agents',
      logger: silentLogger,
      timeoutMs: 3000,
    });
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const node = (agent: string): PlanNode => ({
    id: 'pay',
    agent,
    task: 'Pay invoice 42',
    dependsOn: [],
  });
  const call = (agent: string): Promise<NodeOutcome> =>
    invokeAgent({ node: node(agent), input, attempt: 1, signal: new AbortController().signal });

  it('reads an approval with risk in words, and the snapshot after the decision is not a new request', async () => {
    const asked = await call('payer');
    if (asked.status !== 'interrupted' || asked.taskId === undefined) {
      throw new Error(`expected an approval request, got ${asked.status}`);
    }
    expect(readApprovalRequest({ parts: asked.parts, agent: 'payer' })).toEqual({
      action: 'pay-invoice',
      summary: 'Pay invoice 42 (EUR 1,200) to ACME',
      preview: 'EUR 1,200 → ACME GmbH, IBAN DE00 1234',
      risk: 'medium',
      riskDescription: 'Money leaves the company account',
    });
    const before = payments;
    const outcome = await invokeAgent({
      node: node('payer'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: {
        taskId: asked.taskId,
        continuation: {
          messageId: 'fleet-decision-a-1',
          parts: decisionParts({ decision: 'approve' }),
        },
        answered: asked.asked,
      },
    });
    expect(outcome).toEqual({
      status: 'completed',
      summary: 'Paid invoice 42.',
      taskId: asked.taskId,
    });
    expect(payments - before).toBe(1);
    expect(continuations.at(-1)).toBe('fleet-decision-a-1');
  });

  it('does not send a decision again after a restart when the agent already took it', async () => {
    const asked = await call('payer');
    if (asked.status !== 'interrupted' || asked.taskId === undefined) throw new Error('no ask');
    const continuation = {
      messageId: 'fleet-decision-a-2',
      parts: decisionParts({ decision: 'approve' }),
    };
    const existingTask = { taskId: asked.taskId, continuation, answered: asked.asked };
    const before = payments;
    const signal = new AbortController().signal;
    await invokeAgent({ node: node('payer'), input, attempt: 1, signal, existingTask });
    // The resumed run re-delivers only if the task still shows the status that asked.
    const again = await invokeAgent({
      node: node('payer'),
      input,
      attempt: 1,
      signal,
      existingTask: { ...existingTask, onlyIfStill: true },
    });
    expect(again).toMatchObject({ status: 'completed', summary: 'Paid invoice 42.' });
    expect(payments - before).toBe(1);
  });

  it('re-delivers a decision (same message id) when the agent never got it', async () => {
    const asked = await call('payer');
    if (asked.status !== 'interrupted' || asked.taskId === undefined) throw new Error('no ask');
    const before = payments;
    const outcome = await invokeAgent({
      node: node('payer'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: {
        taskId: asked.taskId,
        continuation: {
          messageId: 'fleet-decision-a-3',
          parts: decisionParts({ decision: 'approve' }),
        },
        answered: asked.asked,
        onlyIfStill: true,
      },
    });
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(payments - before).toBe(1);
    expect(continuations.at(-1)).toBe('fleet-decision-a-3');
  });

  it('continues a question with the answer', async () => {
    const asked = await call('asker');
    expect(asked).toMatchObject({
      status: 'interrupted',
      reason: 'input-required',
      message: 'Which city?',
    });
    if (asked.status !== 'interrupted' || asked.taskId === undefined)
      throw new Error('no question');
    const outcome = await invokeAgent({
      node: node('asker'),
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: {
        taskId: asked.taskId,
        continuation: { messageId: 'fleet-answer-q-1', parts: [{ text: 'Berlin' }] },
        answered: asked.asked,
      },
    });
    expect(outcome).toMatchObject({ status: 'completed', summary: 'Booked in Berlin.' });
  });

  it('takes a Message instead of a Task as the answer', async () => {
    await expect(call('replier')).resolves.toMatchObject({
      status: 'completed',
      summary: 'A plain reply.',
    });
  });

  it('joins several artifacts', async () => {
    await expect(call('several')).resolves.toMatchObject({
      status: 'completed',
      summary: 'One.\n\nTwo.',
    });
  });

  it('reports FAILED with the agent’s message and REJECTED as a refusal', async () => {
    await expect(call('failing')).resolves.toMatchObject({
      status: 'failed',
      error: 'The ledger is closed.',
      retryable: false,
    });
    await expect(call('refusing')).resolves.toMatchObject({
      status: 'failed',
      rejected: true,
      error: 'the agent rejected the task: I only pay invoices.',
    });
  });

  it('fails, without asking to send it again, a task that never ends', async () => {
    const outcome = call('unfinished');
    await expect(outcome).rejects.toBeInstanceOf(StreamInterruptedError);
    await expect(outcome).rejects.toMatchObject({ isRetryable: false });
  }, 20_000);
});
