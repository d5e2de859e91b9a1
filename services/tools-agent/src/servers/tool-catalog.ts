import { toolSkillId } from '@fleet/a2a';
import type { FleetError } from '@fleet/errors';
import {
  createMcpConnection,
  toolApproval,
  type McpConnection,
  type McpConnectionOptions,
  type McpServerConfig,
  type McpTool,
  type McpToolList,
  type ToolApproval,
} from '@fleet/mcp';
import type { Logger } from '@fleet/telemetry';

/** One tool the catalog offers: its server, the tool as listed, its skill id and its approval. */
export interface CatalogTool {
  server: string;
  tool: McpTool;
  /** `<server>/<tool>` (`toolSkillId`). */
  skillId: string;
  approval: ToolApproval;
}

/** Where one configured server stands. */
export interface ServerState {
  name: string;
  /** `ready`: its tools were listed. `failed`: it could not be started or listed at start. */
  status: 'ready' | 'failed';
  /** Why it failed, when it did. */
  reason?: string | undefined;
  tools: readonly CatalogTool[];
  /** True when the server offered more tools than `maxTools`; the rest are not offered. */
  truncated: boolean;
}

/** Options for {@link createToolCatalog}. */
export interface CreateToolCatalogOptions {
  /** The configured servers by name (`loadToolServers`). */
  servers: ReadonlyMap<string, McpServerConfig>;
  /** Limits, time-outs and the environment bearer tokens are read from, for every connection. */
  connectionOptions?: McpConnectionOptions;
  logger?: Pick<Logger, 'info' | 'warn'> | undefined;
}

/** The tools of every configured MCP server, kept current as servers change their lists. */
export interface ToolCatalog {
  /** Starts every server and lists its tools; a server that fails is marked `failed`, never thrown. */
  start(): Promise<void>;
  servers(): readonly ServerState[];
  /** Every tool of every ready server, in configuration order. */
  tools(): readonly CatalogTool[];
  find(server: string, tool: string): CatalogTool | undefined;
  connection(server: string): McpConnection | undefined;
  /** Called after a server's list changed (`notifications/tools/list_changed`); returns its removal. */
  onChange(listener: () => void): () => void;
  /** Closes every connection; no server process is left when it resolves. */
  close(): Promise<void>;
}

function describeTools(server: string, list: McpToolList): CatalogTool[] {
  return list.tools.map((tool) => ({
    server,
    tool,
    skillId: toolSkillId(server, tool.name),
    approval: toolApproval(tool),
  }));
}

/**
 * The tools agent's view of its MCP servers: one connection per configured server
 * (`createMcpConnection`), its tools listed at start, re-listed when the server says its list
 * changed (listeners are told, so the Agent Card follows), and every connection closed on
 * shutdown.
 *
 * @example
 * const catalog = createToolCatalog({ servers, connectionOptions: { env: process.env }, logger });
 * await catalog.start();
 * catalog.onChange(() => logger.info({ tools: catalog.tools().length }, 'tools changed'));
 */
export function createToolCatalog({
  servers,
  connectionOptions = {},
  logger,
}: CreateToolCatalogOptions): ToolCatalog {
  const connections = new Map<string, McpConnection>();
  const states = new Map<string, ServerState>();
  const listeners = new Set<() => void>();
  for (const [name, config] of servers) {
    const connection = createMcpConnection(name, config, connectionOptions);
    connections.set(name, connection);
    states.set(name, {
      name,
      status: 'failed',
      reason: 'not started yet',
      tools: [],
      truncated: false,
    });
    connection.on('tools-change', (list) => {
      states.set(name, {
        name,
        status: 'ready',
        tools: describeTools(name, list),
        truncated: list.truncated,
      });
      logger?.info({ server: name, tools: list.tools.length }, 'MCP server changed its tools');
      for (const listener of listeners) listener();
    });
    connection.on('error', (error: FleetError) =>
      logger?.warn({ server: name, err: error }, 'MCP server tool list could not be re-read'),
    );
  }

  const startOne = async (name: string, connection: McpConnection): Promise<void> => {
    try {
      const list = await connection.listTools();
      states.set(name, {
        name,
        status: 'ready',
        tools: describeTools(name, list),
        truncated: list.truncated,
      });
      if (list.truncated) {
        logger?.warn(
          { server: name, kept: list.tools.length },
          'MCP server offers more tools than TOOLS_AGENT_MAX_TOOLS; the rest are not offered',
        );
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      states.set(name, { name, status: 'failed', reason, tools: [], truncated: false });
      logger?.warn(
        { server: name, reason },
        'MCP server failed to start; its tools are not offered',
      );
    }
  };

  return {
    async start() {
      await Promise.all([...connections].map(([name, connection]) => startOne(name, connection)));
    },
    servers: () => [...states.values()],
    tools: () => [...states.values()].flatMap((state) => state.tools),
    find(server, tool) {
      return states.get(server)?.tools.find((entry) => entry.tool.name === tool);
    },
    connection: (server) => connections.get(server),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.all([...connections.values()].map((connection) => connection.close()));
    },
  };
}
