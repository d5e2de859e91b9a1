import { dataPart, textPart, type ApprovalRequest } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { formatBytes, SANDBOX_DATA_DIR, type SandboxMode } from '../sandbox';
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

/** The data files the program will see, for the approval's summary and text ('' without any). */
function dataFilesLine(proposal: CodeProposal): string {
  if (proposal.dataFiles.length === 0) return '';
  const files = proposal.dataFiles.map(
    (file) => `${SANDBOX_DATA_DIR}/${file.name} (${file.mediaType}, ${formatBytes(file.bytes)})`,
  );
  return `It can read ${proposal.dataFiles.length === 1 ? 'this file' : `these ${proposal.dataFiles.length} files`} (read-only): ${files.join(', ')}.`;
}

/**
 * The TASK_STATE_AUTH_REQUIRED status that asks a person to approve `proposal`: the program as
 * text, `{ approval: { action: 'run-code', summary, preview: <the full program>, risk, expiresAt } }`
 * and `{ codeProposal }`, which the continuation reads back. The summary and the text list the
 * files the program will see at `/data` (also in `codeProposal.dataFiles`, with their SHA-256).
 *
 * @example
 * yield askApproval({ proposal, mode: sandbox.mode });
 */
export function askApproval({ proposal, mode }: AskApprovalOptions): AgentEvent {
  const what = proposal.attempt === 1 ? 'a' : 'a fixed';
  const files = dataFilesLine(proposal);
  const approval: ApprovalRequest = {
    action: 'run-code',
    summary: `Run ${what} ${lineCount(proposal.code)}-line Python program ${mode === 'bubblewrap' ? 'in the sandbox (no network, limited time and memory)' : 'WITHOUT a sandbox'} for: ${shorten(proposal.task, 160)}${files === '' ? '' : ` ${shorten(files, 600)}`}`,
    preview: proposal.code,
    risk: mode === 'bubblewrap' ? 'medium' : 'high',
    expiresAt: proposal.expiresAt,
  };
  return {
    type: 'status',
    state: 'TASK_STATE_AUTH_REQUIRED',
    message: [
      textPart(
        `Approval needed to run this Python program:\n\n\`\`\`python\n${proposal.code}\`\`\`${files === '' ? '' : `\n\n${files}`}`,
      ),
      dataPart({ approval }),
      dataPart({ codeProposal: proposal }),
    ],
  };
}
