/** The code agent as an A2A agent: its card, input reading, execute function, handler and result shapes. */
export { createCodeHandler } from './create-code-handler';
export type { CreateCodeHandlerOptions } from './create-code-handler';
export { createCodeAgent } from './code-agent';
export type { CreateCodeAgentOptions } from './code-agent';
export { buildCodeCard, CODE_AGENT_VERSION, CODE_SKILLS } from './code-card';
export type { BuildCodeCardOptions } from './code-card';
export { attemptSummarySchema, codeProposalSchema, latestProposal } from './code-proposal';
export type { AttemptSummary, CodeProposal } from './code-proposal';
export { EARLIER_RESULTS_HEADING, firstTask, readCodeInput, taskText } from './read-code-input';
export type { CodeInput, CodeTask } from './read-code-input';
export {
  codeErrorDataSchema,
  codeResultData,
  codeResultDataSchema,
  resultFileSchema,
} from './result-data';
export type { CodeErrorData, CodeResultData, CodeResultDataOptions } from './result-data';
export { codeAvailability } from './code-availability';
export type { CodeAvailabilityInput } from './code-availability';
