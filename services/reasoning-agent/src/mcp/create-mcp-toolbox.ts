import { isToolPermitted, toolSkillId, type ToolPolicy } from '@fleet/a2a';
import {
  createMcpConnection,
  toolApproval,
  type McpConnection,
  type McpConnectionOptions,
  type McpServerConfig,
  type McpTool,
} from '@fleet/mcp';
import type { Logger } from '@fleet/telemetry';
import { ToolError, type ReasoningTool } from '../tools';
import { createArgumentsCheck, type ArgumentsCheck } from './check-tool-arguments';
import { mcpFunctionName } from './mcp-function-name';
import { mcpResultText } from './mcp-result-text';

/** Most MCP tools offered to the model in one run (OpenAI takes at most 128 functions). */
export const MAX_OFFERED_MCP_TOOLS = 100;
/** A tool whose input schema weighs more than this (as JSON) is not offered. */
export const MAX_INPUT_SCHEMA_BYTES = 64 * 1024;
/** Longest tool description the model is shown; longer ones are cut. */
export const MAX_TOOL_DESCRIPTION_CHARS = 2_000;

/** What one run may use: see {@link McpToolbox.tools}. */
export interface McpToolsRequest {
  /** Every policy that applies (the gateway's, the orchestrator's); a tool must pass all. */
  policies?: readonly (ToolPolicy | undefined)[];
}

/** The reasoning agent's MCP servers and the tools they offer the model. */
export interface McpToolbox {
  /** The servers' names, in configuration order. */
  readonly servers: readonly string[];
  /**
   * The tools offered to the model for one run: those that need no approval
   * (`toolApproval(tool).required === false`) and that every policy permits, named
   * `mcp__<server>__<tool>`. A server that cannot be reached or listed is left out of this run
   * (and logged); the others still count.
   */
  tools(request?: McpToolsRequest): Promise<ReasoningTool[]>;
  /** Closes every connection; stdio servers are gone when it resolves. */
  close(): Promise<void>;
}

/** Options for {@link createMcpToolbox}. */
export interface CreateMcpToolboxOptions {
  /** The `mcpServers` entries, by name (`loadMcpServers`). */
  servers: ReadonlyMap<string, McpServerConfig>;
  /** Longest result text the model reads back; longer ones are cut with a note. @default 20000 */
  maxResultChars?: number;
  /** Passed to every connection (`env` for bearer tokens, limits, time-outs, tracer). */
  connection?: McpConnectionOptions;
  logger?: Pick<Logger, 'warn'> | undefined;
}

interface Offer {
  server: string;
  tool: McpTool;
  name: string;
  connection: McpConnection;
}

/**
 * Connects (lazily) to the reasoning agent's MCP servers and turns their tools into tools the
 * loop can offer: only those that may run without a person's approval, since a reasoning task has
 * no session to pause in; each with its input schema as the function's parameters, its arguments
 * checked against that schema before the server is called, its result (text, or the structured
 * content as JSON) cut to `maxResultChars`, and any failure (`isError`, time-out, server gone,
 * result too large) thrown as a tool error the model reads.
 *
 * @example
 * const toolbox = createMcpToolbox({ servers: await loadReasoningMcpServers(config), logger });
 * const tools = [...createReasoningTools(), ...(await toolbox.tools({ policies: [toolPolicy] }))];
 * await toolbox.close();
 */
export function createMcpToolbox({
  servers,
  maxResultChars = 20_000,
  connection: connectionOptions = {},
  logger,
}: CreateMcpToolboxOptions): McpToolbox {
  const connections = [...servers].map(([name, config]) => ({
    name,
    connection: createMcpConnection(name, config, {
      // A reasoning task waits for the listing: a server that does not start soon is left out.
      connectTimeoutMs: 15_000,
      timeoutMs: 30_000,
      maxResultBytes: 1024 * 1024,
      ...connectionOptions,
    }),
  }));
  const checks = new WeakMap<McpTool, ArgumentsCheck>();
  let closed = false;

  function checkOf(offer: Offer): ArgumentsCheck {
    let check = checks.get(offer.tool);
    if (check === undefined) {
      check = createArgumentsCheck(toolSkillId(offer.server, offer.tool.name), {
        ...offer.tool.inputSchema,
      });
      checks.set(offer.tool, check);
    }
    return check;
  }

  async function offers(): Promise<Offer[]> {
    const listed = await Promise.allSettled(
      connections.map(({ connection }) => connection.listTools()),
    );
    const taken = new Set<string>();
    const result: Offer[] = [];
    listed.forEach((outcome, index) => {
      const entry = connections[index];
      if (entry === undefined) return;
      if (outcome.status === 'rejected') {
        logger?.warn(
          { err: outcome.reason, mcpServer: entry.name },
          `MCP server "${entry.name}" left out: its tools could not be listed`,
        );
        return;
      }
      for (const tool of outcome.value.tools) {
        // Names are given out before any filtering, so a tool keeps its name from run to run.
        const name = mcpFunctionName(entry.name, tool.name, taken);
        taken.add(name);
        if (toolApproval(tool).required) continue;
        if (Buffer.byteLength(JSON.stringify(tool.inputSchema)) > MAX_INPUT_SCHEMA_BYTES) continue;
        result.push({ server: entry.name, tool, name, connection: entry.connection });
      }
    });
    return result;
  }

  return {
    servers: connections.map(({ name }) => name),
    async tools({ policies = [] } = {}) {
      if (closed || connections.length === 0) return [];
      const permitted = (await offers()).filter((offer) =>
        policies.every((policy) => isToolPermitted(policy, offer.server, offer.tool.name)),
      );
      if (permitted.length > MAX_OFFERED_MCP_TOOLS) {
        logger?.warn(
          { offered: permitted.length, limit: MAX_OFFERED_MCP_TOOLS },
          `only the first ${MAX_OFFERED_MCP_TOOLS} MCP tools are offered to the model`,
        );
      }
      return permitted
        .slice(0, MAX_OFFERED_MCP_TOOLS)
        .map((offer) => offerAsTool(offer, { check: checkOf(offer), maxResultChars }));
    },
    async close() {
      closed = true;
      await Promise.all(connections.map(({ connection }) => connection.close()));
    },
  };
}

/**
 * One offered MCP tool as a tool of the loop: its arguments checked, its result read as text and
 * cut, an `isError` result thrown as a tool error.
 */
function offerAsTool(
  offer: Offer,
  { check, maxResultChars }: { check: ArgumentsCheck; maxResultChars: number },
): ReasoningTool {
  const { server, tool, connection } = offer;
  const label = toolSkillId(server, tool.name);
  const { $schema: _schema, ...parameters } = tool.inputSchema;
  const about = (tool.description ?? tool.title ?? tool.name).slice(0, MAX_TOOL_DESCRIPTION_CHARS);
  return {
    name: offer.name,
    description: `${about} (MCP tool ${label})`,
    parameters,
    async run(argumentsJson, { signal } = {}) {
      const args = check(argumentsJson);
      const result = await connection.callTool(tool.name, args, { signal });
      const text = mcpResultText(result, maxResultChars);
      if (result.isError === true) {
        throw new ToolError(
          text.trim() === '' ? `${label} reported an error without a message.` : text,
          { details: { tool: label } },
        );
      }
      return text;
    },
  };
}
