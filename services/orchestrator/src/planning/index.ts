/** Planning: asking the planner over A2A, validating its plan, repair and heuristic fall-back. */
export { createPlannerClient } from './planner-client';
export type { PlannerClient, PlannerClientOptions } from './planner-client';
export { planRun } from './plan-run';
export type { AskPlanner, PlannedRun, PlanRunOptions } from './plan-run';
