import type OpenAI from 'openai';
import type { Clock } from '@fleet/llm';
import type { PlanRequest, PlanResult } from '@fleet/a2a';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { planHeuristically } from './heuristic-planner';
import { planWithLlm } from './plan-with-llm';

/** The upstream LLM the planner uses when one is configured. */
export interface PlannerLlm {
  client: OpenAI;
  model: string;
  /** @default 0 */
  temperature?: number;
}

/** The logging the planner does: why an LLM plan was not used. A pino logger fits. */
export interface PlannerLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createPlanner}. */
export interface CreatePlannerOptions {
  /** Undefined in offline mode: every plan is heuristic. */
  llm?: PlannerLlm | undefined;
  logger?: PlannerLogger | undefined;
  tracer?: WithSpanOptions['tracer'];
  /** The clock the LLM prompt's date line reads. @default the system clock */
  clock?: Clock | undefined;
}

/** Per-call options of {@link Planner.plan}. */
export interface PlanOptions {
  /** Aborts the LLM call (the task was canceled); the heuristic planner is instant. */
  signal?: AbortSignal | undefined;
}

/** Turns a plan request into a plan: by LLM when it can, heuristically otherwise. */
export interface Planner {
  /** Never fails for lack of a plan: the heuristic planner always answers. Throws only when aborted. */
  plan(request: PlanRequest, options?: PlanOptions): Promise<PlanResult>;
}

/** The `fallbackReason` when no upstream LLM is configured. */
export const OFFLINE_REASON =
  'No upstream LLM is configured (offline mode), so the heuristic planner answered.';

/** The `fallbackReason` when the request asked for the heuristic planner. */
export const HEURISTIC_REQUESTED_REASON =
  'The request asked for the heuristic planner (strategy "heuristic").';

/**
 * The planner (docs/architecture.md §5). With an LLM and `strategy: 'auto'` it asks the LLM for the plan
 * (see {@link planWithLlm}: one repair round with the validation errors); when that yields no
 * valid plan, or offline, or with `strategy: 'heuristic'`, the heuristic planner answers and
 * `fallbackReason` says why. Each call is one `planner.plan` span (kind CHAIN) with the request as
 * input and the result as output.
 *
 * @example
 * const planner = createPlanner({ llm: { client, model: config.llmModel }, logger });
 * const { plan, source } = await planner.plan(planRequest, { signal });
 */
export function createPlanner({ llm, logger, tracer, clock }: CreatePlannerOptions = {}): Planner {
  const heuristic = (
    request: PlanRequest,
    fallback: { attempts: number; reason: string },
  ): PlanResult => ({
    plan: planHeuristically({
      request: request.request,
      agents: request.agents,
      ...(request.files === undefined ? {} : { files: request.files }),
      ...(request.steering === undefined ? {} : { steering: request.steering }),
    }),
    source: 'heuristic',
    attempts: fallback.attempts,
    fallbackReason: fallback.reason,
  });

  async function decide(
    request: PlanRequest,
    signal: AbortSignal | undefined,
  ): Promise<PlanResult> {
    if (request.strategy === 'heuristic') {
      return heuristic(request, { attempts: 0, reason: HEURISTIC_REQUESTED_REASON });
    }
    if (!llm) return heuristic(request, { attempts: 0, reason: OFFLINE_REASON });
    const outcome = await planWithLlm({
      client: llm.client,
      model: llm.model,
      request,
      ...(llm.temperature === undefined ? {} : { temperature: llm.temperature }),
      ...(signal ? { signal } : {}),
      ...(tracer ? { tracer } : {}),
      ...(clock ? { clock } : {}),
    });
    if (outcome.success) return { plan: outcome.plan, source: 'llm', attempts: outcome.attempts };
    logger?.warn(
      { reason: outcome.reason, attempts: outcome.attempts, err: outcome.cause },
      'LLM plan unusable; the heuristic planner answers',
    );
    return heuristic(request, { attempts: outcome.attempts, reason: outcome.reason });
  }

  return {
    plan(request, { signal } = {}) {
      return withSpan(
        {
          name: 'planner.plan',
          kind: SpanKind.CHAIN,
          input: request.request,
          attributes: {
            'planner.agents': request.agents.map((agent) => agent.name),
            'planner.strategy': request.strategy,
          },
          ...(tracer ? { tracer } : {}),
        },
        async (span) => {
          const result = await decide(request, signal);
          setSpanOutput(span, result);
          span.setAttributes({
            'planner.source': result.source,
            'planner.attempts': result.attempts,
            'planner.nodes': result.plan.nodes.length,
          });
          return result;
        },
      );
    },
  };
}
