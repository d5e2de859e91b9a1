import type { Plan, PlanRequest, PlanResult } from '@fleet/a2a';
import { fleetAgents } from './fleet-agents';
import type { CaseSet, ExpectedStep, SetCase } from './planner-cases';
import { scorePlan } from './score-plan';

/** Plans one request: the heuristic planner offline, the LLM planner with `--llm`. */
export type PlanFunction = (request: PlanRequest) => Promise<PlanResult>;

/** The outcome of one case. */
export interface CaseResult {
  id: string;
  set: CaseSet;
  categories: readonly string[];
  request: string;
  right: boolean;
  /** For a miss: what differs from the closest expected plan. */
  why?: string;
  expected: readonly (readonly ExpectedStep[])[];
  got: Plan;
  source: PlanResult['source'];
  /** Why the heuristic planner answered in an LLM run (the LLM's plan was unusable). */
  fallbackReason?: string;
}

/** Right and total for one group of cases. */
export interface Tally {
  right: number;
  total: number;
}

/** The share right per set, per category and overall. */
export interface PlannerEvalSummary {
  overall: Tally;
  bySet: Partial<Record<CaseSet, Tally>>;
  /** category → set → tally, categories sorted. */
  byCategory: Record<string, Partial<Record<CaseSet, Tally>>>;
  /** In an LLM run: plans the heuristic planner drew because the LLM's was unusable. */
  fallbacks: number;
}

function add(tally: Tally | undefined, right: boolean): Tally {
  return { right: (tally?.right ?? 0) + (right ? 1 : 0), total: (tally?.total ?? 0) + 1 };
}

/** The share right, 0–1 (1 for no cases). */
export function shareOf(tally: Tally | undefined): number {
  return tally === undefined || tally.total === 0 ? 1 : tally.right / tally.total;
}

/** Tallies results per set, per category and overall. */
export function summarise(results: readonly CaseResult[]): PlannerEvalSummary {
  const summary: PlannerEvalSummary = {
    overall: { right: 0, total: 0 },
    bySet: {},
    byCategory: {},
    fallbacks: 0,
  };
  for (const result of results) {
    summary.overall = add(summary.overall, result.right);
    summary.bySet[result.set] = add(summary.bySet[result.set], result.right);
    for (const category of result.categories) {
      const entry = (summary.byCategory[category] ??= {});
      entry[result.set] = add(entry[result.set], result.right);
    }
    if (result.fallbackReason !== undefined) summary.fallbacks++;
  }
  summary.byCategory = Object.fromEntries(
    Object.entries(summary.byCategory).sort(([left], [right]) => left.localeCompare(right)),
  );
  return summary;
}

/** Options for {@link runPlannerCases}. */
export interface RunPlannerCasesOptions {
  cases: readonly SetCase[];
  plan: PlanFunction;
  /** How many requests are planned at once. @default 1 */
  concurrency?: number;
  /** Called after each case, for a progress line. */
  onResult?: (result: CaseResult, done: number, total: number) => void;
}

/**
 * Plans every case's request against the fleet's real agent cards (with the case's availability)
 * and scores each plan against the expected ones. Results come back in case order.
 *
 * @example
 * const results = await runPlannerCases({ cases, plan: async (request) => heuristicResult(request) });
 */
export async function runPlannerCases({
  cases,
  plan,
  concurrency = 1,
  onResult,
}: RunPlannerCasesOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array<CaseResult>(cases.length);
  let next = 0;
  let done = 0;
  async function worker(): Promise<void> {
    while (next < cases.length) {
      const index = next++;
      const entry = cases[index];
      if (entry === undefined) continue;
      const outcome = await plan({
        request: entry.request,
        history: [],
        agents: fleetAgents({ availability: entry.availability ?? {} }),
        strategy: 'auto',
      });
      const verdict = scorePlan({ plan: outcome.plan, expected: entry.plans });
      const rationale = outcome.plan.rationale.toLowerCase();
      const unmentioned = (entry.rationaleMentions ?? []).filter(
        (word) => !rationale.includes(word.toLowerCase()),
      );
      const right = verdict.right && unmentioned.length === 0;
      const why =
        verdict.why ??
        (unmentioned.length > 0
          ? `rationale does not mention ${unmentioned.join(', ')}`
          : undefined);
      const result: CaseResult = {
        id: entry.id,
        set: entry.set,
        categories: entry.categories,
        request: entry.request,
        right,
        ...(right || why === undefined ? {} : { why }),
        expected: entry.plans,
        got: outcome.plan,
        source: outcome.source,
        ...(outcome.source === 'heuristic' &&
        outcome.fallbackReason !== undefined &&
        outcome.attempts > 0
          ? { fallbackReason: outcome.fallbackReason }
          : {}),
      };
      results[index] = result;
      done++;
      onResult?.(result, done, cases.length);
    }
  }
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, cases.length)) }, worker),
  );
  return results;
}
