import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import { failed, refused, rejected, type AgentEvents } from '@fleet/agent-kit';
import { FleetError } from '@fleet/errors';
import { createJsonSchemaChecker, type JsonSchemaChecker } from '@fleet/mcp';
import type { WithSpanOptions } from '@fleet/telemetry';
import { handleDecision } from './handle-decision';
import { readToolsInput } from './read-tools-input';
import { startTask } from './start-task';
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
  /** @default () => new Date() */
  now?: () => Date;
  tracer?: WithSpanOptions['tracer'];
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
  now = () => new Date(),
  tracer,
}: CreateToolsAgentOptions): AgentExecute {
  const settings: ToolsAgentSettings = {
    catalog,
    llm,
    maxRounds,
    approvalTtlMs,
    checker,
    now,
    tracer,
  };
  return async function* toolsAgent(context: AgentContext): AgentEvents {
    const input = readToolsInput(context.message.parts);
    if (input.kind === 'invalid') {
      yield rejected(input.reason);
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
      // A refusal (tool policy, a denial, an expired approval) is REJECTED; anything else FAILED.
      yield FleetError.isInstance(error) && error.code === 'PERMISSION_DENIED'
        ? refused(error)
        : failed(error);
    }
  };
}
