import { ConfigError, FleetError } from '@fleet/errors';
import { loadMcpServers, type McpServerConfig } from '@fleet/mcp';

/**
 * The reasoning agent's MCP servers from `REASONING_MCP_SERVERS` (the `{"mcpServers": {…}}`
 * document) or `REASONING_MCP_SERVERS_FILE` (a path to it); neither set means none. A bad document
 * fails with a {@link ConfigError} that names the reasoning agent's variable.
 *
 * @example
 * const servers = await loadReasoningMcpServers({ mcpServers: config.mcpServers, mcpServersFile: config.mcpServersFile });
 */
export async function loadReasoningMcpServers({
  mcpServers,
  mcpServersFile,
}: {
  mcpServers?: string | undefined;
  mcpServersFile?: string | undefined;
}): Promise<Map<string, McpServerConfig>> {
  try {
    return await loadMcpServers({ json: mcpServers, file: mcpServersFile });
  } catch (error) {
    if (!FleetError.isInstance(error)) throw error;
    // The package names the shared variables; this service reads its own.
    throw new ConfigError(error.message.replace(/^MCP_SERVERS/, 'REASONING_MCP_SERVERS'), {
      cause: error,
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
}
