import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import {
  approvalRequestSchema,
  createMessage,
  RESULT_ARTIFACT_NAME,
  type Part,
  type Task,
} from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { codeErrorDataSchema, codeProposalSchema, codeResultDataSchema } from './agent';
import { CODE_INSTRUCTIONS } from './authoring';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox';
import {
  bootCodeAgent,
  decisionParts,
  nodeParts,
  type RunningCodeAgent,
} from './test-support/boot-code-agent';
import { countRuns } from './test-support/count-runs';
import {
  decodePng,
  MONTHLY_CHART_PROGRAM,
  MONTHLY_TOTALS,
  SALES_CSV,
} from './test-support/sales-data';

const SLOW = 120_000;
const REDIS_URL = 'redis://127.0.0.1:6379';

function fenced(code: string): string {
  return `\`\`\`python\n${code}\n\`\`\``;
}

function filePart(filename: string, content: string | Buffer, mediaType?: string): Part {
  return {
    raw: Buffer.from(content).toString('base64'),
    filename,
    ...(mediaType === undefined ? {} : { mediaType }),
  };
}

async function send(agent: RunningCodeAgent, parts: Part[], taskId?: string): Promise<Task> {
  return (await agent.client.sendMessage({
    message: createMessage({ parts, ...(taskId === undefined ? {} : { taskId }) }),
  })) as Task;
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function statusData(task: Task): unknown[] {
  return (task.status.message?.parts ?? [])
    .filter((part) => part.data !== undefined)
    .map((part) => part.data);
}

function approvalOf(task: Task) {
  const found = statusData(task)
    .map((data) => approvalRequestSchema.safeParse(data))
    .find((parsed) => parsed.success);
  if (!found?.success) throw new Error(`no approval request in ${JSON.stringify(task.status)}`);
  return found.data.approval;
}

function proposalOf(task: Task) {
  const found = statusData(task)
    .map((data) => codeProposalSchema.safeParse(data))
    .find((parsed) => parsed.success);
  if (!found?.success) throw new Error(`no code proposal in ${JSON.stringify(task.status)}`);
  return found.data.codeProposal;
}

describe('code-agent service: the files of a step at /data', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  const prefix = `test:code-agent-data:${randomUUID()}`;
  const codeReplies: string[] = [];
  const agents: RunningCodeAgent[] = [];
  let offline: RunningCodeAgent;
  let offlineRuns: string[];
  let online: RunningCodeAgent;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI({
      respond: (recorded) => {
        const body = recorded.body as { messages?: { role: string; content: string }[] };
        if (body.messages?.[0]?.content.endsWith(CODE_INSTRUCTIONS) === true) {
          return { content: codeReplies.shift() ?? fenced('print("default program")') };
        }
        return { content: 'not a code request' };
      },
    });
    // The service's default limits: what a pandas and matplotlib program has to fit in.
    const sandbox = { limits: DEFAULT_SANDBOX_LIMITS, firstUid: 61850 };
    const dataLimits = { maxFiles: 3, maxTotalBytes: 64 * 1024 };
    offline = await bootCodeAgent({
      redis,
      keyPrefix: `${prefix}:offline`,
      sandbox,
      dataLimits,
      wrapSandbox: (inner) => {
        const counted = countRuns(inner);
        offlineRuns = counted.runs;
        return counted.sandbox;
      },
    });
    online = await bootCodeAgent({
      redis,
      keyPrefix: `${prefix}:online`,
      sandbox: { ...sandbox, firstUid: 61860 },
      dataLimits,
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'code-model',
      },
    });
    agents.push(offline, online);
  }, SLOW);

  beforeEach(() => {
    codeReplies.length = 0;
  });

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  it(
    'lists the files in the approval, runs pandas on /data/sales.csv and returns a PNG chart',
    async () => {
      const asked = await send(offline, [
        ...nodeParts({ task: `Chart the monthly sales.\n${fenced(MONTHLY_CHART_PROGRAM)}` }),
        filePart('sales.csv', SALES_CSV, 'text/csv'),
      ]);
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const approval = approvalOf(asked);
      expect(approval.summary).toContain(
        `It can read this file (read-only): /data/sales.csv (text/csv, ${SALES_CSV.length} bytes).`,
      );
      expect(statusText(asked)).toContain('/data/sales.csv (text/csv');
      const codeProposal = proposalOf(asked);
      expect(codeProposal.dataFiles).toEqual([
        {
          name: 'sales.csv',
          mediaType: 'text/csv',
          bytes: SALES_CSV.length,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ]);
      expect(offlineRuns).toHaveLength(0);

      const done = await send(offline, decisionParts('approve'), asked.id);
      expect(statusText(done)).toBe('Ran the program: exit code 0, 1 file(s) written.');
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      const artifact = done.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
      const data = codeResultDataSchema.parse(
        artifact?.parts.find((part) => part.data !== undefined)?.data,
      );
      expect(data.stdout).toContain(MONTHLY_TOTALS);
      expect(data.stdout).toMatch(/^\/data\/sales\.csv refused/m);
      expect(data.stdout).toMatch(/^\/data\/new\.txt refused/m);
      expect(data.dataFiles.map((file) => file.name)).toEqual(['sales.csv']);
      // The input does not come back; the chart does, and it decodes.
      const files = artifact?.parts.filter((part) => part.raw !== undefined) ?? [];
      expect(files.map((part) => [part.filename, part.mediaType])).toEqual([
        ['chart.png', 'image/png'],
      ]);
      const png = decodePng(Buffer.from(files[0]?.raw ?? '', 'base64'));
      expect(png.width).toBeGreaterThan(0);
      expect(png.height).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    'cleans a name like ../../etc/passwd to passwd before anyone approves',
    async () => {
      const asked = await send(offline, [
        ...nodeParts({ task: fenced('print(open("/data/passwd").read())') }),
        filePart('../../etc/passwd', 'mine'),
      ]);
      const codeProposal = proposalOf(asked);
      expect(codeProposal.dataFiles.map((file) => file.name)).toEqual(['passwd']);
      const done = await send(offline, decisionParts('approve'), asked.id);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      const artifact = done.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
      expect(
        codeResultDataSchema.parse(artifact?.parts.find((part) => part.data !== undefined)?.data)
          .stdout,
      ).toBe('mine\n');
    },
    SLOW,
  );

  it('refuses too many files and too many bytes with PAYLOAD_TOO_LARGE, and runs nothing', async () => {
    const before = offlineRuns.length;
    const many = await send(offline, [
      ...nodeParts({ task: fenced('print(1)') }),
      ...['a', 'b', 'c', 'd'].map((name) => filePart(`${name}.txt`, name)),
    ]);
    expect(many.status.state).toBe('TASK_STATE_REJECTED');
    expect(statusText(many)).toBe(
      'The step was given 4 files; the code agent takes at most 3 files for /data. Nothing was run.',
    );
    expect(codeErrorDataSchema.parse(statusData(many)[0])).toMatchObject({
      error: { code: 'PAYLOAD_TOO_LARGE', details: { files: 4, maxFiles: 3 } },
    });

    const large = await send(offline, [
      ...nodeParts({ task: fenced('print(1)') }),
      filePart('big.bin', Buffer.alloc(40 * 1024)),
      filePart('bigger.bin', Buffer.alloc(40 * 1024)),
    ]);
    expect(large.status.state).toBe('TASK_STATE_REJECTED');
    expect(statusText(large)).toBe(
      "The step's files hold 80 KiB; the code agent takes at most 64 KiB in all for /data. Nothing was run.",
    );
    expect(codeErrorDataSchema.parse(statusData(large)[0]).error.code).toBe('PAYLOAD_TOO_LARGE');

    const linked = await send(offline, [
      ...nodeParts({ task: fenced('print(1)') }),
      { url: 'http://127.0.0.1:1/sales.csv', filename: 'sales.csv' },
    ]);
    expect(linked.status.state).toBe('TASK_STATE_REJECTED');
    expect(codeErrorDataSchema.parse(statusData(linked)[0]).error.code).toBe('VALIDATION_FAILED');
    expect(statusText(linked)).toMatch(/does not fetch URLs/);
    expect(offlineRuns.length).toBe(before);
  });

  it(
    'tells the model which files are in /data: name, type, size and the CSV header',
    async () => {
      codeReplies.push(fenced('import pandas as pd\nprint(len(pd.read_csv("/data/sales.csv")))'));
      const seen = llm.requests.length;
      const asked = await send(online, [
        ...nodeParts({ task: 'How many sales rows are there?' }),
        filePart('sales.csv', SALES_CSV, 'text/csv'),
      ]);
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const body = llm.requests[seen]?.body as { messages: { role: string; content: string }[] };
      expect(body.messages[0]?.content).toContain('numpy, pandas and matplotlib');
      expect(body.messages[1]?.content).toContain(
        `Files given with the task, read-only in /data:\n- /data/sales.csv (text/csv, ${SALES_CSV.length} bytes); header: date,region,amount`,
      );
      const done = await send(online, decisionParts('approve'), asked.id);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      const artifact = done.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
      expect(
        codeResultDataSchema.parse(artifact?.parts.find((part) => part.data !== undefined)?.data)
          .stdout,
      ).toBe('5\n');
    },
    SLOW,
  );
});
