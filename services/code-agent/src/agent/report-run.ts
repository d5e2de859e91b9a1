import { dataPart, textPart } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { completed, result } from '@fleet/agent-kit';
import type { CodeRun } from '../sandbox';
import { shorten } from '../text';
import type { CodeProposal } from './code-proposal';
import { describeRun, fileParts } from './describe-run';
import { codeResultData, type CodeErrorData } from './result-data';

/** Options for {@link reportRun}. */
export interface ReportRunOptions {
  run: CodeRun;
  proposal: CodeProposal;
  /** False when the program ran without a person's approval. */
  approved: boolean;
}

/**
 * Ends the task with a finished run: the `result` artifact (its description, the data part and a
 * file part per file written), then COMPLETED when the program succeeded, else FAILED with the
 * reason and `{ error: { code: 'CODE_FAILED', … }, code }`.
 *
 * @example
 * yield* reportRun({ run, proposal, approved: true });
 */
export function* reportRun({
  run,
  proposal,
  approved,
}: ReportRunOptions): Generator<AgentEvent, void, undefined> {
  const data = codeResultData({ run, proposal, approved });
  yield result(describeRun(run, data), data, fileParts(run));
  if (run.outcome === 'ok') {
    yield completed(
      `Ran the program: exit code 0${run.files.length > 0 ? `, ${run.files.length} file(s) written` : ''}.`,
    );
    return;
  }
  const reason =
    run.limitMessage ??
    `The program failed with exit code ${String(run.exitCode)}: ${shorten(run.stderr.trim().split('\n').at(-1) ?? '', 300)}`;
  // CODE_FAILED is no FleetError code: the program failed, not the agent.
  yield {
    type: 'status',
    state: 'TASK_STATE_FAILED',
    message: [
      textPart(reason),
      dataPart({
        error: { code: 'CODE_FAILED', message: reason },
        code: proposal.code,
      } satisfies CodeErrorData),
    ],
  };
}
