import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import {
  approvalRequestSchema,
  createMessage,
  RESULT_ARTIFACT_NAME,
  type AgentCard,
  type Part,
  type Task,
} from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { pendingToolCallsSchema } from './agent';
import { defaultFilesystemServer } from './servers';
import {
  bootToolsAgent,
  decisionParts,
  nodeParts,
  type RunningToolsAgent,
} from './test-support/boot-tools-agent';
import {
  crashingServer,
  everythingServer,
  growingServer,
  memoryServer,
} from './test-support/mcp-servers';

const SLOW = 60_000;

function resultOf(task: Task): { text: string | undefined; data: unknown[]; files: Part[] } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text,
    data: artifact?.parts.filter((part) => part.data !== undefined).map((part) => part.data) ?? [],
    files: artifact?.parts.filter((part) => part.raw !== undefined || part.url !== undefined) ?? [],
  };
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function statusData(task: Task): unknown[] {
  return (task.status.message?.parts ?? []).flatMap((part) =>
    part.data === undefined ? [] : [part.data],
  );
}

function approvalOf(task: Task) {
  for (const data of statusData(task)) {
    const parsed = approvalRequestSchema.safeParse(data);
    if (parsed.success) return parsed.data.approval;
  }
  throw new Error(`no approval request in ${JSON.stringify(task.status)}`);
}

function skill(card: AgentCard, id: string) {
  const found = card.skills.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no skill ${id} on the card`);
  return found;
}

async function send(agent: RunningToolsAgent, parts: Part[], taskId?: string): Promise<Task> {
  return (await agent.client.sendMessage({
    message: createMessage({ parts, ...(taskId === undefined ? {} : { taskId }) }),
  })) as Task;
}

function memoryNames(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; name?: string })
    .filter((entry) => entry.type === 'entity')
    .map((entry) => entry.name ?? '');
}

describe('the tools agent on real MCP servers (stdio)', () => {
  let redis: Redis;
  let agent: RunningToolsAgent;
  let documents: string;
  let memoryFile: string;
  const prefix = `test:tools-agent:${randomUUID()}`;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    const work = mkdtempSync(path.join(tmpdir(), 'tools-agent-test-'));
    documents = path.join(work, 'documents');
    mkdirSync(documents);
    writeFileSync(path.join(documents, 'notes.txt'), 'The launch is on Tuesday.\n');
    memoryFile = path.join(work, 'memory.jsonl');
    agent = await bootToolsAgent({
      redis,
      keyPrefix: `${prefix}:offline`,
      servers: new Map([
        ['filesystem', defaultFilesystemServer(documents)],
        ['memory', memoryServer(memoryFile)],
        ['everything', everythingServer()],
      ]),
    });
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lists every tool as a skill tagged with its server, approval and hints', async () => {
    const card = await discoverAgentCard(agent.url);
    expect(card.name).toBe('tools-agent');
    const read = skill(card, 'filesystem/read_text_file');
    expect(read.tags).toEqual(['mcp', 'mcp-server:filesystem', 'approval:none', 'read-only']);
    expect(read.name).toBe('Read Text File');
    const write = skill(card, 'filesystem/write_file');
    expect(write.tags).toEqual([
      'mcp',
      'mcp-server:filesystem',
      'approval:required',
      'destructive',
    ]);
    expect(skill(card, 'memory/create_entities').tags).toEqual([
      'mcp',
      'mcp-server:memory',
      'approval:required',
    ]);
    expect(skill(card, 'memory/delete_entities').tags).toContain('destructive');
    expect(skill(card, 'memory/read_graph').tags).toContain('approval:none');
    expect(card.skills.filter((entry) => entry.id.startsWith('memory/'))).toHaveLength(9);
    const availability = card.capabilities.extensions?.find((entry) =>
      entry.uri.includes('availability'),
    );
    expect(availability?.params).toEqual({ state: 'ready' });
  });

  it(
    'runs a read-only tool of a trusted server at once, with its structured output as data',
    async () => {
      const file = path.join(documents, 'notes.txt');
      const done = await send(
        agent,
        nodeParts({ text: `filesystem/read_text_file ${JSON.stringify({ path: file })}` }),
      );
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      const result = resultOf(done);
      expect(result.text).toBe('The launch is on Tuesday.\n');
      expect(result.data).toEqual([{ content: 'The launch is on Tuesday.\n' }]);
      expect(agent.calls.get('filesystem/read_text_file')).toBe(1);
    },
    SLOW,
  );

  it(
    'asks before a write, calls it once when approved, and never again',
    async () => {
      const entity = {
        name: 'Ada',
        entityType: 'person',
        observations: ['wrote the first program'],
      };
      const asked = await send(
        agent,
        nodeParts({
          text: `Remember: memory/create_entities ${JSON.stringify({ entities: [entity] })}`,
        }),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const approval = approvalOf(asked);
      expect(approval).toMatchObject({ action: 'call-tool', risk: 'medium' });
      expect(approval.preview).toBe(
        `Server: memory\nTool: create_entities\nArguments:\n${JSON.stringify({ entities: [entity] }, null, 2)}`,
      );
      expect(Date.parse(approval.expiresAt ?? '')).toBeGreaterThan(Date.now());
      expect(statusData(asked).some((data) => pendingToolCallsSchema.safeParse(data).success)).toBe(
        true,
      );
      expect(agent.calls.get('memory/create_entities')).toBeUndefined();
      expect(memoryNames(memoryFile)).not.toContain('Ada');

      // Two approvals at once: one call.
      const [first, second] = await Promise.allSettled([
        send(agent, decisionParts('approve'), asked.id),
        send(agent, decisionParts('approve'), asked.id),
      ]);
      const done = [first, second].find(
        (settled): settled is PromiseFulfilledResult<Task> =>
          settled.status === 'fulfilled' && settled.value.status.state === 'TASK_STATE_COMPLETED',
      );
      expect(done).toBeDefined();
      expect(agent.calls.get('memory/create_entities')).toBe(1);
      expect(memoryNames(memoryFile)).toEqual(['Ada']);
      expect(resultOf(done?.value as Task).data).toEqual([{ entities: [entity] }]);
      // A later approval is refused: the task is over, and nothing is sent again.
      await expect(send(agent, decisionParts('approve'), asked.id)).rejects.toThrow(
        /takes no more messages/,
      );
      expect(agent.calls.get('memory/create_entities')).toBe(1);
    },
    SLOW,
  );

  it(
    'sends nothing when a destructive call is denied',
    async () => {
      await send(
        agent,
        nodeParts({
          text: `memory/create_entities ${JSON.stringify({ entities: [{ name: 'Grace', entityType: 'person', observations: [] }] })}`,
        }),
      ).then((asked) => send(agent, decisionParts('approve'), asked.id));
      expect(memoryNames(memoryFile)).toContain('Grace');
      const asked = await send(
        agent,
        nodeParts({ text: `memory/delete_entities {"entityNames": ["Grace"]}` }),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(approvalOf(asked).risk).toBe('high');
      const denied = await send(agent, decisionParts('deny', 'keep her'), asked.id);
      expect(denied.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(denied)).toBe('Denied: keep her. Nothing was sent to the MCP server.');
      expect(agent.calls.get('memory/delete_entities')).toBeUndefined();
      expect(memoryNames(memoryFile)).toContain('Grace');
    },
    SLOW,
  );

  it(
    'refuses arguments that do not fit the input schema before calling',
    async () => {
      const failed = await send(
        agent,
        nodeParts({ text: 'filesystem/read_text_file {"path": 7}' }),
      );
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(failed)).toMatch(
        /^The arguments for filesystem\/read_text_file do not fit its input schema \(path\): path: must be string/,
      );
      expect(statusData(failed)[0]).toMatchObject({
        error: { code: 'VALIDATION_FAILED', details: { fields: ['path'] } },
      });
      expect(agent.calls.get('filesystem/read_text_file') ?? 0).toBeLessThanOrEqual(1);
      const before = agent.calls.get('filesystem/read_text_file') ?? 0;
      await send(agent, nodeParts({ text: 'filesystem/read_text_file {"file": "x"}' }));
      expect(agent.calls.get('filesystem/read_text_file') ?? 0).toBe(before);
    },
    SLOW,
  );

  it(
    "fails with the tool's own words when it answers isError",
    async () => {
      const failed = await send(
        agent,
        nodeParts({ text: 'filesystem/read_text_file {"path": "/etc/hostname"}' }),
      );
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(failed)).toMatch(
        /^filesystem\/read_text_file failed: .*(Access denied|outside allowed)/,
      );
    },
    SLOW,
  );

  it(
    'maps structured content to a data part and images to file parts',
    async () => {
      const weather = await send(
        agent,
        nodeParts({ text: 'everything/get-structured-content {"location": "Chicago"}' }),
      );
      expect(weather.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultOf(weather).data).toEqual([
        { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
      ]);
      const image = await send(agent, nodeParts({ text: 'everything/get-tiny-image {}' }));
      expect(image.status.state).toBe('TASK_STATE_COMPLETED');
      const [file] = resultOf(image).files;
      expect(file).toMatchObject({
        mediaType: 'image/png',
        metadata: { tool: 'everything/get-tiny-image' },
      });
      expect(
        Buffer.from(file?.raw ?? '', 'base64')
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    },
    SLOW,
  );

  it(
    'refuses a tool the tool policy does not permit and sends nothing',
    async () => {
      const refused = await send(
        agent,
        nodeParts({ text: 'memory/read_graph {}', toolPolicy: { deny: ['memory/*'] } }),
      );
      expect(refused.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(refused)).toBe(
        'The tool policy of this request does not permit the tool memory/read_graph, so nothing was sent to its MCP server.',
      );
      expect(agent.calls.get('memory/read_graph')).toBeUndefined();
      const bySkill = await send(
        agent,
        nodeParts({
          text: 'read it',
          skill: 'memory/read_graph',
          toolPolicy: { allow: ['filesystem/*'] },
        }),
      );
      expect(bySkill.status.state).toBe('TASK_STATE_REJECTED');
      expect(agent.calls.get('memory/read_graph')).toBeUndefined();
    },
    SLOW,
  );

  it(
    'says exactly what is needed when an offline step gives no arguments',
    async () => {
      const failed = await send(agent, nodeParts({ text: 'Please use memory/create_entities.' }));
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(failed)).toBe(
        'To call memory/create_entities, give its arguments as a JSON object in the step. Required: entities (array). Example: memory/create_entities {"entities":"…"}',
      );
      const unnamed = await send(agent, nodeParts({ text: 'Tidy up my files.' }));
      expect(unnamed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(unnamed)).toMatch(
        /^No LLM is configured, so the step must name the tool to call as "<server>\/<tool>" and give its arguments as a JSON object/,
      );
      expect(agent.calls.get('memory/create_entities')).toBe(2);
    },
    SLOW,
  );
});

describe('the tools agent with a model', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let agent: RunningToolsAgent;
  let memoryFile: string;
  const prefix = `test:tools-agent-llm:${randomUUID()}`;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI();
    memoryFile = path.join(mkdtempSync(path.join(tmpdir(), 'tools-agent-llm-')), 'memory.jsonl');
    agent = await bootToolsAgent({
      redis,
      keyPrefix: prefix,
      servers: new Map([['memory', memoryServer(memoryFile)]]),
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'tools-model',
      },
    });
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it(
    'lets the model pick permitted tools and arguments, and answers with its words',
    async () => {
      llm.enqueue(
        { toolCalls: [{ id: 'c1', name: 'memory__read_graph', arguments: {} }] },
        { content: 'The graph is empty.' },
      );
      const before = llm.requests.length;
      const done = await send(
        agent,
        nodeParts({ text: 'What do you remember?', toolPolicy: { deny: ['memory/delete_*'] } }),
      );
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(statusText(done)).toBe('The graph is empty.');
      expect(resultOf(done).data).toEqual([{ entities: [], relations: [] }]);
      const body = llm.requests[before]?.body as { tools: { function: { name: string } }[] };
      const offered = body.tools.map((tool) => tool.function.name);
      expect(offered).toContain('memory__read_graph');
      expect(offered).not.toContain('memory__delete_entities');
      expect(offered).not.toContain('memory__delete_relations');
    },
    SLOW,
  );

  it(
    'asks again when approval instructions make the model change the arguments',
    async () => {
      const entity = (name: string) => ({ name, entityType: 'city', observations: [] });
      llm.enqueue({
        toolCalls: [
          { id: 'c1', name: 'memory__create_entities', arguments: { entities: [entity('Pari')] } },
        ],
      });
      const asked = await send(agent, nodeParts({ text: 'Remember the city Paris.' }));
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(approvalOf(asked).preview).toContain('"Pari"');
      llm.enqueue({
        toolCalls: [
          { id: 'c2', name: 'memory__create_entities', arguments: { entities: [entity('Paris')] } },
        ],
      });
      const again = await send(agent, decisionParts('approve', 'It is spelled Paris.'), asked.id);
      expect(again.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(approvalOf(again).preview).toContain('"Paris"');
      expect(agent.calls.get('memory/create_entities')).toBeUndefined();
      const done = await send(agent, decisionParts('approve'), asked.id);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(memoryNames(memoryFile)).toEqual(['Paris']);
    },
    SLOW,
  );
});

describe('the tools agent card', () => {
  let redis: Redis;
  const prefix = `test:tools-agent-card:${randomUUID()}`;

  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it(
    'follows a server that changes its tools, and names a server that failed to start',
    async () => {
      const agent = await bootToolsAgent({
        redis,
        keyPrefix: prefix,
        servers: new Map([
          ['growing', growingServer()],
          ['broken', { command: process.execPath, args: ['-e', 'process.exit(3)'] }],
        ]),
      });
      try {
        const before = await discoverAgentCard(agent.url);
        expect(before.skills.map((entry) => entry.id)).toEqual(['growing/grow']);
        const availability = before.capabilities.extensions?.find((entry) =>
          entry.uri.includes('availability'),
        )?.params as { state: string; reason: string };
        expect(availability.state).toBe('degraded');
        expect(availability.reason).toContain('"broken"');
        const grown = await send(agent, nodeParts({ text: 'growing/grow {}' }));
        expect(grown.status.state).toBe('TASK_STATE_COMPLETED');
        const deadline = Date.now() + 5000;
        let ids: string[] = [];
        while (Date.now() < deadline) {
          ids = (await discoverAgentCard(agent.url)).skills.map((entry) => entry.id);
          if (ids.length > 1) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(ids).toEqual(['growing/grow', 'growing/grown_1']);
      } finally {
        await agent.close();
      }
    },
    SLOW,
  );
});

describe('the tools agent when a server dies during a call', () => {
  let redis: Redis;
  let agent: RunningToolsAgent;
  let countsFile: string;
  const prefix = `test:tools-agent-crash:${randomUUID()}`;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    countsFile = path.join(mkdtempSync(path.join(tmpdir(), 'tools-agent-crash-')), 'counts.json');
    agent = await bootToolsAgent({
      redis,
      keyPrefix: prefix,
      servers: new Map([['crashing', crashingServer(countsFile)]]),
    });
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const counts = (): Record<string, number> =>
    existsSync(countsFile)
      ? (JSON.parse(readFileSync(countsFile, 'utf8')) as Record<string, number>)
      : {};

  it(
    'calls a read-only tool once more after the crash',
    async () => {
      const done = await send(agent, nodeParts({ text: 'crashing/flaky_read {}' }));
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultOf(done).text).toBe('read after 2 tries');
      expect(counts()['flaky_read']).toBe(2);
    },
    SLOW,
  );

  it(
    'never calls a non-idempotent tool again, and says the outcome is unknown',
    async () => {
      const failed = await send(agent, nodeParts({ text: 'crashing/flaky_write {}' }));
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(failed)).toMatch(
        /^crashing\/flaky_write was sent, but its outcome is unknown: .* it is not called again/,
      );
      expect(counts()['flaky_write']).toBe(1);
    },
    SLOW,
  );
});
