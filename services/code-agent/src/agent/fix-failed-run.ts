import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { working } from '@fleet/agent-kit';
import type { CodeWriter } from '../authoring';
import type { CodeRun } from '../sandbox';
import { tail } from '../text';
import type { AttemptSummary, CodeProposal, ProposalInput } from './code-proposal';
import type { CodeTask } from './read-code-input';

/** Characters of an attempt's stderr kept for the next one. */
const MAX_KEPT_STDERR = 2_000;

/** Options for {@link fixFailedRun}. */
export interface FixFailedRunOptions {
  writer: CodeWriter;
  task: CodeTask;
  /** The program that failed. */
  proposal: CodeProposal;
  run: CodeRun;
}

/**
 * Has the writer fix a program that failed (saying so in a WORKING status) and returns the fix to
 * propose as the next attempt, with the failed one summed up among the previous attempts.
 *
 * @example
 * const next = yield* fixFailedRun(context, { writer, task, proposal, run });
 */
export async function* fixFailedRun(
  context: AgentContext,
  { writer, task, proposal, run }: FixFailedRunOptions,
): AsyncGenerator<AgentEvent, ProposalInput, undefined> {
  yield working(
    `The program failed (${run.limitMessage ?? `exit code ${String(run.exitCode)}`}); writing a fix…`,
    { stage: 'fixing' },
  );
  const written = await writer.write(
    {
      task: proposal.task,
      dependencyOutputs: task.dependencyOutputs,
      dataFiles: task.dataFiles,
      previousAttempt: {
        code: proposal.code,
        exitCode: run.exitCode,
        stderr: run.stderr,
        stdout: run.stdout,
        limitMessage: run.limitMessage,
      },
    },
    context.signal,
  );
  const summary: AttemptSummary = {
    attempt: proposal.attempt,
    code: proposal.code,
    outcome: run.outcome,
    exitCode: run.exitCode,
    stderr: tail(run.stderr, MAX_KEPT_STDERR),
    limitMessage: run.limitMessage,
  };
  return {
    task: { ...task, task: proposal.task },
    written,
    attempt: proposal.attempt + 1,
    previousAttempts: [...proposal.previousAttempts, summary],
  };
}
