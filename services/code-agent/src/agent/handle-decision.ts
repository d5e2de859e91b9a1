import type { ApprovalDecision } from '@fleet/a2a';
import type { AgentContext } from '@fleet/a2a/server';
import { refused, rejected, working, type AgentEvents } from '@fleet/agent-kit';
import { PermissionDeniedError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { latestProposal, type CodeProposal } from './code-proposal';
import type { CodeAgentSettings } from './code-agent-settings';
import { propose } from './propose';
import { firstTask, type CodeTask } from './read-code-input';
import { runApproved } from './run-approved';

/** Why the proposal may not run: denied, or approved too late; undefined when it may. */
function refusal(
  settings: CodeAgentSettings,
  proposal: CodeProposal,
  decision: ApprovalDecision,
): PermissionDeniedError | undefined {
  if (decision.decision === 'deny') {
    const why = decision.instructions?.trim() ? decision.instructions.trim() : 'no reason given';
    return new PermissionDeniedError(`Denied: ${why}. The program was not run.`);
  }
  if (settings.now().getTime() > Date.parse(proposal.expiresAt)) {
    return new PermissionDeniedError(
      `The approval came after the request expired (${proposal.expiresAt}); the program was not run. Ask again to get a fresh approval request.`,
    );
  }
  return undefined;
}

/**
 * The continuation `{ approvalDecision }` of a task waiting for approval: `deny` (or an expired
 * approval) ends it REJECTED and runs nothing; `approve` runs exactly the proposed program
 * (`runApproved`). Instructions with the approval make the LLM rewrite the program, which then
 * needs a new approval; offline they cannot change it and it runs as approved.
 *
 * @example
 * yield* handleDecision(settings, context, input.decision);
 */
export async function* handleDecision(
  settings: CodeAgentSettings,
  context: AgentContext,
  decision: ApprovalDecision,
): AgentEvents {
  const { writer } = settings;
  const history = context.task.history ?? [];
  const proposal = latestProposal(history);
  if (proposal === undefined) {
    yield rejected('This task has no program waiting for approval, so there is nothing to decide.');
    return;
  }
  const task: CodeTask = firstTask(history, settings.dataLimits) ?? {
    task: proposal.task,
    dependencyOutputs: {},
    dataFiles: [],
    sessionId: undefined,
  };
  setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
  const refusedBecause = refusal(settings, proposal, decision);
  if (refusedBecause !== undefined) {
    yield refused(refusedBecause, { extra: { code: proposal.code } });
    return;
  }
  const instructions = decision.instructions?.trim() ?? '';
  if (instructions !== '' && writer.online) {
    // Changed code needs a new approval: the person approves what will actually run.
    yield working('Rewriting the program with the instructions…', { stage: 'writing' });
    const newTask = decision.effectiveTask?.trim() ? decision.effectiveTask : proposal.task;
    const rewritten = await writer.write(
      {
        task: newTask,
        dependencyOutputs: task.dependencyOutputs,
        dataFiles: task.dataFiles,
        instructions,
      },
      context.signal,
    );
    if (rewritten.code !== proposal.code) {
      yield* propose(settings, context, {
        task: { ...task, task: newTask },
        written: rewritten,
        attempt: proposal.attempt,
        previousAttempts: proposal.previousAttempts,
      });
      return;
    }
  } else if (instructions !== '') {
    yield working(
      'Offline, instructions cannot change the program: running it exactly as approved.',
    );
  }
  const fix = yield* runApproved(settings, context, { task, proposal, approved: true });
  if (fix !== undefined) yield* propose(settings, context, fix);
}
