/** The tools agent as an A2A agent: its card, input reading, execute function, handler and result shapes. */
export { createToolsHandler } from './create-tools-handler';
export type { CreateToolsHandlerOptions } from './create-tools-handler';
export { createToolsAgent } from './tools-agent';
export type { CreateToolsAgentOptions } from './tools-agent';
export {
  buildToolsCard,
  requiredArguments,
  SKILL_TEXT_LIMITS,
  toolSkill,
  TOOLS_AGENT_VERSION,
} from './tools-card';
export type { BuildToolsCardOptions } from './tools-card';
export { toolsAvailability } from './tools-availability';
export { firstTask, readToolsInput } from './read-tools-input';
export type { ToolsInput, ToolsTask } from './read-tools-input';
export { resolveTool } from './resolve-tool';
export type { NamedTool } from './resolve-tool';
export { findJsonArguments } from './find-json-arguments';
export {
  callKey,
  canonicalJson,
  latestPendingCalls,
  MAX_CALLS_PER_ROUND,
  pendingToolCallsSchema,
  toolCallSchema,
} from './tool-call';
export type { PendingToolCalls, ToolCall } from './tool-call';
export { ToolOutcomeUnknownError, ToolOutputMismatchError, ToolReportedError } from './tool-errors';
export { TOOLS_INSTRUCTIONS } from './run-with-model';
