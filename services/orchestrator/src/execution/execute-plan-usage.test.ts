import { describe, expect, it } from '@jest/globals';
import type { Plan, TokenUsage } from '@fleet/a2a';
import { ConnectionError } from '@fleet/errors';
import { AgentUnavailableError } from './agent-unavailable-error';
import { executePlan } from './execute-plan';
import type { InvokeAgent } from './node-outcome';

const usage = (totalTokens: number): TokenUsage => ({
  promptTokens: totalTokens,
  completionTokens: 0,
  totalTokens,
  calls: 1,
  unknownCalls: 0,
});

const PLAN: Plan = {
  nodes: ['reports', 'silent', 'broken', 'down'].map((id) => ({
    id,
    agent: `${id}-agent`,
    task: `do ${id}`,
    dependsOn: [],
  })),
  rationale: 'test',
  confidence: 1,
};

describe('executePlan onNodeUsage', () => {
  it('tells what each call that reached an agent reported, and nothing for calls that did not', async () => {
    const invokeAgent: InvokeAgent = async ({ node, onTask }) => {
      await Promise.resolve();
      switch (node.id) {
        case 'reports':
          return { status: 'completed', summary: 'done', usage: usage(12) };
        case 'silent':
          return { status: 'completed', summary: 'done' };
        case 'broken':
          // The agent had the task when the connection broke: what it spent is unknown.
          onTask?.('task-broken');
          throw new ConnectionError('connection reset');
        default:
          throw new AgentUnavailableError(node.agent);
      }
    };
    const reported: { nodeId: string; agent: string; usage: TokenUsage | undefined }[] = [];
    await executePlan({
      plan: PLAN,
      invokeAgent,
      sessionId: 'session-1',
      tenant: 'acme',
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 },
      onNodeUsage: (event) => reported.push(event),
    });
    expect(reported.sort((left, right) => left.nodeId.localeCompare(right.nodeId))).toEqual([
      { nodeId: 'broken', agent: 'broken-agent', usage: undefined },
      { nodeId: 'reports', agent: 'reports-agent', usage: usage(12) },
      { nodeId: 'silent', agent: 'silent-agent', usage: undefined },
    ]);
  });
});
