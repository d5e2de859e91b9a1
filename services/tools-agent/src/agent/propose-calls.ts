import type { AgentContext } from '@fleet/a2a/server';
import { completed, plural, type AgentEvents } from '@fleet/agent-kit';
import { askApproval } from './ask-approval';
import { checkCall } from './check-call';
import type { ToolsTask } from './read-tools-input';
import { reportCalls, runCalls } from './run-calls';
import { callName, type ToolCall } from './tool-call';
import type { ToolsAgentSettings } from './tools-agent-settings';

/**
 * Proposes calls: each is checked first (`checkCall`: offered, permitted, arguments fit). When a
 * tool needs approval (`toolApproval`), the task waits in TASK_STATE_AUTH_REQUIRED for all of
 * them (`askApproval`); otherwise they are made at once and the step completes with their result.
 *
 * @example
 * yield* proposeCalls(settings, context, { task, calls: [call], revision: 1 });
 */
export async function* proposeCalls(
  settings: ToolsAgentSettings,
  context: AgentContext,
  { task, calls, revision }: { task: ToolsTask; calls: ToolCall[]; revision: number },
): AgentEvents {
  const entries = calls.map((call) => checkCall(settings, call, task.toolPolicy));
  if (entries.some((entry) => entry.approval.required)) {
    const expiresAt = new Date(settings.now().getTime() + settings.approvalTtlMs).toISOString();
    yield askApproval({ pending: { calls, task: task.text, expiresAt, revision }, tools: entries });
    return;
  }
  const outcomes = yield* runCalls(settings, context, { calls, entries, approved: false });
  yield reportCalls(outcomes);
  yield completed(
    `Called ${outcomes.map((outcome) => callName(outcome.call)).join(', ')} (${plural(outcomes.length, 'call')}).`,
  );
}
