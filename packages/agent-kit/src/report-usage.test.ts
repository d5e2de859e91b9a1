import { describe, expect, it } from '@jest/globals';
import { createMessage, readReportedUsage, textPart, type Task } from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { recordUsage } from '@fleet/llm';
import { completed, result, resultChunk, resultEnd, working } from './events';
import { reportUsage } from './report-usage';

function context(): AgentContext {
  const message = createMessage({ parts: [textPart('hi')] });
  const task: Task = {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_WORKING' },
    history: [message],
  };
  return {
    taskId: 't1',
    contextId: 'c1',
    message,
    task,
    isContinuation: false,
    signal: new AbortController().signal,
    claimOnce: () => Promise.resolve(true),
  };
}

async function collect(execute: AgentExecute): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of execute(context())) events.push(event);
  return events;
}

/** One model call of this size, as `completeChat` records it. */
function modelCall(promptTokens: number, completionTokens: number): void {
  recordUsage({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });
}

function usageOf(event: AgentEvent | undefined): unknown {
  if (event === undefined) return undefined;
  return readReportedUsage(event.type === 'artifact' ? event.artifact.metadata : event.metadata);
}

describe('reportUsage', () => {
  it('reports the turn’s model calls on the result artifact and the status that ends the turn', async () => {
    const events = await collect(
      reportUsage(async function* answer() {
        yield working('Searching…');
        await Promise.resolve();
        modelCall(100, 10);
        yield resultChunk('a1', 'Par');
        modelCall(50, 5);
        yield resultEnd('a1', 'Paris.', { sources: [] });
        recordUsage(undefined);
        yield completed('Answered.');
      }),
    );
    expect(events.map(usageOf)).toEqual([
      undefined,
      undefined,
      { promptTokens: 150, completionTokens: 15, totalTokens: 165, calls: 2, unknownCalls: 0 },
      { promptTokens: 150, completionTokens: 15, totalTokens: 165, calls: 2, unknownCalls: 1 },
    ]);
  });

  it('reports calls 0 for an agent that called no model (offline)', async () => {
    const [answer] = await collect(
      reportUsage(async function* offline() {
        await Promise.resolve();
        yield result('From the documents.');
      }),
    );
    expect(usageOf(answer)).toEqual({
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      calls: 0,
      unknownCalls: 0,
    });
  });

  it('keeps the events’ own metadata and counts only its own turn', async () => {
    const agent = reportUsage(async function* asks() {
      await Promise.resolve();
      modelCall(7, 1);
      yield {
        type: 'status',
        state: 'TASK_STATE_AUTH_REQUIRED',
        message: 'Send it?',
        metadata: { sessionId: 's1' },
      };
    });
    const [first] = await collect(agent);
    const [second] = await collect(agent);
    expect(first).toMatchObject({ metadata: { sessionId: 's1' } });
    expect(usageOf(first)).toMatchObject({ totalTokens: 8, calls: 1 });
    expect(usageOf(second)).toMatchObject({ totalTokens: 8, calls: 1 });
  });
});
