/** The fleet as an MCP server at `/mcp`: asking the fleet, document search and lists, sessions, run files as resources. */
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
export {
  argumentsDigest,
  createApprovalStateCodec,
  requestStateKey,
  MAX_REQUEST_STATE_CHARS,
} from './approval-state';
export type { ApprovalState, ApprovalStateCodec } from './approval-state';
export {
  APPROVAL_INPUT_KEY,
  QUESTION_INPUT_KEY,
  registerAskTool,
  REVIEW_INPUT_KEY,
} from './ask-tool';
export type { AskCaller, AskToolDependencies } from './ask-tool';
export { askInputSchema, askOutputSchema, MAX_QUESTION_CHARS } from './ask-schemas';
export type { AskInput, AskOutput, AskState } from './ask-schemas';
export { createLegacyExchanges } from './legacy-exchanges';
export type { LegacyExchanges, PendingResponse } from './legacy-exchanges';
export {
  createRedisLegacyExchanges,
  type RedisLegacyExchangesOptions,
} from './redis-legacy-exchanges';
