/** The orchestration route: the orchestrator over A2A, answered in OpenAI's shape. */
export { answerRun } from './answer-run';
export type { AnswerRunOptions, RunEventSource } from './answer-run';
export { orchestrate, splitConversation } from './orchestrate';
export type { LowConfidence, OrchestrateOptions, PlanApproval } from './orchestrate';
export { createChunkWriter, toCompletion } from './openai-chunks';
export type { ChunkWriter, CollectedRun, FleetChunk, FleetCompletion } from './openai-chunks';
export { parsePlanApprovalHeader, PLAN_APPROVAL_VALUES } from './parse-plan-approval-header';
export { LOW_CONFIDENCE_VALUES, parseLowConfidenceHeader } from './parse-low-confidence-header';
export {
  joinResultReview,
  parseResultReviewField,
  parseResultReviewHeader,
  RESULT_REVIEW_FIELD,
  RESULT_REVIEW_HEADER,
  RESULT_REVIEW_VALUES,
} from './parse-result-review';
