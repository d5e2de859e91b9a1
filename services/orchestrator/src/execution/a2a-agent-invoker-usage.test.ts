import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataPart, decisionParts, textPart, type AgentCard, type NodeInput } from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import type { AgentExecute } from '@fleet/a2a/server';
import { silentLogger, type RunningServer } from '@fleet/http';
import { summaryOf, type AvailableAgent } from '../discovery';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import { createA2AAgentInvoker, type A2AAgentInvoker } from './a2a-agent-invoker';

const TOKEN = 'test-internal-token-0123456789';

const input: NodeInput = {
  fleet: {
    sessionId: 'session-1',
    nodeId: 'n1',
    dependencyOutputs: {},
    entities: {},
    tenant: 'acme',
    memory: [],
  },
};

const usage = (totalTokens: number) => ({
  promptTokens: totalTokens - 1,
  completionTokens: 1,
  totalTokens,
  calls: 1,
  unknownCalls: 0,
});

describe('createA2AAgentInvoker: the usage an agent reports', () => {
  const servers: RunningServer[] = [];
  const agents = new Map<string, AvailableAgent>();
  let invokeAgent: A2AAgentInvoker;

  async function start(name: string, execute: AgentExecute): Promise<void> {
    const server = await startTestAgent({ name, execute, token: TOKEN });
    servers.push(server);
    const card: AgentCard = await discoverAgentCard(server.url);
    agents.set(name, {
      name,
      url: server.url,
      card,
      summary: summaryOf(card),
      replicas: [{ url: server.url, card }],
    });
  }

  beforeAll(async () => {
    // A fleet agent (agent-kit's reportUsage): the artifact has the usage so far, the status that
    // ends the turn the whole turn's.
    await start(
      'fleet',
      answering(() => [
        {
          type: 'artifact',
          artifact: { name: 'result', parts: [textPart('Done.')], metadata: { usage: usage(10) } },
        },
        { type: 'status', state: 'TASK_STATE_COMPLETED', metadata: { usage: usage(15) } },
      ]),
    );
    // Reports only on its artifact (read from the task, too).
    await start(
      'artifact-only',
      answering(() => [
        {
          type: 'artifact',
          artifact: { name: 'result', parts: [textPart('Done.')], metadata: { usage: usage(20) } },
        },
      ]),
    );
    // Outside the fleet: OpenAI's usage in its result data.
    await start(
      'foreign',
      answering(() => [
        {
          type: 'artifact',
          artifact: {
            name: 'result',
            parts: [
              textPart('Done.'),
              dataPart({ usage: { prompt_tokens: 7, completion_tokens: 2 } }),
            ],
          },
        },
      ]),
    );
    await start(
      'silent',
      answering(() => [
        { type: 'artifact', artifact: { name: 'result', parts: [textPart('Done.')] } },
      ]),
    );
    // Asks for approval after one call, then makes another: each turn reports its own.
    await start('approver', async function* approver(context) {
      await Promise.resolve();
      if (!context.isContinuation) {
        yield {
          type: 'status',
          state: 'TASK_STATE_AUTH_REQUIRED',
          message: [
            textPart('Send it?'),
            dataPart({ approval: { action: 'send', summary: 'Send the mail' } }),
          ],
          metadata: { usage: usage(30) },
        };
        return;
      }
      yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('Sent.')] } };
      yield { type: 'status', state: 'TASK_STATE_COMPLETED', metadata: { usage: usage(40) } };
    });
    invokeAgent = createA2AAgentInvoker({
      findAgent: (name) => Promise.resolve(agents.get(name)),
      token: TOKEN,
      logger: silentLogger,
    });
  });

  afterAll(async () => {
    for (const server of servers) await server.shutdown();
  });

  const call = (agent: string) =>
    invokeAgent({
      node: { id: 'n1', agent, task: 'Do it', dependsOn: [] },
      input,
      attempt: 1,
      signal: new AbortController().signal,
    });

  it('takes the usage on the status that ended the turn over the artifact’s', async () => {
    await expect(call('fleet')).resolves.toMatchObject({ status: 'completed', usage: usage(15) });
  });

  it('reads the result artifact’s usage, and a foreign agent’s usage in its result data', async () => {
    await expect(call('artifact-only')).resolves.toMatchObject({ usage: usage(20) });
    await expect(call('foreign')).resolves.toMatchObject({
      usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9, calls: 1, unknownCalls: 0 },
    });
  });

  it('reports no usage for an agent that says nothing', async () => {
    const outcome = await call('silent');
    expect(outcome.status).toBe('completed');
    expect(outcome).not.toHaveProperty('usage');
  });

  it('reports each turn of a task that asked for approval on its own', async () => {
    const asked = await call('approver');
    expect(asked).toMatchObject({ status: 'interrupted', usage: usage(30) });
    const taskId = asked.taskId ?? '';
    const continued = await invokeAgent({
      node: { id: 'n1', agent: 'approver', task: 'Do it', dependsOn: [] },
      input,
      attempt: 1,
      signal: new AbortController().signal,
      existingTask: {
        taskId,
        continuation: {
          messageId: 'fleet-decision-usage-1',
          parts: decisionParts({ decision: 'approve' }),
        },
        ...(asked.status === 'interrupted' ? { answered: asked.asked } : {}),
      },
    });
    expect(continued).toMatchObject({ status: 'completed', summary: 'Sent.', usage: usage(40) });
  });
});
