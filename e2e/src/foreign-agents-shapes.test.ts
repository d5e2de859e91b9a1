/**
 * Every shape of answer an agent built on `@a2a-js/sdk` may give, through the whole fleet: each
 * must end honestly in the node's state (the `run-result` event, the session) and in the answer
 * text. The fleet runs offline (heuristic planner, offline composer), so each question is routed by
 * the shapes agent's skill tags and the answer quotes what the agent sent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  createShapesExecutor,
  SHAPE_SKILLS,
  SHAPE_TEXTS,
  SHAPES_AGENT_CARD,
  startSdkAgent,
  type ReplyShape,
  type SdkAgent,
} from '@fleet/testing';
import { gatewayApi, streamChat, type FleetEvent, type Json } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/** The run's `run-result` node report for the (only) node of an agent. */
function nodeReport(events: readonly FleetEvent[], agent: string): Json | undefined {
  const result = events.find((event) => event.type === 'run-result');
  return (result?.['nodes'] as Json[] | undefined)?.find((node) => node['agent'] === agent);
}

interface ShapeCase {
  shape: ReplyShape;
  question: string;
  /** The node's state and error, as `run-result` and the session show them. */
  node: { state: string; error?: unknown };
  /** What the answer must say (each exactly once). */
  answer: string[];
  /**
   * How the session ends: a run with no step done and one failed is `failed` (its stream still
   * ends as an answer saying why: the agent's failure is the task's, not the fleet's); a step the
   * agent rejected is not a failure.
   */
  session: 'completed' | 'failed';
  /** The run's state in `run-result` (`fleet.state`). @default the session's status */
  runState?: 'completed' | 'partial' | 'failed';
  /**
   * The stream ends with an error (after the answer): the fleet, not the task, failed — an agent
   * whose task never finished, even when read again, is an agent not answering.
   */
  streamError?: string;
}

const CASES: ShapeCase[] = [
  {
    shape: 'message',
    session: 'completed',
    question: 'What are the office hours?',
    node: { state: 'completed' },
    answer: [SHAPE_TEXTS.message],
  },
  {
    shape: 'chunked',
    session: 'completed',
    question: 'Write the quarterly report',
    node: { state: 'completed' },
    // The chunks, joined in order into one text.
    answer: [SHAPE_TEXTS.chunked.join('')],
  },
  {
    shape: 'artifacts',
    session: 'completed',
    question: 'Send me the team digest',
    node: { state: 'completed' },
    answer: [...SHAPE_TEXTS.artifacts],
  },
  {
    shape: 'failed',
    session: 'failed',
    question: 'Look up the exchange rate for USD',
    node: { state: 'failed', error: SHAPE_TEXTS.failed },
    answer: ['Steps that failed', 'The exchange-rate feed is down (HTTP 503)'],
  },
  {
    shape: 'rejected',
    session: 'completed',
    runState: 'partial',
    question: 'Issue a refund for order 7',
    node: {
      state: 'rejected',
      error: `the agent rejected the task: ${SHAPE_TEXTS.rejected}`,
    },
    answer: [
      'Steps that were not done',
      'the agent rejected the task: Refunds over €500 need a manager',
    ],
  },
  {
    shape: 'canceled',
    session: 'failed',
    question: 'Track my parcel shipment',
    node: {
      state: 'failed',
      error: `the agent task was canceled: ${SHAPE_TEXTS.canceled}`,
    },
    answer: ['Steps that failed', 'the agent task was canceled'],
  },
  {
    shape: 'never-final',
    session: 'failed',
    streamError: 'The fleet could not run any step — ops-desk-1 (ops-desk): ',
    question: 'Count the inventory in the warehouse',
    node: { state: 'failed', error: expect.stringContaining('did not finish') },
    answer: ['Steps that failed', 'did not finish'],
  },
];

describe('every shape of answer from an @a2a-js/sdk agent', () => {
  let fleet: RunningFleet;
  let client: OpenAI;
  let desk: SdkAgent;

  beforeAll(async () => {
    desk = await startSdkAgent({
      ...SHAPES_AGENT_CARD,
      executor: createShapesExecutor(),
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      agents: [],
      agentUrls: [desk.url],
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await desk?.stop();
  }, 60_000);

  it.each(CASES)(
    'ends honestly for a $shape answer',
    async ({ shape, question, node, answer, session, runState = session, streamError }) => {
      const before = desk.requests.length;
      const chat = await streamChat(client, { message: question });

      // The planner routed it to the skill for this shape, and the agent got it once: a failed
      // or unfinished task is not sent again.
      const plan = chat.events.find((event) => event.type === 'plan-end')?.['plan'] as Json;
      expect(plan['nodes']).toEqual([
        expect.objectContaining({ agent: 'ops-desk', skill: SHAPE_SKILLS[shape].id }),
      ]);
      const received = desk.requests.slice(before);
      expect(received).toHaveLength(1);
      expect(received[0]?.fleet?.['sessionId']).toBe(chat.sessionId);

      expect(nodeReport(chat.events, 'ops-desk')).toMatchObject(node);
      // Each exactly once: chunks joined without repeats, artifacts not doubled by the snapshot.
      for (const text of answer) expect(chat.content.split(text).length - 1).toBe(1);
      if (node.state !== 'completed')
        expect(chat.content).not.toContain('Here is what the agents found.');

      const stored = await gatewayApi(fleet, `/sessions/${chat.sessionId}`);
      expect(stored.body['status']).toBe(session);
      expect(Object.values(stored.body['nodes'] as Json)).toEqual([expect.objectContaining(node)]);
      // A step the agent failed is the task's failure, not the fleet's: the stream ends as an
      // answer (no error) whose result says the run's state.
      if (streamError === undefined) expect(chat.error).toBeUndefined();
      else expect(chat.error?.message).toContain(streamError);
      const result = chat.events.find((event) => event.type === 'run-result');
      expect(result?.['state']).toBe(runState);
      if (session === 'failed') {
        expect(stored.body['error']).toContain(
          String(nodeReport(chat.events, 'ops-desk')?.['error']),
        );
      }
    },
  );
});
