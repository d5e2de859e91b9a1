import { z } from 'zod';
import type { Message } from '@fleet/a2a';
import { findData } from '@fleet/a2a';
import type { WrittenCode } from '../authoring';
import { dataFileSummarySchema } from '../data-files';
import type { CodeTask } from './read-code-input';

/** A finished earlier attempt, kept with the next proposal so the result can show them all. */
export const attemptSummarySchema = z.object({
  attempt: z.number().int().min(1),
  code: z.string(),
  outcome: z.string(),
  exitCode: z.number().int().nullable(),
  /** The end of its stderr. */
  stderr: z.string(),
  limitMessage: z.string().nullable(),
});
export type AttemptSummary = z.infer<typeof attemptSummarySchema>;

/**
 * The program the agent asks approval for: a data part `{ codeProposal }` of its
 * TASK_STATE_AUTH_REQUIRED status message, beside `{ approval }`. On the continuation the agent
 * reads it back from the task's history, from its own (agent-role) messages only, so a client
 * cannot slip in a different program than the one approved.
 */
export const codeProposalSchema = z.object({
  codeProposal: z.object({
    code: z.string().min(1),
    source: z.enum(['llm', 'task']),
    /** 1 for the first program, 2 for the first fix, … */
    attempt: z.number().int().min(1),
    /** The task it was written for (without the earlier steps' results). */
    task: z.string(),
    /** When the approval lapses (ISO time). */
    expiresAt: z.string(),
    previousAttempts: z.array(attemptSummarySchema).default([]),
    /** The step's own files the program will see read-only at `/data`, with their SHA-256. */
    dataFiles: z.array(dataFileSummarySchema).default([]),
  }),
});
export type CodeProposal = z.infer<typeof codeProposalSchema>['codeProposal'];

/**
 * The latest program the agent proposed in a task, from its own messages in the history (the
 * status messages move there as the task goes on), or undefined.
 *
 * @example
 * const proposal = latestProposal(context.task.history ?? []);
 */
export function latestProposal(history: readonly Message[]): CodeProposal | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message === undefined || message.role !== 'ROLE_AGENT') continue;
    const proposal = findData(message.parts, codeProposalSchema);
    if (proposal !== undefined) return proposal.codeProposal;
  }
  return undefined;
}

/** A program written for a task, to propose: the first, a rewrite, or the fix of a failed one. */
export interface ProposalInput {
  task: CodeTask;
  written: WrittenCode;
  /** 1 for the first program, 2 for the first fix, … */
  attempt: number;
  previousAttempts: AttemptSummary[];
}
