/**
 * Run files end to end within the orchestrator: a step's file parts kept in the file store
 * (in memory here), announced, recorded in the session and the result, linked in the answer; the
 * request's attachments kept, told to the planner and sent to the step that names them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  createMessage,
  dataPart,
  findData,
  planRequestSchema,
  runFileContentPath,
  textPart,
  type Part,
  type Plan,
  type PlanRequest,
  type ProgressEvent,
  type RunFileStore,
  type StreamResponse,
} from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import type { RunningServer } from '@fleet/http';
import {
  CHART_AGENT_CARD,
  createChartExecutor,
  createMemoryRunFileStore,
  encodePng,
  startScriptedAgent,
  startSdkAgent,
  type MemoryRunFileStore,
  type SdkAgent,
  type ScriptedAgent,
} from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-run-files:${randomUUID()}:`;

const CHART_PLAN: Plan = {
  nodes: [{ id: 'chart', agent: 'chart-studio', task: 'Draw the sales chart', dependsOn: [] }],
  rationale: 'a chart',
  confidence: 0.9,
};

const SALES_CSV = 'month,sales\nJan,10\nFeb,20\n';

/** Sends a request with file parts beside its text and `{ fleet }` data part; reads it to the end. */
async function orchestrateWith(
  orchestrator: TestOrchestrator,
  { text, fleet, files }: { text: string; fleet: Record<string, unknown>; files: Part[] },
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of orchestrator.client.sendStreamingMessage({
    message: createMessage({ parts: [textPart(text), dataPart({ fleet }), ...files] }),
  })) {
    events.push(event);
  }
  return events;
}

describe('run files (real Redis, real A2A agents, in-memory file store)', () => {
  let redis: Redis;
  let chart: SdkAgent;
  let coder: ScriptedAgent;
  let mail: ScriptedAgent;
  let planner: RunningServer;
  let store: MemoryRunFileStore;
  let storeDown = false;
  let orchestrator: TestOrchestrator;
  let runFiles: NonNullable<Parameters<typeof startTestOrchestrator>[0]['runFiles']>;
  const planRequests: PlanRequest[] = [];

  /** An orchestrator on the suite's Redis prefix, agents, planner and file store. */
  const startOrchestrator = () =>
    startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [chart.url, coder.url, mail.url],
      plannerUrl: planner.url,
      runFiles,
    });

  /** Runs the one-step chart plan for `acme` to the end; it completes. */
  async function chartTheSales() {
    const events = await orchestrate(orchestrator.client, {
      text: 'chart the sales',
      fleet: { tenant: 'acme', plan: CHART_PLAN },
    }).done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    return { events, outcome };
  }

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    // An agent outside the fleet: its picture comes in an artifact named `chart`, not `result`.
    chart = await startSdkAgent({
      ...CHART_AGENT_CARD,
      executor: createChartExecutor(),
      token: TEST_TOKEN,
    });
    coder = await startScriptedAgent({
      name: 'coder',
      internalToken: TEST_TOKEN,
      skills: [{ id: 'run-python', name: 'Run Python', tags: ['code', 'python'] }],
      reply: { text: 'The total is 30.' },
    });
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the chart to Bob' } },
    });
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request !== undefined) planRequests.push(request);
        const plan: Plan = {
          nodes: [
            {
              id: 'total',
              agent: 'coder',
              task: 'Add up the sales',
              dependsOn: [],
              files: (request?.files ?? []).map((file) => file.name),
            },
          ],
          rationale: 'code on the attached data',
          confidence: 0.9,
        };
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart('plan'), dataPart({ plan, source: 'llm', attempts: 1 })],
            },
          },
        ];
      }),
    });
    store = createMemoryRunFileStore();
    const switchable: RunFileStore = {
      put: (input) =>
        storeDown
          ? Promise.reject(new ServiceUnavailableError('the file store is not answering'))
          : store.put(input),
      get: (input) => store.get(input),
      info: (input) => store.info(input),
      list: (input) => store.list(input),
      remove: (input) => store.remove(input),
    };
    runFiles = {
      store: switchable,
      limits: {
        maxFileBytes: 1024 * 1024,
        maxRunFiles: 4,
        maxRunBytes: 4 * 1024 * 1024,
        ttlSeconds: 600,
      },
    };
    orchestrator = await startOrchestrator();
  });

  afterAll(async () => {
    await orchestrator.close();
    await Promise.all([chart.stop(), coder.close(), mail.close(), planner.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('keeps a foreign agent’s chart, lists it in the events, result and session, and shows it in the answer', async () => {
    const { events, outcome } = await chartTheSales();
    const files = outcome.result?.files ?? [];
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file).toMatchObject({
      name: 'sales chart.png',
      mediaType: 'image/png',
      source: 'step',
      nodeId: 'chart',
      agent: 'chart-studio',
      sessionId: outcome.result?.sessionId,
    });
    expect(outcome.result?.nodes[0]?.files).toEqual([file?.id]);
    const kept = store.stored.find((entry) => entry.file.id === file?.id);
    expect(kept?.tenant).toBe('acme');
    expect(kept?.bytes.subarray(0, 8)).toEqual(encodePng({ width: 1, height: 1 }).subarray(0, 8));
    // The event comes before the step's end.
    const progress = readStream(events).progress;
    const ready = progress.findIndex((event) => event.type === 'file-ready');
    const ended = progress.findIndex((event) => event.type === 'node-end');
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(ready).toBeLessThan(ended);
    expect(outcome.answer).toContain(`![sales chart.png](${runFileContentPath(file?.id ?? '')})`);
    const session = await orchestrator.sessions.get(outcome.result?.sessionId ?? '');
    expect(session?.files?.map((entry) => entry.id)).toEqual([file?.id]);
    expect(session?.nodes['chart']?.files).toEqual([file?.id]);

    // A resume of the completed session answers with the same files.
    const resumed = outcomeOf(
      await orchestrate(orchestrator.client, {
        text: 'resume',
        fleet: { tenant: 'acme', resumeSessionId: outcome.result?.sessionId },
      }).done,
    );
    expect(resumed.result?.files).toEqual(files);
    expect(resumed.result?.nodes[0]?.files).toEqual([file?.id]);
  });

  it('completes the step when the file store is down, and says why its file was not kept', async () => {
    storeDown = true;
    try {
      const { events, outcome } = await chartTheSales();
      expect(outcome.result?.state).toBe('completed');
      expect(outcome.result?.files).toBeUndefined();
      expect(readStream(events).progress).toContainEqual({
        type: 'file-refused',
        nodeId: 'chart',
        agent: 'chart-studio',
        name: 'sales chart.png',
        reason: 'the file store could not keep it: the file store is not answering',
      });
      expect(outcome.answer).not.toContain('/v1/files/');
    } finally {
      storeDown = false;
    }
  });

  it('keeps the request’s attachments, tells the planner of them and sends them to the step that names them', async () => {
    const events = await orchestrateWith(orchestrator, {
      text: 'what is the total of the attached sales?',
      fleet: { tenant: 'acme' },
      files: [
        {
          raw: Buffer.from(SALES_CSV).toString('base64'),
          filename: 'sales.csv',
          mediaType: 'text/csv',
        },
        {
          raw: Buffer.from('MZ').toString('base64'),
          filename: 'tool.exe',
          mediaType: 'application/x-msdownload',
        },
      ],
    });
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(planRequests.at(-1)?.files).toEqual([
      { name: 'sales.csv', mediaType: 'text/csv', size: Buffer.byteLength(SALES_CSV) },
    ]);
    const sent = coder.requests.find(
      (request) => request.nodeInput?.sessionId === outcome.result?.sessionId,
    );
    const filePart = sent?.message.parts.find((part) => part.raw !== undefined);
    expect(filePart?.filename).toBe('sales.csv');
    expect(filePart?.mediaType).toBe('text/csv');
    expect(Buffer.from(filePart?.raw ?? '', 'base64').toString('utf8')).toBe(SALES_CSV);
    expect(outcome.result?.files?.map((file) => [file.name, file.source])).toEqual([
      ['sales.csv', 'attachment'],
    ]);
    expect(readStream(events).progress).toContainEqual(
      expect.objectContaining({ type: 'file-refused', name: 'tool.exe' }),
    );
    // An attachment is the user's own: the answer does not link it back.
    expect(outcome.answer).not.toContain('/v1/files/');
    const session = await orchestrator.sessions.get(outcome.result?.sessionId ?? '');
    expect(session?.files?.map((file) => file.name)).toEqual(['sales.csv']);
  });

  it('still lists and links a step’s file after the orchestrator restarted mid-run', async () => {
    const plan: Plan = {
      nodes: [
        { id: 'chart', agent: 'chart-studio', task: 'Draw the sales chart', dependsOn: [] },
        { id: 'send', agent: 'mail', task: 'Mail the chart to Bob', dependsOn: ['chart'] },
      ],
      rationale: 'chart, then mail',
      confidence: 0.9,
    };
    const first = await startOrchestrator();
    const running = orchestrate(first.client, {
      text: 'chart the sales and mail it',
      fleet: { tenant: 'acme', plan },
    });
    const asked = await running.waitFor(
      (event): event is Extract<ProgressEvent, { type: 'approval-required' }> =>
        event.type === 'approval-required',
    );
    const ready = readStream(running.events).progress.find((event) => event.type === 'file-ready');
    const file = ready?.type === 'file-ready' ? ready.file : undefined;
    expect(file?.name).toBe('sales chart.png');
    await first.close();
    await running.done;
    const sessionId = file?.sessionId ?? '';
    const keptBefore = store.stored.length;

    const second = await startOrchestrator();
    try {
      await second.sessions.decideApproval({
        sessionId,
        approvalId: asked.approvalId,
        tenant: 'acme',
        decision: 'approve',
      });
      const outcome = outcomeOf(
        await orchestrate(second.client, {
          text: 'resume',
          fleet: { tenant: 'acme', resumeSessionId: sessionId },
        }).done,
      );
      expect(outcome.state).toBe('TASK_STATE_COMPLETED');
      expect(outcome.result?.files).toEqual([file]);
      expect(outcome.result?.nodes.find((node) => node.id === 'chart')?.files).toEqual([file?.id]);
      expect(outcome.answer).toContain(`![sales chart.png](${runFileContentPath(file?.id ?? '')})`);
      // Nothing was kept twice.
      expect(store.stored).toHaveLength(keptBefore);
    } finally {
      await second.close();
    }
  });
});
