import { z } from 'zod';
import {
  approvalDecisionSchema,
  partsText,
  type ApprovalDecision,
  type DependencyOutput,
  type Message,
  type Part,
  type ToolPolicy,
} from '@fleet/a2a';
import { readNodeInput } from '@fleet/agent-kit';
import { validationErrorFromZod } from '@fleet/errors';

/** The heading the orchestrator puts before the earlier steps' summaries in a node's text part. */
const EARLIER_RESULTS_HEADING = '\n\nResults of earlier steps:\n';

/** A step for the tools agent: what to do, and what the fleet said about it. */
export interface ToolsTask {
  /** The task text, without the orchestrator's rendering of earlier results. */
  text: string;
  /** The skill the plan chose (`<server>/<tool>` for a tool), if any. */
  skill: string | undefined;
  /** Which tools the tenant may use; undefined permits all. */
  toolPolicy: ToolPolicy | undefined;
  /** Arguments given as a data part `{ arguments: { … } }`, if any. */
  dataArguments: Record<string, unknown> | undefined;
  dependencyOutputs: Record<string, DependencyOutput>;
  sessionId: string | undefined;
}

/** What a message asks the tools agent to do. */
export type ToolsInput =
  | { kind: 'task'; task: ToolsTask }
  | { kind: 'decision'; decision: ApprovalDecision }
  | { kind: 'invalid'; reason: string };

const hasDecision = z.looseObject({ approvalDecision: z.unknown() });
const argumentsPart = z.looseObject({ arguments: z.record(z.string(), z.unknown()) });

/**
 * Reads a message to the tools agent: a continuation `{ approvalDecision }`, or a step: its text
 * (a tool named `<server>/<tool>` or by its bare name, and arguments as a JSON object), the
 * optional fleet node input (`skill`, `toolPolicy`, earlier results) and, read liberally, a data
 * part `{ arguments: { … } }`. A fleet part that is there must be valid: a tool policy is never
 * ignored. An empty step is `invalid`.
 *
 * @example
 * const input = readToolsInput(context.message.parts);
 */
export function readToolsInput(parts: readonly Part[]): ToolsInput {
  const decisionData = parts.find((part) => hasDecision.safeParse(part.data).success)?.data;
  if (decisionData !== undefined) {
    const parsed = approvalDecisionSchema.safeParse(decisionData);
    if (!parsed.success) {
      const error = validationErrorFromZod(parsed.error, {
        subject: 'The approvalDecision data part',
      });
      return { kind: 'invalid', reason: error.message };
    }
    return { kind: 'decision', decision: parsed.data.approvalDecision };
  }
  const read = readNodeInput(parts);
  if (read.kind === 'invalid') return read;
  const node = read.kind === 'node' ? read.node : undefined;
  const dependencyOutputs = node?.dependencyOutputs ?? {};
  let text = partsText(parts);
  if (Object.keys(dependencyOutputs).length > 0) {
    const at = text.indexOf(EARLIER_RESULTS_HEADING);
    if (at !== -1) text = text.slice(0, at);
  }
  text = text.trim();
  let dataArguments: Record<string, unknown> | undefined;
  for (const part of parts) {
    const parsed = argumentsPart.safeParse(part.data);
    if (parsed.success) {
      dataArguments = parsed.data.arguments;
      break;
    }
  }
  if (text === '' && node?.skill === undefined) {
    return {
      kind: 'invalid',
      reason:
        'The tools agent needs a step (text part): the tool to call ("<server>/<tool>") with its arguments as a JSON object, or what to do with the tools.',
    };
  }
  return {
    kind: 'task',
    task: {
      text,
      skill: node?.skill,
      toolPolicy: node?.toolPolicy,
      dataArguments,
      dependencyOutputs,
      sessionId: node?.sessionId,
    },
  };
}

/** The step of the first user message of a task's history, for a continuation. */
export function firstTask(history: readonly Message[]): ToolsTask | undefined {
  const first = history.find((message) => message.role === 'ROLE_USER');
  if (first === undefined) return undefined;
  const input = readToolsInput(first.parts);
  return input.kind === 'task' ? input.task : undefined;
}
