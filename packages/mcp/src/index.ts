/** The fleet's MCP client: `mcpServers` configuration, connections to stdio and Streamable HTTP servers, typed errors. */
export { createMcpConnection } from './create-mcp-connection';
export type {
  CallToolOptions,
  McpConnection,
  McpConnectionEvents,
  McpConnectionOptions,
  McpElicitationContext,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpProgress,
  McpTool,
  McpToolList,
  ToolHints,
} from './create-mcp-connection';
export {
  McpOutputSchemaError,
  McpProtocolError,
  McpResultTooLargeError,
  McpServerUnavailableError,
  McpTimeoutError,
  McpToolError,
} from './mcp-errors';
export {
  bearerTokenEnvironment,
  httpServerConfigSchema,
  isStdioServerConfig,
  loadMcpServers,
  MAX_MCP_SERVERS,
  MAX_MCP_SERVERS_BYTES,
  MAX_SERVER_NAME_LENGTH,
  mcpServerConfigSchema,
  parseMcpServers,
  stdioServerConfigSchema,
} from './mcp-servers-config';
export type {
  HttpServerConfig,
  LoadMcpServersOptions,
  McpServerConfig,
  StdioServerConfig,
} from './mcp-servers-config';
export { toolApproval } from './tool-approval';
export type { ToolApproval } from './tool-approval';
export type { CallToolResult } from '@modelcontextprotocol/client';
export { checkJsonSchema, createJsonSchemaChecker } from './json-schema-check';
export type { JsonSchemaCheck, JsonSchemaChecker } from './json-schema-check';
