import type { ServerResponse } from 'node:http';
import { isEmptySteering } from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import type {
  CallToolResult,
  McpServer,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { ChatCompletionsOptions } from '../chat/chat-completions-route';
import type { QuestionAnswered } from '../sessions';
import type { RequestLimits, TenantLimiter } from '../tenant-limits';
import { argumentsDigest } from './approval-state';
import { askInputSchema, askOutputSchema, type AskInput } from './ask-schemas';
import { askOutput, NOTHING_FOLLOWED, pausedAt, type Followed } from './ask-answer';
import { watchCancel } from './ask-cancel';
import { canElicit } from './ask-elicitation';
import { followAskRun } from './ask-follow';
import { applyStatedRetry, approvalInputRequired, modernElicitation } from './ask-input-required';
import { pauseInputRequired, type StatedRetry } from './ask-pause-state';
import { askPausesByElicitation, type FollowOn } from './ask-pauses';
import { startAskRun } from './ask-run';
import type { AskCaller, AskScope, AskToolDependencies } from './ask-scope';
import { answerResult } from './ask-waiting';
import { withCachedJsonSchema } from './cached-json-schema';
import { toolError } from './tool-results';

export { APPROVAL_INPUT_KEY } from './ask-input-required';
export { QUESTION_INPUT_KEY, REVIEW_INPUT_KEY } from './ask-pause-state';
export type { AskCaller, AskToolDependencies } from './ask-scope';

/** `ask`'s schemas, converted to JSON Schema once per process. */
const ASK_INPUT = withCachedJsonSchema(askInputSchema);
const ASK_OUTPUT = withCachedJsonSchema(askOutputSchema);

/** `ask` runs the fleet: it changes things, may differ each time, and reaches beyond the fleet. */
const ASK_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** The tenant's limits for one run whose response is `res` (as the chat route holds them). */
function runLimits(limiter: TenantLimiter, tenant: string, res: ServerResponse): RequestLimits {
  return {
    usageObserver: () => undefined,
    recordTokens: (tokens) => limiter.recordTokens(tenant, tokens),
    async holdRunSlot() {
      const slot = await limiter.acquireRun({ tenant, res });
      if (res.closed || res.destroyed) slot.release();
      else res.once('close', () => slot.release());
    },
  };
}

/** Reports a run's progress lines as `notifications/progress` when the call asked for them. */
function progressReporter(ctx: ServerContext): (line: string) => void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  return (line) => {
    progress += 1;
    void ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, message: line },
      })
      .catch(() => undefined);
  };
}

/**
 * Starts the run of one `ask` call and follows it, the client's cancel wired to it, until it
 * ends, pauses or waits for an approval: what was followed, with the session known by then.
 */
async function runAsk(
  scope: AskScope,
  route: ChatCompletionsOptions,
  {
    args,
    ctx,
    sessionId,
    answers,
    elicitation,
  }: {
    args: AskInput;
    ctx: ServerContext;
    sessionId: string | undefined;
    /** Continuing a session: which pending question `args.question` answers. */
    answers: QuestionAnswered | undefined;
    /** Whether approvals are asked with an elicitation (2025-11-25). */
    elicitation: boolean;
  },
): Promise<Followed> {
  const { deps, caller } = scope;
  const { tenant } = caller;
  const run = startAskRun(route, {
    tenant,
    question: args.question,
    route: args.route,
    sessionId,
    steering: isEmptySteering(args.agents) ? undefined : args.agents,
    planApproval: args.plan_approval === true ? 'required' : 'none',
    resultReview: args.result_review === true ? 'required' : undefined,
    answers,
    ...(deps.limiter === undefined
      ? {}
      : {
          limits: (res: ServerResponse) => runLimits(deps.limiter as TenantLimiter, tenant, res),
        }),
  });
  let known = sessionId;
  const abort = new AbortController();
  const stopWatching = await watchCancel(scope, {
    ctx,
    run,
    sessionOf: () => known ?? followedSession,
    abort,
  });
  const report = progressReporter(ctx);
  let followedSession: string | undefined;
  let followed: Followed;
  try {
    followed = await followAskRun(scope, {
      ctx,
      run,
      canElicit: elicitation,
      signal: abort.signal,
      report,
      onSession: (id) => {
        followedSession = id;
      },
    });
  } finally {
    stopWatching();
    // Answered only once the session is free to follow again (its attach lease released).
    await run.close();
  }
  known = followed.sessionId ?? known;
  return { ...followed, sessionId: known };
}

/**
 * The answer of a call that followed its run: an approval, a question or a review the run stopped
 * at asked of a 2026-era client that declared elicitation (an input-required result), else the
 * answer, with what the run waits for and how to continue.
 */
async function answerFollowed(
  scope: AskScope,
  ctx: ServerContext,
  { followed, digest }: { followed: Followed; digest: string },
): Promise<CallToolResult> {
  const { deps, caller } = scope;
  const known = followed.sessionId;
  const { waiting } = followed;
  const pause = followed.paused?.asked;
  if (known !== undefined && caller.era === 'modern' && modernElicitation(ctx)) {
    if (waiting !== undefined) {
      return approvalInputRequired(scope, { waiting, sessionId: known, digest });
    }
    if (pause !== undefined) return pauseInputRequired(scope, { pause, sessionId: known, digest });
  }
  const session =
    known === undefined
      ? undefined
      : await deps.sessions.getForTenant(known, caller.tenant).catch(() => undefined);
  return answerResult(askOutput(followed, session), waiting, known);
}

/**
 * The answer of a 2026-era retry after which the session waits for a question or a review: its
 * form asked again (`ask`, when the client declared elicitation), or the session as it waits.
 */
async function answerPaused(
  scope: AskScope,
  ctx: ServerContext,
  paused: Extract<StatedRetry, { kind: 'paused' }> & { digest: string },
): Promise<CallToolResult> {
  const { sessionId, pause } = paused;
  if (paused.ask && modernElicitation(ctx)) return pauseInputRequired(scope, paused);
  const { deps, caller } = scope;
  const session = await deps.sessions.getForTenant(sessionId, caller.tenant).catch(() => undefined);
  const followed = { ...NOTHING_FOLLOWED, sessionId, paused: pausedAt(pause, sessionId) };
  return answerResult(askOutput(followed, session), undefined, sessionId);
}

/**
 * Answers one `ask` call: applies a 2026-era retry's decision or answer, runs, asks a 2025-era
 * client's questions and reviews as the run stops at them, and answers or asks again.
 */
async function answerAsk(
  scope: AskScope,
  args: AskInput,
  ctx: ServerContext,
): Promise<CallToolResult> {
  const route = scope.deps.route;
  if (route === undefined) {
    throw new ServiceUnavailableError(
      'Asking the fleet needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
    );
  }
  const digest = argumentsDigest(args);
  const retry = await applyStatedRetry(scope, ctx, digest);
  if (retry.kind === 'paused') return answerPaused(scope, ctx, { ...retry, digest });
  const elicitation = await canElicit(scope);
  const followOn: FollowOn = ({ sessionId, answer, answers }) =>
    runAsk(scope, route, {
      args: { ...args, question: answer ?? args.question },
      ctx,
      sessionId,
      answers,
      elicitation,
    });
  let followed = await (retry.kind === 'follow'
    ? followOn(retry)
    : runAsk(scope, route, {
        args,
        ctx,
        sessionId: args.session_id,
        answers: undefined,
        elicitation,
      }));
  if (elicitation) followed = await askPausesByElicitation(scope, ctx, { followed, followOn });
  return answerFollowed(scope, ctx, { followed, digest });
}

/**
 * The `ask` tool: runs a question through the fleet (the chat completions route's code) and
 * answers with the run's answer, citations, steps and usage. Approvals, agents' questions and
 * reviews of the answer the run asks for are asked of the client: as an elicitation (2025-11-25
 * clients that declared it), as an input-required result with a signed `requestState`
 * (2026-07-28), or else answered `waiting_approval`, `waiting_input` or `waiting_review` with how
 * to continue. docs/mcp.md, "Asking the fleet".
 */
export function registerAskTool(
  server: McpServer,
  deps: AskToolDependencies,
  caller: AskCaller,
): void {
  const scope: AskScope = { server, deps, caller };
  server.registerTool(
    'ask',
    {
      title: 'Ask the fleet',
      description:
        "Runs a question or a task through the A2A Fleet: the orchestrator plans steps over the fleet's agents (documents, web, code, mail, tools…) and composes an answer with citations. Actions that need a person's approval, questions the agents ask and reviews of the answer are asked of you. Returns the answer, its citations, the steps and their states, token usage and the session id (pass it as session_id to continue or follow the session).",
      inputSchema: ASK_INPUT,
      outputSchema: ASK_OUTPUT,
      annotations: ASK_ANNOTATIONS,
    },
    async (args: AskInput, ctx: ServerContext): Promise<CallToolResult> => {
      try {
        return await answerAsk(scope, args, ctx);
      } catch (error) {
        return toolError(error, scope.deps.logger);
      }
    },
  );
}
