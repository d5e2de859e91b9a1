import { createHash } from 'node:crypto';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { failed, working } from '@fleet/agent-kit';
import { ConflictError, PermissionDeniedError } from '@fleet/errors';
import { sameDataFiles, summarizeDataFiles } from '../data-files';
import type { CodeProposal, ProposalInput } from './code-proposal';
import type { CodeAgentSettings } from './code-agent-settings';
import { fixFailedRun } from './fix-failed-run';
import type { CodeTask } from './read-code-input';
import { reportRun } from './report-run';
import { runInSandbox } from './run-in-sandbox';

/** Options for {@link runApproved}. */
export interface RunApprovedOptions {
  task: CodeTask;
  proposal: CodeProposal;
  /** False when approval is off (CODE_AGENT_ALLOW_UNAPPROVED). */
  approved: boolean;
}

/** The claim key of one program: a repeated approval of the same code never runs it twice. */
function runKey(proposal: Pick<CodeProposal, 'attempt' | 'code'>): string {
  const digest = createHash('sha256').update(proposal.code).digest('hex').slice(0, 16);
  return `run-code:${proposal.attempt}:${digest}`;
}

/**
 * Runs a proposed program once (claimed with `claimOnce` first, so a repeated approval fails
 * instead of running it again). A failed run with attempts left (online) is fixed, and the fix is
 * returned for the caller to propose; otherwise the run is reported (`reportRun`) and nothing is
 * returned.
 *
 * @example
 * const fix = yield* runApproved(settings, context, { task, proposal, approved: true });
 * if (fix !== undefined) yield* propose(settings, context, fix);
 */
export async function* runApproved(
  settings: CodeAgentSettings,
  context: AgentContext,
  { task, proposal, approved }: RunApprovedOptions,
): AsyncGenerator<AgentEvent, ProposalInput | undefined, undefined> {
  const { writer, sandbox, maxAttempts, tracer } = settings;
  if (!sameDataFiles(summarizeDataFiles(task.dataFiles), proposal.dataFiles)) {
    // The approval covered the program and the files it reads; other files need a new one.
    yield failed(
      new PermissionDeniedError(
        'The files for /data are not the ones that were approved with this program, so it was not run.',
      ),
      { extra: { code: proposal.code } },
    );
    return undefined;
  }
  if (!(await context.claimOnce(runKey(proposal)))) {
    yield failed(
      new ConflictError(
        'This program was already started for this task (the approval arrived twice); it is not run again.',
      ),
      { extra: { code: proposal.code } },
    );
    return undefined;
  }
  yield working(`Running the program (attempt ${proposal.attempt})…`, { stage: 'running' });
  const run = await runInSandbox({ sandbox, task, proposal, signal: context.signal, tracer });
  if (run.outcome === 'canceled') throw new Error('The run was canceled.');
  if (run.outcome !== 'ok' && writer.online && proposal.attempt < maxAttempts) {
    return yield* fixFailedRun(context, { writer, task, proposal, run });
  }
  yield* reportRun({ run, proposal, approved });
  return undefined;
}
