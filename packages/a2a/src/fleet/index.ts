/** The fleet's conventions on top of A2A: plans, node input and results, progress, run results. */
export {
  agentSummaryOf,
  agentSummarySchema,
  agentAvailabilitySchema,
  approvalDecisionSchema,
  approvalRequestSchema,
  approvalStatusSchema,
  instructionModeSchema,
  riskSchema,
  citationSchema,
  dependencyOutputSchema,
  documentInfoSchema,
  documentsCommandSchema,
  historyMessageSchema,
  nodeInputSchema,
  nodeReportSchema,
  nodeStateSchema,
  orchestrateRequestSchema,
  planRequestSchema,
  planResultSchema,
  MAX_NODE_PROGRESS_STAGE,
  MAX_NODE_PROGRESS_TEXT,
  progressEventSchema,
  RESULT_ARTIFACT_NAME,
  runResultSchema,
  runStateSchema,
  runUsageSchema,
  stepFailureSchema,
  stepUsageSchema,
  tokenUsageSchema,
} from './conventions';
export type {
  AgentSummary,
  AgentAvailability,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalStatus,
  InstructionMode,
  Risk,
  Citation,
  DependencyOutput,
  DocumentInfo,
  DocumentsCommand,
  HistoryMessage,
  NodeInput,
  NodeReport,
  NodeState,
  OrchestrateRequest,
  PlanRequest,
  PlanResult,
  ProgressEvent,
  RunResult,
  RunState,
  RunUsage,
  StepFailure,
  StepUsage,
  TokenUsage,
} from './conventions';
export {
  answerMessageId,
  decisionMessageId,
  decisionParts,
  INTERRUPTION_LIMITS,
  readApprovalRequest,
  readQuestion,
} from './interruptions';
export type { InterruptionSource } from './interruptions';
export {
  criticalPath,
  findCycle,
  MAX_NODE_FILES,
  planNodeFileSchema,
  planNodeIdSchema,
  planNodeSchema,
  planSchema,
  validatePlan,
} from './plan';
export type { Plan, PlanNode, PlanValidation } from './plan';
export {
  addStepUsage,
  readReportedUsage,
  readUsageFromParts,
  stepUsage,
  sumRunUsage,
  USAGE_METADATA_KEY,
  usageKnown,
} from './usage';
export type { StepUsageOptions } from './usage';
export { isFleetFailure, runState } from './run-state';
export type { StepEnd } from './run-state';
export {
  isToolPermitted,
  MAX_TOOL_POLICY_PATTERNS,
  parseToolSkillId,
  toolPolicySchema,
  toolSkillId,
} from './tool-policy';
export type { ToolPolicy } from './tool-policy';
export {
  agentListingSchema,
  applyToolPolicy,
  deniedToolReason,
  isToolAgent,
  MAX_LISTED_AGENTS,
  MCP_SKILL_TAG,
  toolApprovalOf,
  toolOfSkill,
} from './tool-skills';
export type { AgentListing, ToolApproval } from './tool-skills';
export {
  checkRunFile,
  cleanRunFileName,
  filesCommandSchema,
  INLINE_RUN_FILE_TYPES,
  isInlineImage,
  MAX_RUN_FILE_NAME_LENGTH,
  newRunFileId,
  RUN_FILE_ID_PATTERN,
  RUN_FILE_TYPES,
  runFileContentPath,
  runFileIdSchema,
  runFileSchema,
  runFileSourceSchema,
} from './files';
export type {
  FilesCommand,
  RunFile,
  RunFileCheck,
  RunFileSource,
  RunFileStore,
  RunFileUpload,
} from './files';
export {
  decodeContentMetadata,
  DOCUMENT_METADATA_HEADER,
  documentContentMetadataSchema,
  documentContentRoute,
  encodeContentMetadata,
  MAX_CONTENT_METADATA_HEADER_LENGTH,
  readContentMetadata,
  RUN_FILE_METADATA_HEADER,
  RUN_FILE_PUT_HEADER,
  runFileContentRoute,
  runFilePutMetadataSchema,
  runFileRoute,
  runFilesRoute,
} from './content-route';
export type {
  ContentMetadataResult,
  DocumentContentMetadata,
  RunFilePutMetadata,
} from './content-route';
export {
  DEFAULT_DOCUMENT_SEARCH_LIMIT,
  documentSearchHitSchema,
  documentSearchRequestSchema,
  documentSearchResultSchema,
  documentSearchRoute,
  MAX_DOCUMENT_SEARCH_LIMIT,
  MAX_DOCUMENT_SEARCH_QUERY,
} from './document-search';
export type {
  DocumentSearchHit,
  DocumentSearchRequest,
  DocumentSearchResult,
} from './document-search';
export {
  filesAgentOf,
  keepsRunFiles,
  RUN_FILES_SKILL,
  RUN_FILES_SKILL_TAG,
} from './run-files-agent';
export {
  agentSteeringSchema,
  isEmptySteering,
  MAX_STEERING_NAME_LENGTH,
  MAX_STEERING_NAMES,
  resolveSteeringName,
  STEERING_KINDS,
  stepMatchesTarget,
  unknownSteeringNames,
  withoutExcluded,
} from './steering';
export type { AgentSteering, SteeringKind, SteeringTarget } from './steering';
export {
  DEFAULT_MAX_HANDOFFS,
  handoffPart,
  handoffPartSchema,
  handoffRequestSchema,
  MAX_HANDOFF_CONTEXT,
  MAX_HANDOFF_TASK,
  MAX_HANDOFFS_PER_STEP,
  readHandoffs,
} from './handoff';
export type { HandoffRequest, ReadHandoffs } from './handoff';
export {
  cutReviewText,
  DEFAULT_MAX_REVIEW_ROUNDS,
  MAX_REVIEW_ANSWER,
  MAX_REVIEW_FEEDBACK,
  MAX_REVIEW_STEP_SUMMARY,
  resultReviewSchema,
  reviewDecisionKindSchema,
  reviewDecisionSchema,
  reviewRoundSchema,
  reviewStepSchema,
} from './review';
export type {
  ResultReview,
  ReviewDecision,
  ReviewDecisionKind,
  ReviewRound,
  ReviewStep,
} from './review';
