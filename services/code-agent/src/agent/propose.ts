import type { AgentContext } from '@fleet/a2a/server';
import { failed, type AgentEvents } from '@fleet/agent-kit';
import { summarizeDataFiles } from '../data-files';
import { SandboxUnavailableError } from '../sandbox';
import { askApproval } from './ask-approval';
import type { CodeProposal, ProposalInput } from './code-proposal';
import type { CodeAgentSettings } from './code-agent-settings';
import { runApproved } from './run-approved';

/**
 * Proposes a program: fails the task when the sandbox cannot run code here; otherwise asks for
 * approval (TASK_STATE_AUTH_REQUIRED, see `askApproval`) or, with approval off, runs it at once,
 * and then each fix of a failed run the same way.
 *
 * @example
 * yield* propose(settings, context, { task, written, attempt: 1, previousAttempts: [] });
 */
export async function* propose(
  settings: CodeAgentSettings,
  context: AgentContext,
  input: ProposalInput,
): AgentEvents {
  let next: ProposalInput | undefined = input;
  while (next !== undefined) {
    const { task, written, attempt, previousAttempts }: ProposalInput = next;
    const status = await settings.sandbox.check();
    if (!status.available) {
      yield failed(
        new SandboxUnavailableError(
          `The sandbox cannot run code here, so the program was not run: ${status.reason}`,
        ),
        { extra: { code: written.code } },
      );
      return;
    }
    const proposal: CodeProposal = {
      code: written.code,
      source: written.source,
      attempt,
      task: task.task,
      expiresAt: new Date(settings.now().getTime() + settings.approvalTtlMs).toISOString(),
      previousAttempts,
      dataFiles: summarizeDataFiles(task.dataFiles),
    };
    if (settings.requireApproval) {
      yield askApproval({ proposal, mode: settings.sandbox.mode });
      return;
    }
    next = yield* runApproved(settings, context, { task, proposal, approved: false });
  }
}
