import { dataPart, textPart } from '@fleet/a2a';
import {
  buildAgentCard,
  createA2AHandler,
  endLostTurn,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import { guardTaskMessages } from './guard-task-messages';
import { createOrchestratorAgent } from './orchestrator-agent';
import type { OrchestratorAgentOptions, SupersededTask } from './orchestrator-agent-options';

/** Ends a task whose session went on under another one (its turn was lost: see `endLostTurn`). */
function supersedeTaskIn(store: TaskStore) {
  return async ({ taskId, sessionId, runnerTaskId }: SupersededTask): Promise<void> => {
    await endLostTurn({
      store,
      taskId,
      message: [
        textPart(
          `Session ${sessionId} goes on under task ${runnerTaskId}; follow that task (SubscribeToTask).`,
        ),
        dataPart({ handedOver: { sessionId, taskId: runnerTaskId } }),
      ],
      metadata: { sessionId, handedOver: true, runnerTaskId },
    });
  };
}

/** Options for {@link createOrchestratorHandler}. */
export interface CreateOrchestratorHandlerOptions {
  /** The base URL other services reach the orchestrator at; the card names `<url>/a2a`. */
  url: string;
  /** Where the orchestrator's own A2A tasks live (Redis in production). */
  store: TaskStore;
  /** Everything a run uses. */
  agent: OrchestratorAgentOptions;
  logger?: A2ALogger | undefined;
  /** @default '0.1.0' */
  version?: string;
}

/**
 * The orchestrator's A2A handler: its card (bearer token required) and the orchestrator agent.
 * A caller that goes away does not cancel the run (`cancelOnDisconnect: false`): it completes and
 * is recorded in its session; CancelTask stops it. A task whose orchestrator died mid-run stays
 * WORKING (`lostTurns: 'take-over'`): a resume of its session sent to that task (`taskId` and
 * `resumeSessionId`) takes it over, so its followers get the rest of the run; any other message
 * to an existing task is refused (-32602). `close()` first hands the running sessions
 * over (they stay resumable, their leases are released), then closes the handler. With
 * `agent.scheduler` and `agent.admission`, runs are admitted fairly (docs/architecture.md §5,
 * "Scheduling") and a new run whose tenant's queue is full is refused with `RATE_LIMITED`.
 *
 * @example
 * const handler = createOrchestratorHandler({ url: publicUrl, store: new RedisTaskStore({ redis }), agent });
 */
export function createOrchestratorHandler({
  url,
  store,
  agent,
  logger,
  version = '0.1.0',
}: CreateOrchestratorHandlerOptions): A2AHandler {
  const card = buildAgentCard({
    name: 'orchestrator',
    description:
      'Plans a request over the fleet’s agents, runs the plan as a DAG (each step as soon as its dependencies finish), and composes one cited answer.',
    version,
    url,
    internalToken: true,
    skills: [
      {
        id: 'orchestrate',
        name: 'Orchestrate',
        description:
          'Text part: the request. Data part: { "fleet": { "tenant", "user"?, "history"?, "plan"?, "planApproval"?: "required" | "none", "resultReview"?: "required" | "none", "resumeSessionId"?, "toolPolicy"?: { "allow"?, "deny"? }, "steering"?: { "prefer"?, "require"?, "exclude"? } } } ("user": whose long-term memory the run uses; "toolPolicy": which MCP tools the tenant may use; "steering": agents or skills to prefer, require or leave out). Streams progress as status updates (approvals included) and answers with a `result` artifact (text: the answer; data: the run result). With resumeSessionId it continues that session from where it stopped.',
        tags: ['orchestration', 'planning', 'multi-agent'],
      },
    ],
  });
  const orchestrator = createOrchestratorAgent({
    supersedeTask: supersedeTaskIn(store),
    ...agent,
  });
  // A run's work is durable (its session): a task whose orchestrator died is never failed for its
  // lost turn; a resume sent to it takes it over (docs/a2a.md §3, "Lost turns").
  const inner = guardTaskMessages(
    createA2AHandler({
      card,
      execute: orchestrator.execute,
      store,
      cancelOnDisconnect: false,
      lostTurns: 'take-over',
      ...(logger === undefined ? {} : { logger }),
    }),
  );
  // New runs reserve their tenant's place (or are refused, 429) before their task exists.
  const handler = agent.admission?.guard(inner) ?? inner;
  return {
    card: handler.card,
    handle: (body, context) => handler.handle(body, context),
    close: async () => {
      await orchestrator.handOver();
      await handler.close();
    },
    ...(handler.observeTurns === undefined
      ? {}
      : { observeTurns: handler.observeTurns.bind(handler) }),
  };
}
