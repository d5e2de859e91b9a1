import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import { failed, refused, rejected, type AgentEvents } from '@fleet/agent-kit';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { CodeWriter } from '../authoring';
import { DEFAULT_DATA_FILE_LIMITS, type DataFileLimits } from '../data-files';
import type { Sandbox } from '../sandbox';
import type { CodeAgentSettings } from './code-agent-settings';
import { handleDecision } from './handle-decision';
import { readCodeInput } from './read-code-input';
import { startTask } from './start-task';

/** Options for {@link createCodeAgent}. */
export interface CreateCodeAgentOptions {
  writer: CodeWriter;
  sandbox: Sandbox;
  /**
   * Ask a person before every run (TASK_STATE_AUTH_REQUIRED with the program as the preview).
   * Only CODE_AGENT_ALLOW_UNAPPROVED=true turns it off. @default true
   */
  requireApproval?: boolean;
  /** Programs tried per task: the first plus fixes of failed ones (online only). @default 2 */
  maxAttempts?: number;
  /** How long an approval request stays valid, in milliseconds. @default 600000 */
  approvalTtlMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * How many file parts, and bytes in all, a task may bring for `/data`; more is refused with
   * PAYLOAD_TOO_LARGE. @default DEFAULT_DATA_FILE_LIMITS (16 files, 4 MiB)
   */
  dataLimits?: DataFileLimits;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * The code agent (docs/architecture.md §4, §10): one task per request.
 *
 * 1. The first message (task text, optional `{ fleet }` node input, optional file parts for
 *    `/data`, bounded by `dataLimits`): the writer produces the program (the LLM, or offline the task's own ```python block; without one the task fails
 *    saying so). If the sandbox cannot run code here the task fails with the reason and nothing
 *    runs (`startTask`, `propose`).
 * 2. With approval required (the default) the task moves to TASK_STATE_AUTH_REQUIRED: the status
 *    message has `{ approval: { action: 'run-code', summary, preview: <the full program>, risk,
 *    expiresAt } }` and `{ codeProposal }` (`askApproval`).
 * 3. The continuation `{ approvalDecision }`: `deny` (or an expired approval) ends the task
 *    REJECTED and runs nothing; `approve` runs exactly the proposed program, claimed with
 *    `claimOnce` first so a repeated approval never runs it twice. Approval instructions make the
 *    LLM rewrite the program, which then needs a new approval (`handleDecision`, `runApproved`).
 * 4. The `result` artifact: a text part, the data part (`codeResultDataSchema`) and a file part
 *    per file written. A program that succeeds completes the task; one that fails is fixed by the
 *    LLM (up to `maxAttempts`, each fix approved again) or fails the task with its output
 *    (`fixFailedRun`, `reportRun`).
 *
 * @example
 * const execute = createCodeAgent({ writer, sandbox });
 */
export function createCodeAgent({
  writer,
  sandbox,
  requireApproval = true,
  maxAttempts = 2,
  approvalTtlMs = 600_000,
  now = () => new Date(),
  dataLimits = DEFAULT_DATA_FILE_LIMITS,
  tracer,
}: CreateCodeAgentOptions): AgentExecute {
  const settings: CodeAgentSettings = {
    writer,
    sandbox,
    requireApproval,
    maxAttempts,
    approvalTtlMs,
    now,
    dataLimits,
    tracer,
  };
  return async function* codeAgent(context: AgentContext): AgentEvents {
    const input = readCodeInput(context.message.parts, dataLimits);
    if (input.kind === 'invalid') {
      yield input.error === undefined ? rejected(input.reason) : refused(input.error);
      return;
    }
    try {
      if (input.kind === 'task' && !context.isContinuation) {
        yield* startTask(settings, context, input.task);
      } else if (input.kind === 'decision' && context.isContinuation) {
        yield* handleDecision(settings, context, input.decision);
      } else {
        yield rejected(
          input.kind === 'decision'
            ? 'An approval decision continues a task that waits for approval (send it with that taskId).'
            : 'This task waits for an approval decision: send { approvalDecision: { decision: "approve" | "deny" } }.',
        );
      }
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error);
    }
  };
}
