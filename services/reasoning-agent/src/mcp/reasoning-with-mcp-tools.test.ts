import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import {
  createMessage,
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type Task,
} from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { reasoningResultDataSchema, type ReasoningResultData } from '../agent';
import {
  bootReasoningAgent,
  type RunningReasoningAgent,
} from '../test-support/boot-reasoning-agent';
import { createMcpToolbox, type McpToolbox } from './create-mcp-toolbox';

const REDIS_URL = 'redis://127.0.0.1:6379';

interface RequestBody {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string; parameters: Record<string, unknown> } }[];
}

const GRAPH = [
  {
    type: 'entity',
    name: 'Ada Lovelace',
    entityType: 'person',
    observations: ['wrote the first published program'],
  },
  { type: 'entity', name: 'Analytical Engine', entityType: 'machine', observations: [] },
  { type: 'relation', from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' },
];

function resultOf(task: Task): { text: string; data: ReasoningResultData } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text ?? '',
    data: reasoningResultDataSchema.parse(
      artifact?.parts.find((part) => part.data !== undefined)?.data,
    ),
  };
}

describe('the reasoning agent with MCP tools (server-memory over stdio)', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let toolbox: McpToolbox;
  let agent: RunningReasoningAgent;
  let directory: string;
  let memoryFile: string;
  const prefix = `test:reasoning-mcp:${randomUUID()}`;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'reasoning-agent-mcp-'));
    memoryFile = join(directory, 'memory.jsonl');
    writeFileSync(memoryFile, GRAPH.map((line) => JSON.stringify(line)).join('\n'));
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI();
    toolbox = createMcpToolbox({
      servers: new Map([
        [
          'memory',
          {
            command: process.execPath,
            args: [
              join(
                dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
                'dist',
                'index.js',
              ),
            ],
            env: { MEMORY_FILE_PATH: memoryFile },
            trustAnnotations: true,
          },
        ],
      ]),
    });
    agent = await bootReasoningAgent({
      redis,
      keyPrefix: prefix,
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'reasoning-model',
      },
      mcpTools: toolbox,
    });
  });

  beforeEach(() => {
    llm.requests.length = 0;
  });

  afterAll(async () => {
    await agent?.close();
    await toolbox?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    rmSync(directory, { recursive: true, force: true });
  });

  async function send(parts: Part[]): Promise<Task> {
    return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
  }

  function offered(index: number): string[] {
    return ((llm.requests[index]?.body as RequestBody).tools ?? []).map(
      (tool) => tool.function.name,
    );
  }

  it('offers the read-only tools beside the built-in ones, calls one and feeds its result back', async () => {
    llm.enqueue(
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'mcp__memory__search_nodes',
            arguments: { query: 'Analytical Engine' },
          },
        ],
      },
      { content: 'Ada Lovelace programmed the Analytical Engine.' },
    );
    const task = await send([textPart('Who programmed the Analytical Engine?')]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    const names = offered(0);
    expect(names.slice(0, 3)).toEqual(['calculate', 'current_time', 'date_diff']);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp__memory__read_graph',
        'mcp__memory__search_nodes',
        'mcp__memory__open_nodes',
      ]),
    );
    expect(names).not.toContain('mcp__memory__create_entities');
    expect(names).not.toContain('mcp__memory__delete_entities');
    const search = (llm.requests[0]?.body as RequestBody).tools?.find(
      (tool) => tool.function.name === 'mcp__memory__search_nodes',
    );
    expect(search?.function.parameters).toMatchObject({
      type: 'object',
      required: ['query'],
    });

    const fedBack = (llm.requests[1]?.body as RequestBody).messages.at(-1);
    expect(fedBack?.role).toBe('tool');
    expect(fedBack?.tool_call_id).toBe('c1');
    expect(fedBack?.content).toContain('"name": "Analytical Engine"');
    expect(fedBack?.content).toContain('"from": "Ada Lovelace"');
    expect(fedBack?.content).toContain('"relationType": "programmed"');

    const { text, data } = resultOf(task);
    expect(text).toBe('Ada Lovelace programmed the Analytical Engine.');
    expect(data.toolCalls).toEqual([
      expect.objectContaining({ name: 'mcp__memory__search_nodes', ok: true }),
    ]);
  });

  it("offers no tool the gateway's tool policy denies", async () => {
    llm.enqueue({ content: 'I cannot search the graph.' });
    const task = await send([
      textPart('Who programmed the Analytical Engine?'),
      dataPart({ reasoning: { history: [], toolPolicy: { deny: ['memory/search_*'] } } }),
    ]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(offered(0)).toContain('mcp__memory__read_graph');
    expect(offered(0)).not.toContain('mcp__memory__search_nodes');
    expect(offered(0)).toContain('calculate');
  });

  it("offers only what the orchestrator's tool policy allows", async () => {
    llm.enqueue({ content: 'Done.' });
    const task = await send([
      textPart('Open the node "Ada Lovelace".'),
      dataPart({
        fleet: {
          sessionId: 's1',
          nodeId: 'reasoning-agent-1',
          tenant: 'acme',
          toolPolicy: { allow: ['memory/open_nodes'] },
        },
      }),
    ]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(offered(0).filter((name) => name.startsWith('mcp__'))).toEqual([
      'mcp__memory__open_nodes',
    ]);
  });

  it('hands bad arguments and tools it was not offered back to the model as tool errors', async () => {
    const before = readFileSync(memoryFile, 'utf8');
    llm.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'mcp__memory__search_nodes', arguments: { query: 7 } },
          {
            id: 'c2',
            name: 'mcp__memory__create_entities',
            arguments: { entities: [{ name: 'Mallory', entityType: 'person', observations: [] }] },
          },
        ],
      },
      { content: 'Let me search properly.' },
    );
    const task = await send([textPart('Who is in the graph?')]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const messages = (llm.requests[1]?.body as RequestBody).messages;
    expect(messages.at(-2)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content:
        'Error: The arguments of memory/search_nodes do not fit its input schema. query: Instance type "number" is invalid. Expected "string".',
    });
    expect(messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c2',
      content: 'Error: There is no tool named "mcp__memory__create_entities".',
    });
    expect(resultOf(task).data.toolCalls.map((call) => call.ok)).toEqual([false, false]);
    // The tool that needs approval was never called.
    expect(readFileSync(memoryFile, 'utf8')).toBe(before);
  });
});
