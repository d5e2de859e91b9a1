/** Plan execution: the DAG executor, per-agent circuit breakers, and the A2A agent invoker. */
export { createA2AAgentInvoker, maxEventBytesForRunFiles } from './a2a-agent-invoker';
export { createDiscoveredRunFileStore, filesAgentOf } from './run-file-store';
export type { DiscoveredRunFileStoreOptions } from './run-file-store';
export { withAttachments } from './attachment-step-files';
export type { AttachmentStepFilesOptions } from './attachment-step-files';
export {
  createRunFileKeeper,
  DEFAULT_RUN_FILE_LIMITS,
  MAX_REFUSALS_PER_STEP,
} from './keep-step-files';
export type {
  RunFileKeeper,
  RunFileKeeperOptions,
  RunFileLimits,
  RunFileRefusal,
} from './keep-step-files';
export type { A2AAgentInvoker, A2AAgentInvokerOptions, InvokerLogger } from './a2a-agent-invoker';
export { BREAKER_STATES, createAgentBreakers, isBrokenCircuit } from './agent-breakers';
export type { AgentBreakers, AgentBreakersOptions, BreakerState } from './agent-breakers';
export { classifyFailure } from './classify-failure';
export type { ClassifiedFailure } from './classify-failure';
export {
  createStepFilesFetcher,
  DEFAULT_STEP_FILES_MAX_BYTES,
  documentsAgentOf,
} from './fetch-step-files';
export type { StepFilesFetcherOptions } from './fetch-step-files';
export { executePlan, interruptionMessage, NOT_RESENT_MESSAGE } from './execute-plan';
export type {
  ApprovalVerdict,
  AwaitApproval,
  ExecutePlanOptions,
  ExecutionEvent,
  ExecutionResult,
  NodeApprovalRequest,
  ResumedNode,
  RetryOptions,
  Scheduling,
} from './execute-plan';
export { isRunHandover, RunHandover } from './run-handover';
export {
  decideHandoff,
  derivedNodeId,
  handoffChain,
  handoffTargetName,
  MAX_PLAN_NODES,
  uniqueNodeId,
} from './plan-growth';
export type { DecideHandoffOptions, HandoffTarget, ResolveHandoff } from './plan-growth';
export type {
  AgentTaskState,
  CancelAgentTask,
  Continuation,
  DependencyOutputs,
  ExistingTask,
  InvokeAgent,
  InvokeAgentRequest,
  KeepStepFiles,
  NodeOutcome,
  NodeRun,
  StatusFingerprint,
  StepFilePart,
  StepFiles,
  StepFilesResult,
} from './node-outcome';
export { renderNodeText } from './render-node-text';
export type { RenderNodeTextOptions } from './render-node-text';
export { readAgentProgress } from './read-agent-progress';
export type { AgentProgress } from './read-agent-progress';
