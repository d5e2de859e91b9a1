/** The fleet as an MCP server at `/mcp`: document search and lists, sessions, run files as resources. */
export {
  createFleetMcpServer,
  FILE_URI_TEMPLATE,
  fileUri,
  MAX_LISTED_FILES,
} from './fleet-mcp-server';
export type { FleetMcpDependencies } from './fleet-mcp-server';
export { MCP_AUTH_CHALLENGE, MCP_BODY_LIMIT, mcpRouter } from './mcp-router';
export type { McpRouterOptions } from './mcp-router';
export { checkMcpRequestSource, LOOPBACK_HOSTS } from './request-guards';
export type { McpAllowList } from './request-guards';
