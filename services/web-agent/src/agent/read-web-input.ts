import { partsText, type NodeInput, type Part } from '@fleet/a2a';
import { readNodeInput } from '@fleet/agent-kit';

/** What a message asks the web agent to do. */
export type WebInput =
  | { kind: 'question'; question: string; node: NodeInput['fleet'] | undefined }
  | { kind: 'invalid'; reason: string };

/** Longest message text accepted, in characters (the orchestrator appends earlier steps to the task). */
export const MAX_QUESTION_CHARS = 32_000;

/**
 * Reads a message to the web agent: the question (text part) and, from the orchestrator, the fleet
 * node input (data part `{ fleet: … }`, which must then be valid). A plain text message from any
 * A2A client works too. Anything else is `invalid`, with a reason that says what the agent needs.
 *
 * @example
 * const input = readWebInput(context.message.parts);
 */
export function readWebInput(parts: readonly Part[]): WebInput {
  const read = readNodeInput(parts);
  if (read.kind === 'invalid') return read;
  const node = read.kind === 'node' ? read.node : undefined;
  const question = partsText(parts).trim();
  if (question === '') {
    return {
      kind: 'invalid',
      reason:
        'The web agent needs a question or task in a text part (with the fleet node input data part { fleet: { sessionId, nodeId, tenant, … } } when called by the orchestrator).',
    };
  }
  if (question.length > MAX_QUESTION_CHARS) {
    return {
      kind: 'invalid',
      reason: `The question is ${question.length} characters long; the web agent takes at most ${MAX_QUESTION_CHARS}.`,
    };
  }
  return { kind: 'question', question, node };
}
