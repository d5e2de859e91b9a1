import { dataPart, textPart, type ApprovalRequest } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import type { SandboxMode } from '../sandbox';
import { shorten } from '../text';
import type { CodeProposal } from './code-proposal';

/** Options for {@link askApproval}. */
export interface AskApprovalOptions {
  proposal: CodeProposal;
  /** Where the program would run: `unsandboxed` makes the risk high. */
  mode: SandboxMode;
}

function lineCount(code: string): number {
  return code.trimEnd().split('\n').length;
}

/**
 * The TASK_STATE_AUTH_REQUIRED status that asks a person to approve `proposal`: the program as
 * text, `{ approval: { action: 'run-code', summary, preview: <the full program>, risk, expiresAt } }`
 * and `{ codeProposal }`, which the continuation reads back.
 *
 * @example
 * yield askApproval({ proposal, mode: sandbox.mode });
 */
export function askApproval({ proposal, mode }: AskApprovalOptions): AgentEvent {
  const what = proposal.attempt === 1 ? 'a' : 'a fixed';
  const approval: ApprovalRequest = {
    action: 'run-code',
    summary: `Run ${what} ${lineCount(proposal.code)}-line Python program ${mode === 'bubblewrap' ? 'in the sandbox (no network, limited time and memory)' : 'WITHOUT a sandbox'} for: ${shorten(proposal.task, 160)}`,
    preview: proposal.code,
    risk: mode === 'bubblewrap' ? 'medium' : 'high',
    expiresAt: proposal.expiresAt,
  };
  return {
    type: 'status',
    state: 'TASK_STATE_AUTH_REQUIRED',
    message: [
      textPart(
        `Approval needed to run this Python program:\n\n\`\`\`python\n${proposal.code}\`\`\``,
      ),
      dataPart({ approval }),
      dataPart({ codeProposal: proposal }),
    ],
  };
}
