import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { findData, runResultSchema, type Plan, type StreamResponse } from '@fleet/a2a';
import {
  startScriptedAgent,
  startScriptedOpenAI,
  type ScriptedAgent,
  type ScriptedOpenAI,
} from '@fleet/testing';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-answer-streaming:${randomUUID()}:`;

/** The orchestrator's `result` artifact events, in order. */
function resultChunks(events: readonly StreamResponse[]) {
  return events.flatMap((event) =>
    'artifactUpdate' in event && event.artifactUpdate.artifact.name === 'result'
      ? [event.artifactUpdate]
      : [],
  );
}

/** Where an event sits in the stream: -1 when absent. */
function indexOfRunEnd(events: readonly StreamResponse[]): number {
  return events.findIndex(
    (event) =>
      'statusUpdate' in event &&
      JSON.stringify(event.statusUpdate.status.message?.parts ?? []).includes('"run-end"'),
  );
}

describe('the answer as it is written (result artifact chunks)', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let notes: ScriptedAgent;
  let streamer: ScriptedAgent;
  let orchestrator: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI();
    notes = await startScriptedAgent({
      name: 'notes',
      internalToken: TEST_TOKEN,
      reply: {
        text: 'A2A is a protocol for agents [1].',
        data: { sources: [{ title: 'A2A spec', url: 'https://a2a.example/spec' }] },
      },
    });
    streamer = await startScriptedAgent({
      name: 'docs',
      internalToken: TEST_TOKEN,
      reply: {
        chunks: ['  Hotels are capped ', 'at 200 EUR [', '1]; trains are ', 'second class [2].\n'],
        chunkDelayMs: 20,
        data: {
          sources: [{ title: 'Travel policy', url: 'doc://policy' }, { title: 'Rail rules' }],
        },
      },
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [notes.url, streamer.url],
      llmBaseUrl: llm.baseURL,
    });
  }, 30_000);

  afterAll(async () => {
    await orchestrator?.close();
    await notes?.close();
    await streamer?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('streams the composer’s tokens as chunks of one artifact, the last with the run result', async () => {
    const plan: Plan = {
      nodes: [
        { id: 'a', agent: 'notes', task: 'What is A2A?', dependsOn: [] },
        { id: 'b', agent: 'notes', task: 'Who made it?', dependsOn: [] },
      ],
      rationale: 'two lookups',
      confidence: 1,
    };
    const content = 'A2A is a protocol for agents [1], written by many hands [1].';
    llm.enqueue({ content, chunkCount: 8, chunkDelayMs: 10 });
    const events = await orchestrate(orchestrator.client, {
      text: 'Tell me about A2A',
      fleet: { tenant: 'acme', plan },
    }).done;
    const chunks = resultChunks(events);
    expect(chunks.length).toBeGreaterThan(3);
    expect(new Set(chunks.map((chunk) => chunk.artifact.artifactId)).size).toBe(1);
    // Pieces appended; the last replaces them with the whole answer and the run result.
    expect(chunks.map((chunk) => [chunk.append, chunk.lastChunk])).toEqual([
      ...chunks.slice(1).map(() => [true, false]),
      [false, true],
    ]);
    const pieces = chunks
      .slice(0, -1)
      .map((chunk) => chunk.artifact.parts.map((part) => part.text ?? '').join(''))
      .join('');
    // The model's text as it came, then the rest of the answer (its sources) before `run-end`.
    const whole = `${content}\n\nSources\n[1] A2A spec — https://a2a.example/spec`;
    expect(pieces).toBe(whole);
    const restChunk = events.findIndex(
      (event) =>
        'artifactUpdate' in event &&
        event.artifactUpdate.artifact.parts.some((part) => part.text?.includes('Sources') === true),
    );
    expect(restChunk).toBeLessThan(indexOfRunEnd(events));
    // The body streamed before the run ended; only the last chunk carries the run result.
    const last = chunks.at(-1);
    expect(findData(last?.artifact.parts ?? [], runResultSchema)).toMatchObject({
      composer: 'llm',
      citations: [{ title: 'A2A spec', url: 'https://a2a.example/spec', agent: 'notes' }],
    });
    for (const chunk of chunks.slice(0, -1)) {
      expect(findData(chunk.artifact.parts, runResultSchema)).toBeUndefined();
    }
    const firstChunk = events.findIndex((event) => 'artifactUpdate' in event);
    expect(firstChunk).toBeLessThan(indexOfRunEnd(events));

    const { answer, result, state } = outcomeOf(events);
    expect(state).toBe('TASK_STATE_COMPLETED');
    expect(answer).toBe(whole);
    // The finished task and the session hold the same answer.
    const session = await orchestrator.sessions.get(result?.sessionId ?? '');
    expect(session?.result?.text).toBe(answer);
    const taskId = events.find((event) => 'task' in event);
    const task = await orchestrator.client.getTask({
      id: taskId !== undefined && 'task' in taskId ? taskId.task.id : '',
    });
    // The same artifact as without streaming: one text part, then the run result.
    const artifact = task.artifacts?.find((entry) => entry.name === 'result');
    expect(artifact?.parts).toHaveLength(2);
    expect(artifact?.parts[0]?.text).toBe(answer);
    expect(findData(artifact?.parts ?? [], runResultSchema)?.composer).toBe('llm');
  });

  it('shows a single step’s answer as its agent writes it, and does not compose it again', async () => {
    const before = llm.requests.length;
    const plan: Plan = {
      nodes: [{ id: 'rules', agent: 'docs', task: 'Find the travel rules', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const events = await orchestrate(orchestrator.client, {
      text: 'What are the travel rules?',
      fleet: { tenant: 'acme', plan },
    }).done;
    expect(llm.requests.length).toBe(before); // no composer call
    const chunks = resultChunks(events);
    const texts = chunks.map((chunk) =>
      chunk.artifact.parts.map((part) => part.text ?? '').join(''),
    );
    // Each piece as the agent sent it (leading and trailing blanks of the answer aside), before
    // the step ended.
    expect(texts.slice(0, 4)).toEqual([
      'Hotels are capped',
      ' at 200 EUR [',
      '1]; trains are',
      ' second class [2].',
    ]);
    const nodeEnd = events.findIndex(
      (event) =>
        'statusUpdate' in event &&
        JSON.stringify(event.statusUpdate.status.message?.parts ?? []).includes('"node-end"'),
    );
    const firstChunk = events.findIndex((event) => 'artifactUpdate' in event);
    expect(firstChunk).toBeGreaterThan(-1);
    expect(firstChunk).toBeLessThan(nodeEnd);
    const { answer, result } = outcomeOf(events);
    expect(answer).toBe(
      'Hotels are capped at 200 EUR [1]; trains are second class [2].\n\nSources\n[1] Travel policy — doc://policy\n[2] Rail rules',
    );
    expect(result).toMatchObject({
      composer: 'offline',
      citations: [
        { title: 'Travel policy', url: 'doc://policy', agent: 'docs' },
        { title: 'Rail rules', agent: 'docs' },
      ],
    });
  });

  it('composes a single step that answered whole, as before', async () => {
    llm.enqueue({ content: 'Composed: A2A is a protocol [1].' });
    const plan: Plan = {
      nodes: [{ id: 'only', agent: 'notes', task: 'What is A2A?', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const events = await orchestrate(orchestrator.client, {
      text: 'What is A2A?',
      fleet: { tenant: 'acme', plan },
    }).done;
    expect(outcomeOf(events)).toMatchObject({
      answer:
        'Composed: A2A is a protocol [1].\n\nSources\n[1] A2A spec — https://a2a.example/spec',
      result: { composer: 'llm' },
    });
  });
});
