import { z } from 'zod';
import type { Part } from '../schemas/core';
import type { RunUsage, StepUsage, TokenUsage } from './conventions';

/**
 * The key under which a fleet agent reports the usage of its model calls (docs/a2a.md §8,
 * "Usage"): in the `metadata` of its `result` artifact and of the status update that ends a turn.
 */
export const USAGE_METADATA_KEY = 'usage';

const count = z.number().min(0).transform(Math.round);

// Liberal in what we accept (CONTRIBUTING.md convention 9): the fleet's camelCase shape, or
// OpenAI's snake_case `usage`, from any agent; counts a sender left out are derived or assumed.
const reportedUsageSchema = z.union([
  z.looseObject({
    promptTokens: count,
    completionTokens: count,
    totalTokens: count.optional(),
    calls: count.optional(),
    unknownCalls: count.optional(),
  }),
  z
    .looseObject({ prompt_tokens: count, completion_tokens: count, total_tokens: count.optional() })
    .transform((usage) => ({
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
      calls: undefined,
      unknownCalls: undefined,
    })),
]);

const usageHolderSchema = z.looseObject({ [USAGE_METADATA_KEY]: reportedUsageSchema });

/**
 * Reads the usage an agent reported under `usage` in `holder` (an artifact's or a status update's
 * `metadata`, or a `result` data part). Read leniently: camelCase (`promptTokens`, …) or OpenAI's
 * snake_case (`prompt_tokens`, …); a missing total is the sum, missing `calls` is 1 when tokens
 * were used and 0 otherwise. Undefined when `holder` says nothing usable about usage.
 *
 * @example
 * readReportedUsage({ usage: { prompt_tokens: 12, completion_tokens: 3 } });
 * // { promptTokens: 12, completionTokens: 3, totalTokens: 15, calls: 1, unknownCalls: 0 }
 */
export function readReportedUsage(holder: unknown): TokenUsage | undefined {
  const parsed = usageHolderSchema.safeParse(holder);
  if (!parsed.success) return undefined;
  const usage = parsed.data[USAGE_METADATA_KEY];
  const totalTokens = usage.totalTokens ?? usage.promptTokens + usage.completionTokens;
  return {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens,
    calls: usage.calls ?? (totalTokens > 0 ? 1 : 0),
    unknownCalls: usage.unknownCalls ?? 0,
  };
}

/** The usage reported in a `result` artifact's data parts (`{ …, usage }`), if any says one. */
export function readUsageFromParts(parts: readonly Part[]): TokenUsage | undefined {
  for (const part of parts) {
    const usage = part.data === undefined ? undefined : readReportedUsage(part.data);
    if (usage !== undefined) return usage;
  }
  return undefined;
}

/** Options for {@link stepUsage}. */
export interface StepUsageOptions {
  /** `planner`, a node id, `composer`, `classifier`, `memory`, `approval-instructions`. */
  step: string;
  agent?: string | undefined;
  /** Undefined: the step's agent reported nothing (`reported: false`). */
  usage: TokenUsage | undefined;
}

/** One step's usage; an unreported one has no counts and `reported: false`. */
export function stepUsage({ step, agent, usage }: StepUsageOptions): StepUsage {
  return {
    step,
    ...(agent === undefined ? {} : { agent }),
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    totalTokens: usage?.totalTokens ?? 0,
    calls: usage?.calls ?? 0,
    unknownCalls: usage?.unknownCalls ?? 0,
    reported: usage !== undefined,
  };
}

/**
 * Adds usage to a step of the same name (a step that ran twice, a node's later turns): sums the
 * counts; the step stays reported only if both were.
 */
export function addStepUsage(steps: readonly StepUsage[], added: StepUsage): StepUsage[] {
  const index = steps.findIndex((step) => step.step === added.step);
  if (index === -1) return [...steps, added];
  const known = steps[index] as StepUsage;
  const merged: StepUsage = {
    ...known,
    promptTokens: known.promptTokens + added.promptTokens,
    completionTokens: known.completionTokens + added.completionTokens,
    totalTokens: known.totalTokens + added.totalTokens,
    calls: known.calls + added.calls,
    unknownCalls: known.unknownCalls + added.unknownCalls,
    reported: known.reported && added.reported,
  };
  return steps.map((step, at) => (at === index ? merged : step));
}

/**
 * A run's usage from its steps: the sums of the known counts, and `complete` only when every step
 * reported its usage and no call's usage is unknown. A run with no steps made no model call and is
 * complete.
 *
 * @example
 * sumRunUsage([stepUsage({ step: 'planner', usage }), stepUsage({ step: 'n1', agent: 'sdk', usage: undefined })]);
 * // { promptTokens: …, complete: false, steps: [ … ] }
 */
export function sumRunUsage(steps: readonly StepUsage[]): RunUsage {
  const sum = (pick: (step: StepUsage) => number): number =>
    steps.reduce((total, step) => total + pick(step), 0);
  return {
    promptTokens: sum((step) => step.promptTokens),
    completionTokens: sum((step) => step.completionTokens),
    totalTokens: sum((step) => step.totalTokens),
    calls: sum((step) => step.calls),
    unknownCalls: sum((step) => step.unknownCalls),
    complete: steps.every((step) => step.reported && step.unknownCalls === 0),
    steps: [...steps],
  };
}

/**
 * Whether any token count of a run is known: a step reported calls whose usage the upstream gave.
 * When none is, OpenAI's `usage` is left out rather than reported as zero.
 */
export function usageKnown(usage: TokenUsage): boolean {
  return usage.calls > 0;
}
