import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import { dataPart, type Part, type ToolPolicy } from '@fleet/a2a';
import type { A2AHandler } from '@fleet/a2a/server';
import { bootAgent, nodeParts as agentNodeParts, type BootedAgent } from '@fleet/agent-kit/testing';
import type { McpConnection, McpServerConfig } from '@fleet/mcp';
import { createToolsHandler, toolsAvailability } from '../agent';
import { createToolCatalog, type ToolCatalog } from '../servers';

/** The token test agents require. */
export const TEST_TOKEN = 'tools-agent-test-token-0123456789';

/** A tools agent listening on a free port, with its catalog and a count of calls per tool. */
export interface RunningToolsAgent extends BootedAgent<A2AHandler> {
  catalog: ToolCatalog;
  /** `<server>/<tool>` → calls sent to the server. */
  calls: Map<string, number>;
}

/** Options for {@link bootToolsAgent}. */
export interface BootToolsAgentOptions {
  redis: Redis;
  keyPrefix: string;
  servers: Map<string, McpServerConfig>;
  llm?: { client: OpenAI; model: string } | undefined;
  approvalTtlMs?: number;
}

/** Counts the calls a connection sends. */
function counting(connection: McpConnection, calls: Map<string, number>): McpConnection {
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property === 'callTool') {
        return (...args: Parameters<McpConnection['callTool']>) => {
          const name = `${target.name}/${args[0]}`;
          calls.set(name, (calls.get(name) ?? 0) + 1);
          return target.callTool(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/** Boots the tools agent in-process, as `main.ts` does, on real MCP servers over stdio. */
export async function bootToolsAgent({
  redis,
  keyPrefix,
  servers,
  llm,
  approvalTtlMs,
}: BootToolsAgentOptions): Promise<RunningToolsAgent> {
  const catalog = createToolCatalog({ servers, connectionOptions: { timeoutMs: 30_000 } });
  await catalog.start();
  const calls = new Map<string, number>();
  const counted: ToolCatalog = {
    ...catalog,
    connection: (server) => {
      const connection = catalog.connection(server);
      return connection === undefined ? undefined : counting(connection, calls);
    },
  };
  const availability = toolsAvailability(catalog.servers());
  const agent = await bootAgent({
    serviceName: 'tools-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    clientTimeoutMs: 60_000,
    createHandler: ({ store, url }) =>
      createToolsHandler({
        catalog: counted,
        llm,
        store,
        url,
        availability,
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
      }),
  });
  return {
    ...agent,
    catalog,
    calls,
    async close() {
      await agent.close();
      await catalog.close();
    },
  };
}

/** The parts of a plan node message: the step and the fleet node input. */
export function nodeParts(options: {
  text: string;
  skill?: string;
  toolPolicy?: ToolPolicy;
}): Part[] {
  const parts = agentNodeParts({
    text: options.text,
    nodeId: 'tools',
    tenant: 'test',
    ...(options.skill === undefined ? {} : { skill: options.skill }),
  });
  if (options.toolPolicy === undefined) return parts;
  return parts.map((part) => {
    const data = part.data as { fleet?: Record<string, unknown> } | undefined;
    return data?.fleet === undefined
      ? part
      : dataPart({ fleet: { ...data.fleet, toolPolicy: options.toolPolicy } });
  });
}

/** The parts of an approval continuation. */
export function decisionParts(decision: 'approve' | 'deny', instructions?: string): Part[] {
  return [
    dataPart({
      approvalDecision: { decision, ...(instructions === undefined ? {} : { instructions }) },
    }),
  ];
}
