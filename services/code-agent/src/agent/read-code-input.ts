import { z } from 'zod';
import {
  approvalDecisionSchema,
  partsText,
  type ApprovalDecision,
  type DependencyOutput,
  type Message,
  type Part,
} from '@fleet/a2a';
import { FleetError, validationErrorFromZod } from '@fleet/errors';
import { readNodeInput } from '@fleet/agent-kit';
import { DEFAULT_DATA_FILE_LIMITS, readDataFiles, type DataFileLimits } from '../data-files';
import type { DataFile } from '../sandbox';

/** The task of a first message: what to write code for, and the earlier steps' results. */
export interface CodeTask {
  task: string;
  dependencyOutputs: Record<string, DependencyOutput>;
  /** The step's own files (its message's file parts), for the program at `/data/<name>`. */
  dataFiles: DataFile[];
  /** The fleet session, when the orchestrator sent the message. */
  sessionId: string | undefined;
}

/** What a message asks the code agent to do. */
export type CodeInput =
  | { kind: 'task'; task: CodeTask }
  | { kind: 'decision'; decision: ApprovalDecision }
  | { kind: 'invalid'; reason: string; error?: FleetError };

const hasDecision = z.looseObject({ approvalDecision: z.unknown() });

/**
 * The heading the orchestrator puts before the earlier steps' summaries in a node's text part;
 * the agent gets those whole in the data part, so the text after it is not part of the task (and
 * a program quoted by an earlier step is never taken for the task's own).
 */
export const EARLIER_RESULTS_HEADING = '\n\nResults of earlier steps:\n';

/** The task in a node's text part, without the orchestrator's rendering of earlier results. */
export function taskText(text: string, hasDependencies: boolean): string {
  if (!hasDependencies) return text.trim();
  const at = text.indexOf(EARLIER_RESULTS_HEADING);
  return (at === -1 ? text : text.slice(0, at)).trim();
}

/**
 * Reads a message to the code agent: a continuation with `{ approvalDecision }`, or a task (text
 * part) with the optional fleet node input (`{ fleet: { dependencyOutputs, … } }`; an A2A client
 * outside the fleet may send text only) and the step's own files (file parts with `raw` bytes,
 * `readDataFiles`, bounded by `dataLimits`). Anything else is `invalid`, with a reason, and for
 * bad files the typed error (PAYLOAD_TOO_LARGE, VALIDATION_FAILED).
 *
 * @example
 * const input = readCodeInput(context.message.parts);
 */
export function readCodeInput(
  parts: readonly Part[],
  dataLimits: DataFileLimits = DEFAULT_DATA_FILE_LIMITS,
): CodeInput {
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
  const dependencyOutputs: Record<string, DependencyOutput> =
    read.kind === 'node' ? read.node.dependencyOutputs : {};
  const sessionId = read.kind === 'node' ? read.node.sessionId : undefined;
  const task = taskText(partsText(parts), Object.keys(dependencyOutputs).length > 0);
  if (task === '') {
    return {
      kind: 'invalid',
      reason:
        'The code agent needs a task (text part): what to calculate, analyse or chart, or a program in a ```python fenced block.',
    };
  }
  let dataFiles: DataFile[];
  try {
    dataFiles = readDataFiles(parts, dataLimits);
  } catch (error) {
    if (!FleetError.isInstance(error)) throw error;
    return { kind: 'invalid', reason: error.message, error };
  }
  return { kind: 'task', task: { task, dependencyOutputs, dataFiles, sessionId } };
}

/**
 * The task of the first message of a task's history (the node input the orchestrator sent), for a
 * continuation that needs the earlier steps' results again.
 */
export function firstTask(
  history: readonly Message[],
  dataLimits: DataFileLimits = DEFAULT_DATA_FILE_LIMITS,
): CodeTask | undefined {
  const first = history.find((message) => message.role === 'ROLE_USER');
  if (first === undefined) return undefined;
  const input = readCodeInput(first.parts, dataLimits);
  return input.kind === 'task' ? input.task : undefined;
}
