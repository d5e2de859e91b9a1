import {
  validatePlan,
  type AgentSummary,
  type HistoryMessage,
  type Plan,
  type PlanRequest,
  type PlanResult,
  type TokenUsage,
} from '@fleet/a2a';
import { FleetError, ValidationError } from '@fleet/errors';

/**
 * Sends one plan request to the planner and returns its result. Rejects with a
 * `ServiceUnavailableError` when the planner cannot be reached, and with another `FleetError`
 * when it answered without a usable plan.
 */
export type AskPlanner = (
  request: PlanRequest,
  options: {
    signal?: AbortSignal | undefined;
    /**
     * Told what the planner reported about its model usage once it answered (undefined: it said
     * nothing), before the answer is judged.
     */
    onUsage?: ((usage: TokenUsage | undefined) => void) | undefined;
  },
) => Promise<PlanResult>;

/** Options for {@link planRun}. */
export interface PlanRunOptions {
  askPlanner: AskPlanner;
  /** The user's request. */
  request: string;
  history?: readonly HistoryMessage[] | undefined;
  /** The agents available now; a plan may only name these. */
  agents: readonly AgentSummary[];
  /** A plan given with the request: skips the planner, validated the same way. */
  explicitPlan?: Plan | undefined;
  /**
   * A person's instructions after denying `previousPlan` (plan approval): the planner is asked
   * for a new plan with them, even when the denied plan came with the request.
   */
  feedback?: string | undefined;
  /** The plan that was denied, for the planner's context. */
  previousPlan?: Plan | undefined;
  /**
   * The files the request brought (attachments): the planner names them in the `files` of the
   * steps that need them.
   */
  files?: PlanRequest['files'];
  /** Agents or skills the request prefers or requires (`fleet.steering`), for the planner. */
  steering?: PlanRequest['steering'];
  /** Why the plan is asked for again (a required agent or skill was not used). */
  steeringNote?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Told about every planner call, e.g. for logs. */
  onPlannerCall?:
    ((call: { strategy: 'auto' | 'heuristic'; validationError?: string }) => void) | undefined;
}

/** The plan a run will execute. */
export interface PlannedRun {
  plan: Plan;
  source: 'llm' | 'heuristic' | 'request';
  /** How many times the planner was asked (0 for an explicit plan). */
  plannerCalls: number;
}

/**
 * Gets a valid plan for a run (docs/architecture.md §5). An explicit plan is only validated (unless
 * `feedback` asks for a new one: every planner call then carries `feedback` and `previousPlan`). Otherwise
 * the planner is asked; a plan that fails validation against the available agents is sent back
 * once with the errors (`validationError`) for repair; if that is still invalid — or the planner
 * answered without a plan — the heuristic planner is asked (`strategy: 'heuristic'`). There is
 * no planner hidden in the orchestrator: when the planner cannot be reached, the run fails.
 *
 * @throws ValidationError when an explicit plan is invalid (its errors listed)
 * @throws ServiceUnavailableError when the planner cannot be reached
 * @throws FleetError (UPSTREAM_ERROR) when even the heuristic plan is unusable
 */
export async function planRun(options: PlanRunOptions): Promise<PlannedRun> {
  const {
    askPlanner,
    request,
    history = [],
    agents,
    explicitPlan,
    signal,
    onPlannerCall,
    feedback,
    previousPlan,
    files,
    steering,
    steeringNote,
  } = options;
  const names = agents.map((agent) => agent.name);

  if (explicitPlan !== undefined && feedback === undefined) {
    const validation = validatePlan(explicitPlan, names);
    if (!validation.valid) {
      throw new ValidationError(
        `The plan in the request cannot run: ${validation.errors.join('; ')}.`,
        {
          details: { errors: validation.errors },
        },
      );
    }
    return { plan: explicitPlan, source: 'request', plannerCalls: 0 };
  }

  let plannerCalls = 0;
  const ask = async (
    strategy: 'auto' | 'heuristic',
    validationError?: string,
  ): Promise<PlanResult> => {
    plannerCalls += 1;
    onPlannerCall?.(validationError === undefined ? { strategy } : { strategy, validationError });
    return askPlanner(
      {
        request,
        history: [...history],
        agents: [...agents],
        strategy,
        ...(validationError === undefined ? {} : { validationError }),
        ...(feedback === undefined ? {} : { feedback }),
        ...(previousPlan === undefined ? {} : { previousPlan }),
        ...(files === undefined || files.length === 0 ? {} : { files: [...files] }),
        ...(steering === undefined ? {} : { steering }),
        ...(steeringNote === undefined ? {} : { steeringNote }),
      },
      { signal },
    );
  };

  let validationError: string | undefined;
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    let result: PlanResult;
    try {
      result = await ask('auto', validationError);
    } catch (error) {
      if (isUnreachable(error) || signal?.aborted === true) throw error;
      break; // the planner answered without a plan: its heuristic strategy is the way out
    }
    const validation = validatePlan(result.plan, names);
    if (validation.valid) return { plan: result.plan, source: result.source, plannerCalls };
    // The planner already fell back to its heuristic: asking again would give the same plan.
    if (result.source === 'heuristic') throw unusablePlan(validation.errors);
    validationError = validation.errors.join('; ');
  }

  const fallback = await ask('heuristic');
  const validation = validatePlan(fallback.plan, names);
  if (!validation.valid) throw unusablePlan(validation.errors);
  return { plan: fallback.plan, source: fallback.source, plannerCalls };
}

function unusablePlan(errors: readonly string[]): FleetError {
  return new FleetError(
    'UPSTREAM_ERROR',
    `The planner returned no plan that can run: ${errors.join('; ')}.`,
    { details: { errors: [...errors] } },
  );
}

function isUnreachable(error: unknown): boolean {
  return FleetError.isInstance(error) && error.code === 'SERVICE_UNAVAILABLE';
}
