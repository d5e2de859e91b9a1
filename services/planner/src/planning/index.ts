/** Planning: the heuristic planner, the LLM planner with one repair round, and the planner that picks. */
export { buildPlanMessages, buildRepairMessages, buildSystemPrompt } from './build-plan-prompt';
export type { BuildPlanMessagesOptions, BuildRepairMessagesOptions } from './build-plan-prompt';
export { createPlanner, HEURISTIC_REQUESTED_REASON, OFFLINE_REASON } from './create-planner';
export type {
  CreatePlannerOptions,
  Planner,
  PlannerLlm,
  PlannerLogger,
  PlanOptions,
} from './create-planner';
export { MATCH_THRESHOLD, planHeuristically, scoreAgents } from './heuristic-planner';
export type { AgentScore, HeuristicPlanOptions, MatchSource, TermMatch } from './heuristic-planner';
export { planWithLlm } from './plan-with-llm';
export type { LlmPlanOutcome, PlanWithLlmOptions } from './plan-with-llm';
export { splitIntoClauses, splitIntoSegments } from './split-request';
export type { ClauseSegment, RequestClause } from './split-request';
export { analyze, stem, tokenize } from './tokenize';
export type { Token } from './tokenize';
