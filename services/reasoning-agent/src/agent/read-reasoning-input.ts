import { z } from 'zod';
import {
  historyMessageSchema,
  partsText,
  type HistoryMessage,
  type NodeInput,
  toolPolicySchema,
  type Part,
  type ToolPolicy,
} from '@fleet/a2a';
import { validationErrorFromZod } from '@fleet/errors';
import { readNodeInput } from '@fleet/agent-kit';
import {
  DEFAULT_MAX_ATTACHMENT_BYTES,
  DEFAULT_MAX_ATTACHMENTS,
  readAttachments,
  type Attachment,
  type AttachmentLimits,
} from '../reasoning/attachments';

/** Longest question accepted, in characters. */
export const MAX_QUESTION_CHARS = 32_000;
/** Most earlier turns accepted in the conversation data part. */
export const MAX_HISTORY_MESSAGES = 100;

/**
 * The conversation data part the gateway sends beside the question: the turns before it, and the
 * tenant's tool policy (which MCP tools it may use; absent: all the agent offers).
 *
 * @example
 * dataPart({ reasoning: { history: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }], toolPolicy: { deny: ['memory/*'] } } });
 */
export const reasoningRequestSchema = z.object({
  reasoning: z
    .object({
      history: z.array(historyMessageSchema).max(MAX_HISTORY_MESSAGES).default([]),
      toolPolicy: toolPolicySchema.optional(),
    })
    .strict(),
});
export type ReasoningRequest = z.infer<typeof reasoningRequestSchema>['reasoning'];

/** What a message asks the reasoning agent to do. */
export type ReasoningInput =
  | {
      kind: 'question';
      question: string;
      history: HistoryMessage[];
      /** Earlier plan steps' answers, when the orchestrator sent a node input. */
      context: string[];
      node: NodeInput['fleet'] | undefined;
      /**
       * The tool policies that apply: the gateway's (`reasoning.toolPolicy`) and the orchestrator's
       * (`fleet.toolPolicy`); an MCP tool is offered only when every one permits it.
       */
      toolPolicies: ToolPolicy[];
      /** The files that came with the question (file parts), as the model gets them. */
      attachments: Attachment[];
    }
  | { kind: 'invalid'; reason: string };

const hasKey = (key: string) => z.looseObject({ [key]: z.unknown() });

/**
 * Reads a message to the reasoning agent: the question (text part), and optionally the
 * conversation before it (data part `{ reasoning: { history } }`, from the gateway) or the fleet
 * node input (data part `{ fleet: … }`, from the orchestrator), each of which must then be valid.
 * File parts (`raw` with `filename` and `mediaType`) are the question's attachments, read within
 * `limits` (`readAttachments`). Anything else is `invalid`, with a reason that says what the
 * agent needs.
 *
 * @example
 * const input = readReasoningInput(context.message.parts, { maxFiles: 8, maxTotalBytes: 8 * 1024 * 1024 });
 */
export function readReasoningInput(
  parts: readonly Part[],
  limits: AttachmentLimits = {
    maxFiles: DEFAULT_MAX_ATTACHMENTS,
    maxTotalBytes: DEFAULT_MAX_ATTACHMENT_BYTES,
  },
): ReasoningInput {
  let history: HistoryMessage[] = [];
  let node: NodeInput['fleet'] | undefined;
  const toolPolicies: ToolPolicy[] = [];
  const conversation = parts.find((part) => hasKey('reasoning').safeParse(part.data).success);
  if (conversation !== undefined) {
    const parsed = reasoningRequestSchema.safeParse(conversation.data);
    if (!parsed.success) {
      return {
        kind: 'invalid',
        reason: validationErrorFromZod(parsed.error, { subject: 'The reasoning data part' })
          .message,
      };
    }
    history = parsed.data.reasoning.history;
    if (parsed.data.reasoning.toolPolicy) toolPolicies.push(parsed.data.reasoning.toolPolicy);
  }
  const read = readNodeInput(parts);
  if (read.kind === 'invalid') return read;
  if (read.kind === 'node') {
    node = read.node;
    if (node.toolPolicy) toolPolicies.push(node.toolPolicy);
  }
  const question = partsText(parts).trim();
  if (question === '') {
    return {
      kind: 'invalid',
      reason:
        'The reasoning agent needs a question in a text part (optionally with the conversation before it as the data part { reasoning: { history: [{ role, content }] } }).',
    };
  }
  if (question.length > MAX_QUESTION_CHARS) {
    return {
      kind: 'invalid',
      reason: `The question is ${question.length} characters long; the reasoning agent takes at most ${MAX_QUESTION_CHARS}.`,
    };
  }
  const context =
    node === undefined
      ? []
      : Object.entries(node.dependencyOutputs).flatMap(([nodeId, output]) =>
          output.partial === true || output.summary.trim() === ''
            ? []
            : [`${nodeId} (${output.agent}): ${output.summary.slice(0, 2_000)}`],
        );
  const attachments = readAttachments(parts, limits);
  return { kind: 'question', question, history, context, node, toolPolicies, attachments };
}
