import { z } from 'zod';
import { agentSteeringSchema, citationSchema } from '@fleet/a2a';

/** Longest question `ask` takes, in characters. */
export const MAX_QUESTION_CHARS = 32_000;

/** Arguments of `ask`. */
export const askInputSchema = z.strictObject({
  question: z
    .string({ error: 'question must be a string' })
    .min(1, 'question must not be empty')
    .max(MAX_QUESTION_CHARS, `question must be at most ${MAX_QUESTION_CHARS} characters`)
    .describe('What to ask the fleet, in your own words.'),
  route: z
    .enum(['orchestration', 'reasoning', 'auto'], {
      error: "route must be 'orchestration', 'reasoning' or 'auto'",
    })
    .default('orchestration')
    .describe(
      "How the fleet answers: 'orchestration' (default) plans steps over the fleet's agents, 'reasoning' thinks step by step with tools, 'auto' lets the gateway choose.",
    ),
  session_id: z
    .string({ error: 'session_id must be a string' })
    .min(1, 'session_id must not be empty')
    .max(128, 'session_id must be at most 128 characters')
    .optional()
    .describe(
      'Continue one of your sessions instead of starting a run: follow it to its end, or answer the question it waits for with `question`.',
    ),
  agents: agentSteeringSchema
    .optional()
    .describe(
      "Steer the plan of a new orchestrated run: agent or skill names ('rag-agent', 'mail-agent/send-mail', 'send-mail') to prefer, require or exclude. A continued session keeps its own.",
    ),
  plan_approval: z
    .boolean({ error: 'plan_approval must be true or false' })
    .optional()
    .describe(
      'Show the plan of a new orchestrated run to a person for approval before any step runs (asked of you like every approval).',
    ),
  result_review: z
    .boolean({ error: 'result_review must be true or false' })
    .optional()
    .describe(
      "Hold a new orchestrated run's answer for a person's review (approve, or send steps back) before it is final.",
    ),
});
export type AskInput = z.infer<typeof askInputSchema>;

/** Where an `ask` stands when it answers. */
export const askStateSchema = z.enum([
  'completed',
  'partial',
  'failed',
  'canceled',
  'waiting_approval',
  'waiting_input',
  'waiting_review',
  'running',
]);
export type AskState = z.infer<typeof askStateSchema>;

/** One step of the run, as the session records it. */
export const askStepSchema = z.object({
  id: z.string(),
  agent: z.string(),
  state: z.string(),
  summary: z.string().optional(),
  error: z.string().optional(),
});
export type AskStep = z.infer<typeof askStepSchema>;

/** The approval an `ask` stopped at (state `waiting_approval`). */
export const askApprovalSchema = z.object({
  id: z.string(),
  kind: z.string(),
  action: z.string(),
  summary: z.string(),
  preview: z.string(),
  risk: z.string(),
  expiresAt: z.string(),
  /** How to decide it: the API route and the console page. */
  decide: z.object({ method: z.literal('POST'), path: z.string(), console: z.string() }),
});
export type AskApproval = z.infer<typeof askApprovalSchema>;

/** What `ask` answers. */
export const askOutputSchema = z.object({
  answer: z.string(),
  citations: z.array(citationSchema),
  steps: z.array(askStepSchema),
  usage: z
    .object({
      promptTokens: z.number(),
      completionTokens: z.number(),
      totalTokens: z.number(),
      complete: z.boolean(),
    })
    .optional(),
  /** The session the run is recorded in (absent for an answer no session records). */
  session_id: z.string().optional(),
  state: askStateSchema,
  /** The run's progress lines, in order (the most recent 50). */
  progress: z.array(z.string()),
  approval: askApprovalSchema.optional(),
  /** What the run waits for beside an approval (a question, a review), and how to give it. */
  waiting: z.string().optional(),
  /** Why the run did not complete, when it did not. */
  error: z.string().optional(),
  /** The session in the web console. */
  console: z.string().optional(),
});
export type AskOutput = z.infer<typeof askOutputSchema>;
