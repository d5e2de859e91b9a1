import type { AgentAvailability } from '@fleet/a2a';
import type { ServerState } from '../servers';

/**
 * Whether the tools agent can work (its card's availability extension and `/readyz`):
 * `unconfigured` without any MCP server (saying which variables to set), `degraded` naming every
 * server that failed to start (its tools are not offered), `ready` otherwise.
 *
 * @example
 * toolsAvailability(catalog.servers());
 */
export function toolsAvailability(servers: readonly ServerState[]): AgentAvailability {
  if (servers.length === 0) {
    return {
      state: 'unconfigured',
      reason:
        'No MCP servers are configured, so the tools agent has no tools. Set MCP_SERVERS (JSON) or MCP_SERVERS_FILE (a path), or TOOLS_AGENT_FILESYSTEM_DIR for the built-in filesystem server, then restart the tools agent.',
    };
  }
  const failed = servers.filter((server) => server.status === 'failed');
  if (failed.length > 0) {
    const names = failed
      .map((server) => `"${server.name}" (${(server.reason ?? 'unknown reason').slice(0, 300)})`)
      .join('; ');
    return {
      state: 'degraded',
      reason: `${failed.length} of ${servers.length} MCP server(s) failed to start, so their tools are not offered: ${names}. Fix their entries in MCP_SERVERS and restart the tools agent.`,
    };
  }
  return { state: 'ready' };
}
