import { createHash } from 'node:crypto';
import {
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type ApprovalDecision,
  type ApprovalRequest,
  type Part,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { ConflictError, PermissionDeniedError, toFleetError } from '@fleet/errors';
import {
  Attributes,
  getActiveSpan,
  setSessionAttributes,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import { INPUTS_FILENAME, type CodeWriter, type WrittenCode } from '../authoring';
import { formatBytes, SandboxUnavailableError, type CodeRun, type Sandbox } from '../sandbox';
import { latestProposal, type AttemptSummary, type CodeProposal } from './code-proposal';
import { firstTask, readCodeInput, type CodeTask } from './read-code-input';
import type { CodeResultData, ErrorData } from './result-data';

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
  tracer?: WithSpanOptions['tracer'];
}

type Events = AsyncGenerator<AgentEvent, void, undefined>;

/** Characters of stdout and stderr quoted in the result's text part. */
const MAX_QUOTED_OUTPUT = 3_000;
/** Characters of an attempt's stderr kept for the next one. */
const MAX_KEPT_STDERR = 2_000;

function errorStatus(
  state: 'TASK_STATE_FAILED' | 'TASK_STATE_REJECTED',
  error: unknown,
  code?: string,
): AgentEvent {
  const fleetError = toFleetError(error);
  const data: ErrorData = {
    error: {
      code: fleetError.code,
      message: fleetError.message,
      ...(fleetError.details === undefined ? {} : { details: fleetError.details }),
    },
    ...(code === undefined ? {} : { code }),
  };
  return { type: 'status', state, message: [textPart(fleetError.message), dataPart(data)] };
}

function lineCount(code: string): number {
  return code.trimEnd().split('\n').length;
}

function shorten(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

function tail(text: string, length: number): string {
  return text.length <= length ? text : `…${text.slice(-length)}`;
}

/** The claim key of one program: a repeated approval of the same code never runs it twice. */
function runKey(proposal: Pick<CodeProposal, 'attempt' | 'code'>): string {
  const digest = createHash('sha256').update(proposal.code).digest('hex').slice(0, 16);
  return `run-code:${proposal.attempt}:${digest}`;
}

function describeRun(run: CodeRun, data: CodeResultData): string {
  const lines: string[] = [];
  const how =
    run.outcome === 'ok'
      ? `Ran the Python program (exit code 0, ${(run.durationMs / 1000).toFixed(1)} s).`
      : run.limitMessage !== null
        ? `The Python program was stopped. ${run.limitMessage}`
        : `The Python program failed (exit code ${String(run.exitCode)}).`;
  lines.push(how);
  if (run.stdout.trim() !== '') {
    lines.push(
      `Output:\n${run.stdout.length > MAX_QUOTED_OUTPUT ? `${run.stdout.slice(0, MAX_QUOTED_OUTPUT)}…` : run.stdout.trimEnd()}`,
    );
  } else {
    lines.push('It printed nothing.');
  }
  if (run.outcome !== 'ok' && run.stderr.trim() !== '') {
    lines.push(`Errors:\n${tail(run.stderr.trimEnd(), MAX_QUOTED_OUTPUT)}`);
  }
  if (data.files.length > 0) {
    lines.push(
      `Files written: ${data.files.map((file) => `${file.filename} (${file.mediaType}, ${formatBytes(file.bytes)})`).join(', ')}.`,
    );
  }
  if (data.previousAttempts.length > 0) {
    lines.push(
      `This is attempt ${data.attempt}: the earlier program${data.previousAttempts.length === 1 ? '' : 's'} failed and ${data.previousAttempts.length === 1 ? 'was' : 'were'} fixed.`,
    );
  }
  return lines.join('\n\n');
}

function fileParts(run: CodeRun): Part[] {
  return run.files.map((file) => ({
    raw: file.bytes.toString('base64'),
    filename: file.filename,
    mediaType: file.mediaType,
  }));
}

/**
 * The code agent (docs/architecture.md §4, §10): one task per request.
 *
 * 1. The first message (task text, optional `{ fleet }` node input): the writer produces the
 *    program (the LLM, or offline the task's own ```python block; without one the task fails
 *    saying so). If the sandbox cannot run code here the task fails with the reason and nothing
 *    runs.
 * 2. With approval required (the default) the task moves to TASK_STATE_AUTH_REQUIRED: the status
 *    message has `{ approval: { action: 'run-code', summary, preview: <the full program>, risk,
 *    expiresAt } }` and `{ codeProposal }`.
 * 3. The continuation `{ approvalDecision }`: `deny` (or an expired approval) ends the task
 *    REJECTED and runs nothing; `approve` runs exactly the proposed program, claimed with
 *    `claimOnce` first so a repeated approval never runs it twice. Approval instructions make the
 *    LLM rewrite the program, which then needs a new approval.
 * 4. The `result` artifact: a text part, the data part (`codeResultDataSchema`) and a file part
 *    per file written. A program that succeeds completes the task; one that fails is fixed by the
 *    LLM (up to `maxAttempts`, each fix approved again) or fails the task with its output.
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
  tracer,
}: CreateCodeAgentOptions): AgentExecute {
  /** Asks for approval of `written`, or runs it straight away when approval is off. */
  async function* propose(
    context: AgentContext,
    {
      task,
      written,
      attempt,
      previousAttempts,
    }: {
      task: CodeTask;
      written: WrittenCode;
      attempt: number;
      previousAttempts: AttemptSummary[];
    },
  ): Events {
    const status = await sandbox.check();
    if (!status.available) {
      yield errorStatus(
        'TASK_STATE_FAILED',
        new SandboxUnavailableError(
          `The sandbox cannot run code here, so the program was not run: ${status.reason}`,
        ),
        written.code,
      );
      return;
    }
    const expiresAt = new Date(now().getTime() + approvalTtlMs).toISOString();
    const proposal: CodeProposal = {
      code: written.code,
      source: written.source,
      attempt,
      task: task.task,
      expiresAt,
      previousAttempts,
    };
    if (!requireApproval) {
      yield* runApproved(context, { task, proposal, approved: false });
      return;
    }
    const what = attempt === 1 ? 'a' : 'a fixed';
    const approval: ApprovalRequest = {
      action: 'run-code',
      summary: `Run ${what} ${lineCount(written.code)}-line Python program ${sandbox.mode === 'bubblewrap' ? 'in the sandbox (no network, limited time and memory)' : 'WITHOUT a sandbox'} for: ${shorten(task.task, 160)}`,
      preview: written.code,
      risk: sandbox.mode === 'bubblewrap' ? 'medium' : 'high',
      expiresAt,
    };
    yield {
      type: 'status',
      state: 'TASK_STATE_AUTH_REQUIRED',
      message: [
        textPart(
          `Approval needed to run this Python program:\n\n\`\`\`python\n${written.code}\`\`\``,
        ),
        dataPart({ approval }),
        dataPart({ codeProposal: proposal }),
      ],
    };
  }

  async function* runApproved(
    context: AgentContext,
    { task, proposal, approved }: { task: CodeTask; proposal: CodeProposal; approved: boolean },
  ): Events {
    if (!(await context.claimOnce(runKey(proposal)))) {
      yield errorStatus(
        'TASK_STATE_FAILED',
        new ConflictError(
          'This program was already started for this task (the approval arrived twice); it is not run again.',
        ),
        proposal.code,
      );
      return;
    }
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: `Running the program (attempt ${proposal.attempt})…`,
    };
    const run = await withSpan(
      {
        name: 'code_agent.run_code',
        kind: SpanKind.TOOL,
        input: proposal.code,
        attributes: {
          [Attributes.TOOL_NAME]: 'run-python',
          'code_agent.attempt': proposal.attempt,
          'code_agent.sandbox': sandbox.mode,
        },
        tracer,
      },
      async (span) => {
        const result = await sandbox.run({
          code: proposal.code,
          inputFiles: { [INPUTS_FILENAME]: JSON.stringify(task.dependencyOutputs, null, 2) },
          signal: context.signal,
        });
        span.setAttribute('code_agent.outcome', result.outcome);
        if (result.exitCode !== null) span.setAttribute('code_agent.exit_code', result.exitCode);
        setSpanOutput(span, {
          outcome: result.outcome,
          exitCode: result.exitCode,
          stdout: result.stdout,
          stderr: result.stderr,
          files: result.files.map((file) => file.filename),
        });
        return result;
      },
    );
    if (run.outcome === 'canceled') throw new Error('The run was canceled.');

    const data: CodeResultData = {
      language: 'python',
      code: proposal.code,
      codeSource: proposal.source,
      stdout: run.stdout,
      stderr: run.stderr,
      exitCode: run.exitCode,
      ...(run.signal === undefined ? {} : { signal: run.signal }),
      outcome: run.outcome,
      limitMessage: run.limitMessage,
      stdoutTruncated: run.stdoutTruncated,
      stderrTruncated: run.stderrTruncated,
      durationMs: run.durationMs,
      files: run.files.map((file) => ({
        filename: file.filename,
        mediaType: file.mediaType,
        bytes: file.bytes.length,
      })),
      skippedFiles: run.skippedFiles,
      attempt: proposal.attempt,
      previousAttempts: proposal.previousAttempts,
      memory: run.memory,
      sandbox: run.mode,
      approved,
    };

    if (run.outcome !== 'ok' && writer.online && proposal.attempt < maxAttempts) {
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: `The program failed (${run.limitMessage ?? `exit code ${String(run.exitCode)}`}); writing a fix…`,
      };
      const written = await writer.write(
        {
          task: proposal.task,
          dependencyOutputs: task.dependencyOutputs,
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
      yield* propose(context, {
        task: { ...task, task: proposal.task },
        written,
        attempt: proposal.attempt + 1,
        previousAttempts: [...proposal.previousAttempts, summary],
      });
      return;
    }

    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart(describeRun(run, data)), dataPart(data), ...fileParts(run)],
      },
      lastChunk: true,
    };
    if (run.outcome === 'ok') {
      yield {
        type: 'status',
        state: 'TASK_STATE_COMPLETED',
        message: `Ran the program: exit code 0${run.files.length > 0 ? `, ${run.files.length} file(s) written` : ''}.`,
      };
      return;
    }
    const reason =
      run.limitMessage ??
      `The program failed with exit code ${String(run.exitCode)}: ${shorten(run.stderr.trim().split('\n').at(-1) ?? '', 300)}`;
    yield {
      type: 'status',
      state: 'TASK_STATE_FAILED',
      message: [
        textPart(reason),
        dataPart({
          error: { code: 'CODE_FAILED', message: reason },
          code: proposal.code,
        } satisfies ErrorData),
      ],
    };
  }

  async function* start(context: AgentContext, task: CodeTask): Events {
    setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: writer.online ? 'Writing the program…' : 'Reading the program in the task…',
    };
    const written = await writer.write(
      { task: task.task, dependencyOutputs: task.dependencyOutputs },
      context.signal,
    );
    yield* propose(context, { task, written, attempt: 1, previousAttempts: [] });
  }

  async function* continueTask(context: AgentContext, decision: ApprovalDecision): Events {
    const history = context.task.history ?? [];
    const proposal = latestProposal(history);
    if (proposal === undefined) {
      yield {
        type: 'status',
        state: 'TASK_STATE_REJECTED',
        message: 'This task has no program waiting for approval, so there is nothing to decide.',
      };
      return;
    }
    const task: CodeTask = firstTask(history) ?? {
      task: proposal.task,
      dependencyOutputs: {},
      sessionId: undefined,
    };
    setSessionAttributes(getActiveSpan(), { sessionId: task.sessionId });
    if (decision.decision === 'deny') {
      const why = decision.instructions?.trim() ? decision.instructions.trim() : 'no reason given';
      yield errorStatus(
        'TASK_STATE_REJECTED',
        new PermissionDeniedError(`Denied: ${why}. The program was not run.`),
        proposal.code,
      );
      return;
    }
    if (now().getTime() > Date.parse(proposal.expiresAt)) {
      yield errorStatus(
        'TASK_STATE_REJECTED',
        new PermissionDeniedError(
          `The approval came after the request expired (${proposal.expiresAt}); the program was not run. Ask again to get a fresh approval request.`,
        ),
        proposal.code,
      );
      return;
    }
    const instructions = decision.instructions?.trim() ?? '';
    if (instructions !== '' && writer.online) {
      // Changed code needs a new approval: the person approves what will actually run.
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: 'Rewriting the program with the instructions…',
      };
      const newTask = decision.effectiveTask?.trim() ? decision.effectiveTask : proposal.task;
      const rewritten = await writer.write(
        {
          task: newTask,
          dependencyOutputs: task.dependencyOutputs,
          instructions,
        },
        context.signal,
      );
      if (rewritten.code !== proposal.code) {
        yield* propose(context, {
          task: { ...task, task: newTask },
          written: rewritten,
          attempt: proposal.attempt,
          previousAttempts: proposal.previousAttempts,
        });
        return;
      }
    } else if (instructions !== '') {
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: 'Offline, instructions cannot change the program: running it exactly as approved.',
      };
    }
    yield* runApproved(context, { task, proposal, approved: true });
  }

  return async function* codeAgent(context: AgentContext): Events {
    const input = readCodeInput(context.message.parts);
    if (input.kind === 'invalid') {
      yield { type: 'status', state: 'TASK_STATE_REJECTED', message: input.reason };
      return;
    }
    try {
      if (input.kind === 'decision') {
        if (!context.isContinuation) {
          yield {
            type: 'status',
            state: 'TASK_STATE_REJECTED',
            message:
              'An approval decision continues a task that waits for approval (send it with that taskId).',
          };
          return;
        }
        yield* continueTask(context, input.decision);
        return;
      }
      if (context.isContinuation) {
        yield {
          type: 'status',
          state: 'TASK_STATE_REJECTED',
          message:
            'This task waits for an approval decision: send { approvalDecision: { decision: "approve" | "deny" } }.',
        };
        return;
      }
      yield* start(context, input.task);
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield errorStatus('TASK_STATE_FAILED', error);
    }
  };
}
