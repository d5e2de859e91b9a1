import type { CallToolResult } from '@modelcontextprotocol/server';
import { describeApproval, type ApprovalEvent } from './approval-form';
import type { AskOutput } from './ask-schemas';
import { structuredResult } from './tool-results';

/**
 * The `ask` tool's result for `answer`: its structured content, led by what the run waits for
 * and, when it stopped at an approval the client could not be asked about (`waiting`), how to
 * decide it (the API or the console) and follow the run on.
 */
export function answerResult(
  answer: AskOutput,
  waiting: ApprovalEvent | undefined,
  sessionId: string | undefined,
): CallToolResult {
  const result = structuredResult(answer);
  if (answer.waiting !== undefined) result.content.unshift({ type: 'text', text: answer.waiting });
  if (waiting !== undefined && answer.approval !== undefined) {
    result.content.unshift({
      type: 'text',
      text: `${describeApproval(waiting)}\nSession ${sessionId ?? ''} waits for this approval: approve or deny it with POST ${answer.approval.decide.path} {"decision": "approve"|"deny"} or in the console at ${answer.approval.decide.console}, then call ask again with session_id "${sessionId ?? ''}" to follow the run.`,
    });
  }
  return result;
}
