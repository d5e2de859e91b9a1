import { z } from 'zod';
import { reasoningStepSchema, reasoningUsageSchema, stopReasonSchema } from '../reasoning';

/** One tool call of a run, with its result. */
export const toolCallReportSchema = z.object({
  name: z.string(),
  arguments: z.string(),
  ok: z.boolean(),
  output: z.string(),
});
export type ToolCallReport = z.infer<typeof toolCallReportSchema>;

/**
 * The data part of the `result` artifact, beside the answer text: every step, the tool calls with
 * their results, how many model calls were made, why the run stopped and the tokens it used.
 */
export const reasoningResultDataSchema = z.object({
  steps: z.array(reasoningStepSchema),
  toolCalls: z.array(toolCallReportSchema),
  iterations: z.number().int(),
  stopReason: stopReasonSchema,
  usage: reasoningUsageSchema,
  budget: z.object({ maxIterations: z.number().int(), maxTokens: z.number().int() }),
  model: z.string(),
});
export type ReasoningResultData = z.infer<typeof reasoningResultDataSchema>;

/** The data part of a status message that shows one step: the step itself. */
export const stepDataSchema = z.object({ reasoningStep: reasoningStepSchema });
export type StepData = z.infer<typeof stepDataSchema>;

/** The data part of a FAILED status message: the fleet's error body (the agent kit's). */
export { errorDataSchema, type ErrorData } from '@fleet/agent-kit';
