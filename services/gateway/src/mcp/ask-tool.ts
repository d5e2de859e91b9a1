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
import type { RequestLimits, TenantLimiter } from '../tenant-limits';
import { argumentsDigest } from './approval-state';
import { askInputSchema, askOutputSchema, type AskInput } from './ask-schemas';
import { askOutput, type Followed } from './ask-answer';
import { watchCancel } from './ask-cancel';
import { canElicit } from './ask-elicitation';
import { followAskRun } from './ask-follow';
import {
  applyStatedDecision,
  approvalInputRequired,
  modernElicitation,
} from './ask-input-required';
import { startAskRun } from './ask-run';
import type { AskCaller, AskScope, AskToolDependencies } from './ask-scope';
import { answerResult } from './ask-waiting';
import { withCachedJsonSchema } from './cached-json-schema';
import { toolError } from './tool-results';

export { APPROVAL_INPUT_KEY } from './ask-input-required';
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
  { args, ctx, sessionId }: { args: AskInput; ctx: ServerContext; sessionId: string | undefined },
): Promise<Followed> {
  const { deps, caller } = scope;
  const { tenant } = caller;
  const elicitation = await canElicit(scope);
  const run = startAskRun(route, {
    tenant,
    question: args.question,
    route: args.route,
    sessionId,
    steering: isEmptySteering(args.agents) ? undefined : args.agents,
    planApproval: args.plan_approval === true ? 'required' : 'none',
    resultReview: args.result_review === true ? 'required' : undefined,
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
    run.close();
  }
  known = followed.sessionId ?? known;
  return { ...followed, sessionId: known };
}

/** Answers one `ask` call: applies a 2026-era retry's decision, runs, and answers or asks again. */
async function answerAsk(
  scope: AskScope,
  args: AskInput,
  ctx: ServerContext,
): Promise<CallToolResult> {
  const { deps, caller } = scope;
  const route = deps.route;
  if (route === undefined) {
    throw new ServiceUnavailableError(
      'Asking the fleet needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
    );
  }
  const digest = argumentsDigest(args);
  const retry = await applyStatedDecision(scope, ctx, digest);
  if (retry.kind === 'answered') return retry.result;
  const followed = await runAsk(scope, route, {
    args,
    ctx,
    sessionId: retry.kind === 'decided' ? retry.sessionId : args.session_id,
  });
  const known = followed.sessionId;
  const session =
    known === undefined
      ? undefined
      : await deps.sessions.getForTenant(known, caller.tenant).catch(() => undefined);
  const answer = askOutput(followed, session);
  const waiting = followed.waiting;
  if (
    waiting !== undefined &&
    known !== undefined &&
    caller.era === 'modern' &&
    modernElicitation(ctx)
  ) {
    return approvalInputRequired(scope, { waiting, sessionId: known, digest });
  }
  return answerResult(answer, waiting, known);
}

/**
 * The `ask` tool: runs a question through the fleet (the chat completions route's code) and
 * answers with the run's answer, citations, steps and usage. Approvals the run asks for are asked
 * of the client: as an elicitation (2025-11-25 clients that declared it), as an input-required
 * result with a signed `requestState` (2026-07-28), or else answered `waiting_approval` with how to
 * decide. docs/mcp.md, "Asking the fleet".
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
        "Runs a question or a task through the A2A Fleet: the orchestrator plans steps over the fleet's agents (documents, web, code, mail, tools…) and composes an answer with citations. Actions that need a person's approval are asked of you. Returns the answer, its citations, the steps and their states, token usage and the session id (pass it as session_id to continue or follow the session).",
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
