import { findData, nodeInputSchema, partsText, type Message, type NodeInput } from '@fleet/a2a';

/** What a task's first user message asks: its text and the plan node input, if any. */
export interface OriginalRequest {
  task: string;
  node: NodeInput['fleet'] | undefined;
}

/**
 * The message's task and node input, from the first user message of the task.
 *
 * @example
 * const { task, node } = originalRequest(context.message);
 */
export function originalRequest(message: Message): OriginalRequest {
  return {
    task: partsText(message.parts).trim(),
    node: findData(message.parts, nodeInputSchema)?.fleet,
  };
}
