/** The planner as an A2A agent: its card, its execute function, its handler and its plan summary. */
export { createPlannerHandler } from './create-planner-handler';
export type { CreatePlannerHandlerOptions } from './create-planner-handler';
export { describePlan } from './describe-plan';
export { createPlannerAgent, readPlanRequest } from './planner-agent';
export type { CreatePlannerAgentOptions } from './planner-agent';
export { buildPlannerCard, PLAN_SKILL_ID, PLANNER_VERSION } from './planner-card';
export type { BuildPlannerCardOptions } from './planner-card';
