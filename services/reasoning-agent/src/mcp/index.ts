/** MCP tools for the reasoning loop: the servers from its configuration, the tools they offer without approval. */
export { createArgumentsCheck } from './check-tool-arguments';
export type { ArgumentsCheck } from './check-tool-arguments';
export {
  createMcpToolbox,
  MAX_INPUT_SCHEMA_BYTES,
  MAX_OFFERED_MCP_TOOLS,
  MAX_TOOL_DESCRIPTION_CHARS,
} from './create-mcp-toolbox';
export type { CreateMcpToolboxOptions, McpToolbox, McpToolsRequest } from './create-mcp-toolbox';
export { loadReasoningMcpServers } from './load-reasoning-mcp-servers';
export { MCP_FUNCTION_PREFIX, mcpFunctionName } from './mcp-function-name';
export { mcpResultText } from './mcp-result-text';
