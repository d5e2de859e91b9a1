import { partsText } from '@fleet/a2a';
import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import { failed, refused, rejected, type AgentEvents } from '@fleet/agent-kit';
import { FleetError } from '@fleet/errors';
import { createJsonSchemaChecker, type JsonSchemaChecker } from '@fleet/mcp';
import type { WithSpanOptions } from '@fleet/telemetry';
import { handleDecision } from './handle-decision';
import { readToolsInput } from './read-tools-input';
import { startTask } from './start-task';
import { ToolOutcomeUnknownError } from './tool-errors';
import { createToolQuestions, type ToolQuestions } from './tool-questions';
import type { ToolsAgentSettings } from './tools-agent-settings';

/** Options for {@link createToolsAgent}. */
export interface CreateToolsAgentOptions {
  catalog: ToolsAgentSettings['catalog'];
  /** The model that picks tools and arguments; absent offline. */
  llm?: ToolsAgentSettings['llm'];
  /** Model calls one step may make. @default 4 */
  maxRounds?: number;
  /** How long an approval request stays valid, in milliseconds. @default 900000 */
  approvalTtlMs?: number;
  /** @default a new `createJsonSchemaChecker()` */
  checker?: JsonSchemaChecker;
  /** Work waiting for answers to MCP servers' questions. @default a new `createToolQuestions()` */
  questions?: ToolQuestions;
  /** @default () => new Date() */
  now?: () => Date;
  tracer?: WithSpanOptions['tracer'];
}

/** True when the task's last status asked an MCP server's question (`{ mcpQuestion }`). */
function askedQuestion(context: AgentContext): boolean {
  const history = context.task.history ?? [];
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message?.role !== 'ROLE_AGENT') continue;
    return message.parts.some(
      (part) => typeof part.data === 'object' && part.data !== null && 'mcpQuestion' in part.data,
    );
  }
  return false;
}

/**
 * The tools agent: one task per step.
 *
 * 1. The first message (text, optional `{ fleet }` node input with `skill` and `toolPolicy`):
 *    the tool is found and checked (`startTask`); a tool the policy does not permit ends the task
 *    REJECTED and nothing is sent. With a model, it picks tools and arguments (`runWithModel`).
 * 2. Arguments are checked against the tool's input schema before anything is sent (a
 *    VALIDATION_FAILED failure naming the fields otherwise).
 * 3. A tool that needs approval (`toolApproval`: not read-only by trusted hints, or the operator's
 *    `approval` rule) moves the task to TASK_STATE_AUTH_REQUIRED with `{ approval: { action:
 *    'call-tool', … } }` and `{ pendingToolCalls }`; the continuation `{ approvalDecision }` denies
 *    (nothing sent) or approves (each call made once, `claimOnce`) (`handleDecision`).
 * 4. The `result` artifact: the tool's text, its structured content as a data part, its images,
 *    audio and resources as file parts; `isError: true` fails the task with the tool's words.
 * 5. A server that asks the person something during a call (elicitation) moves the task to
 *    TASK_STATE_INPUT_REQUIRED with the question and `{ mcpQuestion }`; the call stays open in this
 *    process (`createToolQuestions`), and the continuation's text is the answer
 *    (`answerElicitation`: a value, JSON, `field: value` lines, "decline" or "cancel").
 *
 * @example
 * const execute = createToolsAgent({ catalog, llm: model.llm });
 */
export function createToolsAgent({
  catalog,
  llm,
  maxRounds = 4,
  approvalTtlMs = 900_000,
  checker = createJsonSchemaChecker(),
  questions = createToolQuestions(),
  now = () => new Date(),
  tracer,
}: CreateToolsAgentOptions): AgentExecute {
  const settings: ToolsAgentSettings = {
    catalog,
    llm,
    maxRounds,
    approvalTtlMs,
    checker,
    questions,
    now,
    tracer,
  };
  return async function* toolsAgent(context: AgentContext): AgentEvents {
    if (context.isContinuation) {
      const resumed = questions.resume(context, partsText(context.message.parts));
      if (resumed !== undefined) {
        yield* guarded(context, resumed);
        return;
      }
      if (askedQuestion(context)) {
        yield failed(
          new ToolOutcomeUnknownError(
            "The MCP server's question was answered, but the call that asked it is no longer open (the tools agent restarted, or the call ended long ago). Whether the tool did anything is unknown; check before asking again.",
          ),
        );
        return;
      }
    }
    yield* guarded(
      context,
      questions.run(context, (detached) => work(detached)),
    );
  };

  /** The events of `events`, with a thrown error as the task's end (REJECTED or FAILED). */
  async function* guarded(context: AgentContext, events: AgentEvents): AgentEvents {
    try {
      yield* events;
    } catch (error) {
      if (context.signal.aborted) throw error;
      // A refusal (tool policy, a denial, an expired approval) is REJECTED; anything else FAILED.
      yield FleetError.isInstance(error) && error.code === 'PERMISSION_DENIED'
        ? refused(error)
        : failed(error);
    }
  }

  async function* work(context: AgentContext): AgentEvents {
    const input = readToolsInput(context.message.parts);
    if (input.kind === 'invalid') {
      yield rejected(input.reason);
    } else if (input.kind === 'task' && !context.isContinuation) {
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
  }
}
