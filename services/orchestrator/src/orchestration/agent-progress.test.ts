/**
 * The agents' own progress: what a step's agent says while it works (WORKING status messages with
 * text) reaches the orchestrator's client as `node-progress` events under the step, read
 * liberally from an agent outside the fleet (`@a2a-js/sdk`), rate-limited per step.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Plan, ProgressEvent } from '@fleet/a2a';
import {
  artifactEvent,
  startSdkAgent,
  statusEvent,
  taskSnapshot,
  type SdkAgent,
  type WirePart,
} from '@fleet/testing';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-agent-progress:${randomUUID()}:`;

/** How many WORKING messages the chatty agent sends. */
const CHATTY_MESSAGES = 1000;
/** The per-step limit the chatty test runs with. */
const MAX_PER_STEP = 5;

/** An `@a2a-js/sdk` executor that says `messages` while it works (each after `gapMs`), then answers. */
function talkingExecutor(messages: (index: number) => WirePart[], count: number, gapMs: number) {
  return {
    async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      bus.publish(taskSnapshot(context));
      for (let index = 0; index < count; index += 1) {
        if (gapMs > 0) await delay(gapMs);
        bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING', parts: messages(index) }));
      }
      bus.publish(
        artifactEvent(context, {
          artifactId: `${context.taskId}-answer`,
          name: 'answer',
          parts: [{ text: 'The figures are in.' }],
        }),
      );
      bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
    },
    cancelTask: () => Promise.resolve(),
  };
}

const STAGES: WirePart[][] = [
  // Two text parts, joined; surrounding space and a line break folded away.
  [{ text: '  Looking up' }, { text: 'the ledger…\n' }],
  // A stage named in a data part.
  [{ text: 'Reading https://example.org/q3' }, { data: { progress: { stage: 'reading' } } }],
  [{ text: `Summarising ${'the quarter '.repeat(40)}` }],
];

function planFor(agent: string): Plan {
  return {
    nodes: [{ id: 'figures', agent, task: 'Get the Q3 figures', dependsOn: [] }],
    rationale: 'one step',
    confidence: 0.9,
  };
}

function nodeProgress(
  progress: ProgressEvent[],
): Extract<ProgressEvent, { type: 'node-progress' }>[] {
  return progress.filter(
    (event): event is Extract<ProgressEvent, { type: 'node-progress' }> =>
      event.type === 'node-progress',
  );
}

describe('agents’ own progress (real Redis, @a2a-js/sdk agents)', () => {
  let redis: Redis;
  let steady: SdkAgent;
  let chatty: SdkAgent;
  let orchestrator: TestOrchestrator;
  let quiet: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    steady = await startSdkAgent({
      name: 'ledger',
      description: 'Reads ledgers, built on @a2a-js/sdk.',
      skills: [{ id: 'ledger', tags: ['ledger'] }],
      executor: talkingExecutor((index) => STAGES[index] ?? [], STAGES.length, 500),
      token: TEST_TOKEN,
    });
    chatty = await startSdkAgent({
      name: 'chatterbox',
      description: 'Talks a lot, built on @a2a-js/sdk.',
      skills: [{ id: 'chatter', tags: ['chatter'] }],
      executor: talkingExecutor((index) => [{ text: `Item ${index + 1}` }], CHATTY_MESSAGES, 0),
      token: TEST_TOKEN,
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [steady.url, chatty.url],
      progressIntervalMs: 100,
      progressMaxPerStep: MAX_PER_STEP,
    });
    quiet = await startTestOrchestrator({
      redis,
      prefix: `${prefix}quiet:`,
      agentUrls: [steady.url],
      progressIntervalMs: 0,
    });
  });

  afterAll(async () => {
    await Promise.all([orchestrator.close(), quiet.close()]);
    await Promise.all([steady.stop(), chatty.stop()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('streams a foreign agent’s WORKING messages as node-progress events under its step, in order', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'get the figures',
      fleet: { tenant: 'acme', plan: planFor('ledger') },
    }).done;
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    const { progress, lines } = readStream(events);
    const said = nodeProgress(progress);
    expect(said).toEqual([
      { type: 'node-progress', nodeId: 'figures', agent: 'ledger', text: 'Looking up the ledger…' },
      {
        type: 'node-progress',
        nodeId: 'figures',
        agent: 'ledger',
        text: 'Reading https://example.org/q3',
        stage: 'reading',
      },
      {
        type: 'node-progress',
        nodeId: 'figures',
        agent: 'ledger',
        text: expect.stringMatching(/^Summarising the quarter .*…$/) as unknown as string,
      },
    ]);
    // Cut to at most 300 characters and an ellipsis.
    expect(said[2]?.text.length).toBeGreaterThan(290);
    expect(said[2]?.text.length).toBeLessThanOrEqual(301);
    // Under the step: after its start, before its end.
    const types = progress.map((event) => event.type);
    const first = types.indexOf('node-progress');
    expect(first).toBeGreaterThan(types.indexOf('node-start'));
    expect(types.lastIndexOf('node-progress')).toBeLessThan(types.indexOf('node-end'));
    expect(lines).toContain('Step figures (ledger): Reading https://example.org/q3');
    // Live only: the session does not record them.
    const session = await orchestrator.sessions.get(outcomeOf(events).result?.sessionId ?? '');
    expect(JSON.stringify(session)).not.toContain('Looking up the ledger');
  });

  it('sends at most the limit for a chatty agent, and its last text is not lost', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'chatter',
      fleet: { tenant: 'acme', plan: planFor('chatterbox') },
    }).done;
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    const said = nodeProgress(readStream(events).progress);
    expect(said.length).toBeGreaterThanOrEqual(2);
    expect(said.length).toBeLessThanOrEqual(MAX_PER_STEP);
    expect(said[0]?.text).toBe('Item 1');
    expect(said.at(-1)?.text).toBe(`Item ${CHATTY_MESSAGES}`);
    // No repeats, in the order the agent said them.
    const numbers = said.map((event) => Number(event.text.replace('Item ', '')));
    expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
    expect(new Set(numbers).size).toBe(numbers.length);
  }, 60_000);

  it('sends none with ORCHESTRATOR_PROGRESS_INTERVAL_MS=0', async () => {
    const events = await orchestrate(quiet.client, {
      text: 'get the figures',
      fleet: { tenant: 'acme', plan: planFor('ledger') },
    }).done;
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(nodeProgress(readStream(events).progress)).toEqual([]);
  });
});
