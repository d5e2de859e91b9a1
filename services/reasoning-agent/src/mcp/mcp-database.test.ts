import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { createMessage, RESULT_ARTIFACT_NAME, textPart, type Task } from '@fleet/a2a';
import {
  createMcpConnection,
  McpProtocolError,
  McpToolError,
  type McpConnection,
} from '@fleet/mcp';
import { startScriptedOpenAI, type ScriptedOpenAI, type ScriptedReply } from '@fleet/testing';
import { reasoningResultDataSchema } from '../agent';
import {
  bootReasoningAgent,
  type RunningReasoningAgent,
} from '../test-support/boot-reasoning-agent';
import {
  createCustomersDatabase,
  CUSTOMERS,
  type CustomersDatabase,
} from '../test-support/create-customers-database';
import { createMcpToolbox, type McpToolbox } from './create-mcp-toolbox';

const TOP_TEN_SQL =
  'SELECT name, total_revenue FROM customers ORDER BY total_revenue DESC LIMIT 10';
const TOP_TEN = CUSTOMERS.slice(0, 10).map((customer) => customer.name);

function textOf(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('');
}

async function customerCount(database: CustomersDatabase): Promise<number> {
  const result = await database.owner.query<{ count: string }>(
    'SELECT count(*) AS count FROM customers',
  );
  return Number(result.rows[0]?.count);
}

describe('a PostgreSQL database through MCP (server-postgres as fleet_mcp_reader)', () => {
  let database: CustomersDatabase;
  let sales: McpConnection;

  beforeAll(async () => {
    // Fails, saying PostgreSQL is not reachable and how to start it, when it is not: no skip.
    database = await createCustomersDatabase();
    sales = createMcpConnection('sales', database.server);
  });

  afterAll(async () => {
    await sales?.close();
    await database?.drop();
  });

  it('answers the query tool with the ten biggest customers', async () => {
    const { tools } = await sales.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['query']);
    const rows = JSON.parse(textOf(await sales.callTool('query', { sql: TOP_TEN_SQL }))) as {
      name: string;
      total_revenue: string;
    }[];
    expect(rows.map((row) => row.name)).toEqual(TOP_TEN);
    expect(rows[0]).toEqual({ name: 'Customer A', total_revenue: '250000.00' });
    expect(rows[9]).toEqual({ name: 'Customer J', total_revenue: '160000.00' });
  });

  it('refuses "COMMIT; DROP TABLE customers" and every other write: the role cannot', async () => {
    for (const sql of [
      'COMMIT; DROP TABLE customers',
      'COMMIT; SET default_transaction_read_only = off; DROP TABLE customers',
      'COMMIT; SET default_transaction_read_only = off; DELETE FROM customers',
      "COMMIT; SET default_transaction_read_only = off; INSERT INTO customers (name, total_revenue) VALUES ('Mallory', 1)",
      'COMMIT; SET default_transaction_read_only = off; CREATE TABLE public.loot (x int)',
    ]) {
      const call = sales.callTool('query', { sql });
      await expect(call).rejects.toBeInstanceOf(McpToolError);
      await expect(call).rejects.toThrow(/read-only transaction|must be owner|permission denied/);
    }
    expect(await customerCount(database)).toBe(CUSTOMERS.length);
    const tables = await database.owner.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    expect(tables.rows.map((row) => row.tablename)).toEqual(['customers']);
  });

  it("lets the owner's server drop a table despite its READ ONLY transaction: why the role matters", async () => {
    await database.owner.query('CREATE TABLE scratch (x int)');
    const owner = createMcpConnection('owner', database.ownerServer);
    try {
      // Two statements give the server no rows to return, so its answer is malformed; the
      // DROP ran all the same.
      await owner
        .callTool('query', { sql: 'COMMIT; DROP TABLE scratch' })
        .catch((error: unknown) => expect(error).toBeInstanceOf(McpProtocolError));
    } finally {
      await owner.close();
    }
    const left = await database.owner.query("SELECT FROM pg_tables WHERE tablename = 'scratch'");
    expect(left.rowCount).toBe(0);
  });

  describe('through the reasoning agent', () => {
    let redis: Redis;
    let llm: ScriptedOpenAI;
    let toolbox: McpToolbox;
    let agent: RunningReasoningAgent;
    const prefix = `test:reasoning-db:${randomUUID()}`;

    /**
     * A model that asks the database and answers from what it got back: the answer holds only
     * what the query tool returned.
     */
    function respond(body: unknown): ScriptedReply {
      const { messages, tools = [] } = body as {
        messages: { role: string; content: string | null }[];
        tools?: { function: { name: string } }[];
      };
      const last = messages.at(-1);
      if (last?.role === 'tool') {
        const rows = JSON.parse(last.content ?? '[]') as { name: string; total_revenue: string }[];
        return {
          content: `The ten biggest customers are ${rows.map((row) => `${row.name} (${row.total_revenue})`).join(', ')}.`,
        };
      }
      const query = tools.find((tool) => tool.function.name.endsWith('__query'));
      if (query === undefined) return { content: 'I have no database tool.' };
      return {
        toolCalls: [{ id: 'q1', name: query.function.name, arguments: { sql: TOP_TEN_SQL } }],
      };
    }

    beforeAll(async () => {
      redis = new Redis('redis://127.0.0.1:6379');
      llm = await startScriptedOpenAI({ respond: (request) => respond(request.body) });
      toolbox = createMcpToolbox({ servers: new Map([['sales', database.server]]) });
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

    afterAll(async () => {
      await agent?.close();
      await toolbox?.close();
      await llm?.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    it('answers with the top customers the query tool returned', async () => {
      const task = (await agent.client.sendMessage({
        message: createMessage({ parts: [textPart('Who are our ten biggest customers?')] }),
      })) as Task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
      const answer = artifact?.parts.find((part) => part.text !== undefined)?.text ?? '';
      expect(answer).toContain('Customer A (250000.00)');
      for (const name of TOP_TEN) expect(answer).toContain(name);
      expect(answer).not.toContain('Customer K');
      const data = reasoningResultDataSchema.parse(
        artifact?.parts.find((part) => part.data !== undefined)?.data,
      );
      expect(data.toolCalls).toEqual([
        expect.objectContaining({ name: 'mcp__sales__query', ok: true }),
      ]);
    });
  });
});
