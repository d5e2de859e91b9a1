import type OpenAI from 'openai';
import { z } from 'zod';
import type { InstructionMode } from '@fleet/a2a';
import { generateObject } from '@fleet/llm';

/** The LLM the classifier may use; absent in offline mode. */
export interface ClassifierLlm {
  client: OpenAI;
  model: string;
}

/** Options for {@link classifyInstructions}. */
export interface ClassifyInstructionsOptions {
  /** The task as it stands (the node's task). */
  task: string;
  /** What the approver added to the approval. */
  instructions: string;
  /** Undefined: offline, `enhance` without asking. */
  llm?: ClassifierLlm | undefined;
  signal?: AbortSignal | undefined;
  logger?: { warn(object: object, message?: string): void } | undefined;
}

/** How an approver's instructions apply, and the task to carry out now. */
export interface ClassifiedInstructions {
  mode: InstructionMode;
  effectiveTask: string;
  /** `fallback`: offline, or the LLM call failed. */
  classifier: 'llm' | 'fallback';
}

/** What the model answers. */
const classificationSchema = z.object({
  mode: z.enum(['enhance', 'override']),
  effectiveTask: z.string(),
});

const CLASSIFIER_INSTRUCTIONS = [
  'A person approved an action that an agent is about to take, and added instructions.',
  'Decide how the instructions apply to the agent’s task.',
  'mode "enhance": they add to or refine the task, so the agent does both (e.g. task "Email Bob the report", instructions "also cc Alice").',
  'mode "override": they replace the task, so the agent does this instead (e.g. task "Search AI trends", instructions "search the cricket world cup instead").',
  'For "override", write effectiveTask: the task to carry out now, as one instruction to the agent that keeps every detail the person gave.',
  'For "enhance", effectiveTask may be empty.',
].join(' ');

/**
 * The task after an approver's instructions: `enhance` (the original task plus "Additional
 * instructions from the approver: …") or `override` (the instructions instead of the task, which
 * the LLM may rephrase into one instruction). One small structured-output call decides which;
 * offline, or when the call fails (logged), the answer is `enhance` — the safe side: nothing the
 * approver or the requester asked for is dropped.
 *
 * @example
 * const { mode, effectiveTask } = await classifyInstructions({ task: node.task, instructions, llm });
 */
export async function classifyInstructions({
  task,
  instructions,
  llm,
  signal,
  logger,
}: ClassifyInstructionsOptions): Promise<ClassifiedInstructions> {
  const enhanced = {
    mode: 'enhance' as const,
    effectiveTask: enhanceTask(task, instructions),
  };
  if (llm === undefined) return { ...enhanced, classifier: 'fallback' };
  try {
    const { object } = await generateObject({
      client: llm.client,
      model: llm.model,
      schema: classificationSchema,
      schemaName: 'approval_instructions',
      schemaDescription: 'How the approver’s instructions apply to the agent’s task.',
      messages: [
        { role: 'system', content: CLASSIFIER_INSTRUCTIONS },
        {
          role: 'user',
          content: `Task:\n${task}\n\nInstructions from the approver:\n${instructions}`,
        },
      ],
      temperature: 0,
      maxTokens: 400,
      ...(signal === undefined ? {} : { signal }),
    });
    if (object.mode === 'enhance') return { ...enhanced, classifier: 'llm' };
    const rephrased = object.effectiveTask.trim();
    return {
      mode: 'override',
      effectiveTask: rephrased === '' ? instructions.trim() : rephrased,
      classifier: 'llm',
    };
  } catch (error) {
    if (signal?.aborted === true) throw error;
    logger?.warn(
      { err: error, model: llm.model },
      'classifying the approver’s instructions failed; applying them in addition to the task',
    );
    return { ...enhanced, classifier: 'fallback' };
  }
}

/** The original task followed by the approver's instructions. */
export function enhanceTask(task: string, instructions: string): string {
  return `${task}\n\nAdditional instructions from the approver: ${instructions.trim()}`;
}
