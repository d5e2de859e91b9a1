import { z } from 'zod';

/** Token counts of a run, summed over its model calls. */
export const reasoningUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  /** True when the upstream reported no usage for some call and it was estimated (4 characters a token). */
  estimated: z.boolean().optional(),
});
export type ReasoningUsage = z.infer<typeof reasoningUsageSchema>;

/** One visible step of a run: a thought, a tool call, or a tool's result. */
export const reasoningStepSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thought'), iteration: z.number().int(), text: z.string() }),
  z.object({
    type: z.literal('tool-call'),
    iteration: z.number().int(),
    callId: z.string(),
    name: z.string(),
    /** The model's arguments, as the JSON text it sent. */
    arguments: z.string(),
  }),
  z.object({
    type: z.literal('tool-result'),
    iteration: z.number().int(),
    callId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    /** The result the model reads back, or the error message when `ok` is false. */
    output: z.string(),
  }),
]);
export type ReasoningStep = z.infer<typeof reasoningStepSchema>;

/** Why a run ended: the model answered, or a budget ran out first. */
export const stopReasonSchema = z.enum(['answered', 'iteration-budget', 'token-budget']);
export type StopReason = z.infer<typeof stopReasonSchema>;

/** What a run produced. */
export interface ReasoningOutcome {
  answer: string;
  stopReason: StopReason;
  /** Model calls made. */
  iterations: number;
  usage: ReasoningUsage;
  steps: ReasoningStep[];
  /** The model that answered, as the upstream named it. */
  model: string;
}

/**
 * What {@link runReasoning} yields: each step as it happens, the answer's text in pieces
 * (`answer-delta`, joining to the outcome's answer when the model answered), then the outcome.
 */
export type ReasoningEvent =
  | { type: 'step'; step: ReasoningStep }
  | { type: 'answer-delta'; text: string }
  | { type: 'end'; outcome: ReasoningOutcome };
