/** The reasoning agent as an A2A agent: its card, input reading, execute function, handler and result shapes. */
export { createReasoningHandler } from './create-reasoning-handler';
export type { CreateReasoningHandlerOptions } from './create-reasoning-handler';
export {
  attachmentBodyLimit,
  createReasoningAgent,
  REASONING_OFFLINE_MESSAGE,
} from './reasoning-agent';
export type { CreateReasoningAgentOptions, ReasoningLlm } from './reasoning-agent';
export { buildReasoningCard, REASONING_AGENT_VERSION, REASONING_SKILL } from './reasoning-card';
export type { BuildReasoningCardOptions } from './reasoning-card';
export {
  MAX_HISTORY_MESSAGES,
  MAX_QUESTION_CHARS,
  readReasoningInput,
  reasoningRequestSchema,
} from './read-reasoning-input';
export type { ReasoningInput, ReasoningRequest } from './read-reasoning-input';
export {
  errorDataSchema,
  reasoningResultDataSchema,
  stepDataSchema,
  toolCallReportSchema,
} from './result-data';
export type { ErrorData, ReasoningResultData, StepData, ToolCallReport } from './result-data';
