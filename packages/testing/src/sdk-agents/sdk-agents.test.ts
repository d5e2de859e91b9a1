/**
 * The SDK agents over the wire, driven by the fleet's A2A client: what each one sends, turn by
 * turn, so the e2e tests that put them behind the fleet rest on known behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createMessage,
  dataPart,
  partsText,
  textPart,
  type Part,
  type StreamResponse,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import {
  createInvoiceExecutor,
  INVOICE_AGENT_CARD,
  type InvoiceExecutor,
} from './invoice-executor';
import { createQuestionExecutor, TRAVEL_AGENT_CARD } from './question-executor';
import {
  createShapesExecutor,
  SHAPE_SKILLS,
  SHAPE_TEXTS,
  SHAPES_AGENT_CARD,
  type ReplyShape,
} from './shapes-executor';
import { startSdkAgent, type SdkAgent } from './start-sdk-agent';

const TOKEN = 'sdk-agents-test-token';

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const seen: StreamResponse[] = [];
  await collectInto(seen, events);
  return seen;
}

/** Reads a stream into `seen` (kept when the stream then fails). */
async function collectInto(
  seen: StreamResponse[],
  events: AsyncIterable<StreamResponse>,
): Promise<void> {
  for await (const event of events) seen.push(event);
}

function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((event) => {
    if ('task' in event) return `task:${event.task.status.state}`;
    if ('statusUpdate' in event) return `status:${event.statusUpdate.status.state}`;
    if ('artifactUpdate' in event) {
      const { artifact, append, lastChunk } = event.artifactUpdate;
      return `artifact:${artifact.name ?? '-'}:${append === true ? 'append' : 'new'}:${lastChunk === true ? 'last' : 'more'}`;
    }
    return 'message';
  });
}

function taskIdOf(events: readonly StreamResponse[]): string {
  const head = events[0];
  if (head === undefined || !('task' in head)) throw new Error('expected a task first');
  return head.task.id;
}

function lastStatusParts(events: readonly StreamResponse[]): Part[] {
  const last = events.at(-1);
  if (last === undefined || !('statusUpdate' in last)) throw new Error('expected a status last');
  return last.statusUpdate.status.message?.parts ?? [];
}

async function clientFor(agent: SdkAgent): Promise<A2AClient> {
  const card = await discoverAgentCard(agent.url, { token: TOKEN });
  return new A2AClient({ card, token: TOKEN, maxRetries: 0, timeoutMs: 5000 });
}

describe('SDK agents', () => {
  const started: SdkAgent[] = [];
  const start = async (options: Parameters<typeof startSdkAgent>[0]): Promise<SdkAgent> => {
    const agent = await startSdkAgent(options);
    started.push(agent);
    return agent;
  };

  afterAll(async () => {
    for (const agent of started) await agent.stop();
  });

  describe('invoice agent', () => {
    let executor: InvoiceExecutor;
    let agent: SdkAgent;
    let client: A2AClient;

    beforeAll(async () => {
      executor = createInvoiceExecutor();
      agent = await start({ ...INVOICE_AGENT_CARD, executor, token: TOKEN });
      client = await clientFor(agent);
    });

    it('asks with the approval data part, risk in words, then pays once on approve', async () => {
      const first = await collect(
        client.sendStreamingMessage({
          message: createMessage({ parts: 'Pay invoice INV-42 (€3,000).' }),
        }),
      );
      expect(kinds(first)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'status:TASK_STATE_AUTH_REQUIRED',
      ]);
      expect(lastStatusParts(first).find((part) => part.data !== undefined)?.data).toEqual({
        approval: {
          action: 'pay-invoice',
          summary: 'Pay invoice INV-42 (€3,000) to ACME GmbH',
          preview: expect.stringContaining('Amount: €3,000'),
          risk: 'Money leaves the company account',
        },
      });
      const taskId = taskIdOf(first);
      const second = await collect(
        client.sendStreamingMessage({
          message: createMessage({
            taskId,
            parts: [textPart('Approved.'), dataPart({ approvalDecision: { decision: 'approve' } })],
          }),
        }),
      );
      // The SDK makes every turn begin with the task: it still shows the request.
      expect(kinds(second)).toEqual([
        'task:TASK_STATE_AUTH_REQUIRED',
        'status:TASK_STATE_WORKING',
        'artifact:result:new:last',
        'status:TASK_STATE_COMPLETED',
      ]);
      expect(executor.payments).toEqual([
        expect.objectContaining({ taskId, invoice: 'INV-42', amount: '€3,000' }),
      ]);
      expect(executor.decisions.at(-1)).toMatchObject({ decision: 'approve', from: 'data' });
    });

    it('does not pay on deny, and ends REJECTED with the reason', async () => {
      const before = executor.payments.length;
      const first = await collect(
        client.sendStreamingMessage({ message: createMessage({ parts: 'Pay invoice INV-43' }) }),
      );
      const second = await collect(
        client.sendStreamingMessage({
          message: createMessage({
            taskId: taskIdOf(first),
            parts: [
              textPart('Denied. wrong supplier'),
              dataPart({ approvalDecision: { decision: 'deny', instructions: 'wrong supplier' } }),
            ],
          }),
        }),
      );
      expect(kinds(second).at(-1)).toBe('status:TASK_STATE_REJECTED');
      expect(partsText(lastStatusParts(second))).toBe(
        'Invoice INV-43 was not paid: wrong supplier.',
      );
      expect(executor.payments.length).toBe(before);
    });

    it('is refused without the bearer token; its card is public', async () => {
      const anonymous = new A2AClient({ url: `${agent.url}/a2a`, maxRetries: 0 });
      await expect(
        anonymous.sendMessage({ message: createMessage({ parts: 'Pay invoice INV-1' }) }),
      ).rejects.toMatchObject({ status: 401 });
      expect((await discoverAgentCard(agent.url)).name).toBe('invoices');
    });
  });

  it('the text-only invoice agent asks in one text part and pays on "Approved"', async () => {
    const executor = createInvoiceExecutor({ ask: 'text' });
    const agent = await start({ ...INVOICE_AGENT_CARD, executor, token: TOKEN });
    const client = await clientFor(agent);
    const first = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'Pay INV-7' }) }),
    );
    expect(lastStatusParts(first)).toEqual([
      expect.objectContaining({ text: 'Pay invoice INV-7 (€1,200) to ACME GmbH?' }),
    ]);
    await collect(
      client.sendStreamingMessage({
        message: createMessage({ taskId: taskIdOf(first), parts: 'Approved.' }),
      }),
    );
    expect(executor.payments).toHaveLength(1);
    expect(executor.decisions).toEqual([expect.objectContaining({ from: 'text' })]);
  });

  it('the question agent asks, then completes the same task with the answer', async () => {
    const executor = createQuestionExecutor();
    const agent = await start({ ...TRAVEL_AGENT_CARD, executor, token: TOKEN });
    const client = await clientFor(agent);
    const first = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'Book a hotel' }) }),
    );
    expect(kinds(first).at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    expect(partsText(lastStatusParts(first))).toBe('Which city should I book?');
    const taskId = taskIdOf(first);
    const second = await collect(
      client.sendStreamingMessage({ message: createMessage({ taskId, parts: 'Lisbon' }) }),
    );
    expect(kinds(second)).toEqual([
      'task:TASK_STATE_INPUT_REQUIRED',
      'status:TASK_STATE_WORKING',
      'artifact:result:new:last',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(executor.answers).toEqual([expect.objectContaining({ taskId, text: 'Lisbon' })]);
    expect(agent.requests.map((request) => request.isContinuation)).toEqual([false, true]);
    expect(agent.requests[1]?.taskState).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  describe('shapes agent', () => {
    let agent: SdkAgent;
    let client: A2AClient;

    beforeAll(async () => {
      agent = await start({ ...SHAPES_AGENT_CARD, executor: createShapesExecutor() });
      client = await clientFor(agent);
    });

    /** One turn with the skill the fleet's node input would name. */
    const turn = (shape: ReplyShape): AsyncIterable<StreamResponse> =>
      client.sendStreamingMessage({
        message: createMessage({
          parts: [
            textPart('Do it.'),
            dataPart({ fleet: { sessionId: 's', nodeId: 'n', skill: SHAPE_SKILLS[shape].id } }),
          ],
        }),
      });

    it('answers with one Message', async () => {
      const events = await collect(turn('message'));
      expect(kinds(events)).toEqual(['message']);
      const [only] = events;
      expect(only !== undefined && 'message' in only && partsText(only.message.parts)).toBe(
        SHAPE_TEXTS.message,
      );
    });

    it('streams one artifact in chunks', async () => {
      expect(kinds(await collect(turn('chunked')))).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'artifact:result:new:more',
        'artifact:result:append:more',
        'artifact:result:append:more',
        'artifact:result:append:last',
        'status:TASK_STATE_COMPLETED',
      ]);
    });

    it('sends several artifacts', async () => {
      expect(kinds(await collect(turn('artifacts')))).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'artifact:highlights:new:last',
        'artifact:risks:new:last',
        'status:TASK_STATE_COMPLETED',
      ]);
    });

    it.each([
      ['failed', 'TASK_STATE_FAILED'],
      ['rejected', 'TASK_STATE_REJECTED'],
      ['canceled', 'TASK_STATE_CANCELED'],
    ] as const)('ends %s with a status message', async (shape, state) => {
      const events = await collect(turn(shape));
      expect(kinds(events).at(-1)).toBe(`status:${state}`);
      expect(partsText(lastStatusParts(events))).toBe(SHAPE_TEXTS[shape]);
    });

    it('never sends a final state: the stream ends WORKING and the task stays so', async () => {
      const events: StreamResponse[] = [];
      const ended = collectInto(events, turn('never-final'));
      // The fleet's client says the stream ended early; the events before are what the agent sent.
      await expect(ended).rejects.toMatchObject({ name: 'StreamInterruptedError' });
      expect(kinds(events)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'status:TASK_STATE_WORKING',
      ]);
      const task = await client.getTask({ id: taskIdOf(events) });
      expect(task.status.state).toBe('TASK_STATE_WORKING');
    });

    it('picks the shape from the text when no skill is named', async () => {
      const events = await collect(
        client.sendStreamingMessage({
          message: createMessage({ parts: 'Issue a refund for order 7' }),
        }),
      );
      expect(kinds(events).at(-1)).toBe('status:TASK_STATE_REJECTED');
    });
  });

  it('serves /healthz unless told not to', async () => {
    const withHealth = await start({ ...TRAVEL_AGENT_CARD, executor: createQuestionExecutor() });
    const without = await start({
      ...TRAVEL_AGENT_CARD,
      executor: createQuestionExecutor(),
      healthz: false,
    });
    expect((await fetch(`${withHealth.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${without.url}/healthz`)).status).toBe(404);
  });
});
