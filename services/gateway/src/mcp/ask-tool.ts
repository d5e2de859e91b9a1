import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ServiceUnavailableError, FleetError, toFleetError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type McpServer,
  type ServerContext,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { ChatCompletionsOptions } from '../chat/chat-completions-route';
import type { RequestLimits, TenantLimiter } from '../tenant-limits';
import { cancelSession, oldestAnswerableInput, resumeInBackground } from '../sessions';
import { argumentsDigest, MAX_STATE_TTL_MS, type ApprovalStateCodec } from './approval-state';
import { askInputSchema, askOutputSchema, type AskInput, type AskOutput } from './ask-schemas';
import {
  approvalEventSchema,
  DECISION_FORM,
  decisionFormSchema,
  describeApproval,
  type ApprovalEvent,
} from './approval-form';
import { askOutput, NOTHING_FOLLOWED, pausedFor, type Followed } from './ask-answer';
import { startAskRun, type AskRun } from './ask-run';
import { withCachedJsonSchema } from './cached-json-schema';
import type { LegacyExchanges } from './legacy-exchanges';
import { structuredResult, toolError } from './tool-results';

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

/** The key of the approval form among an input-required result's requests. */
export const APPROVAL_INPUT_KEY = 'approval';

/** Progress lines an answer keeps (the most recent). */
const MAX_PROGRESS_LINES = 50;

/** How long a 2025-era call's cancel is still heard after the call ended. */
const CANCEL_GRACE_MS = 10_000;

/** What the `ask` tool needs. */
export interface AskToolDependencies {
  /** The chat completions route's options; undefined: `ask` answers a 503 tool error. */
  route: ChatCompletionsOptions | undefined;
  sessions: SessionStore;
  logger: HttpLogger;
  /** Signs the `requestState` of approvals asked over 2026-07-28. */
  stateCodec: ApprovalStateCodec;
  /** The 2025-11-25 connections' capabilities, elicitation answers and cancels. */
  legacy: LegacyExchanges;
  /** The tenants' limits: a new run holds a run slot and counts its tokens. Undefined: none. */
  limiter?: TenantLimiter | undefined;
}

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

/** Who calls, over which protocol era. */
export interface AskCaller {
  tenant: string;
  era: 'legacy' | 'modern';
  /** The 2025-era connection (`Mcp-Session-Id` the gateway handed out), when there is one. */
  connectionId?: string | undefined;
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

/** Whether a 2026-era call declared form elicitation in its envelope. */
function modernElicitation(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
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
  const { sessions, logger, stateCodec, legacy } = deps;
  const { tenant } = caller;

  const decide = async ({
    sessionId,
    approvalId,
    decision,
    instructions,
  }: {
    sessionId: string;
    approvalId: string;
    decision: 'approve' | 'deny';
    instructions: string | undefined;
  }): Promise<void> => {
    try {
      await sessions.decideApproval({
        sessionId,
        approvalId,
        tenant,
        decision,
        ...(instructions === undefined || instructions === '' ? {} : { instructions }),
      });
    } catch (error) {
      // Decided already (here, in the console, or by a cancel) or expired: the run goes on as it stands.
      if (!(FleetError.isInstance(error) && error.status === 409)) throw error;
    }
    void resumeInBackground({
      store: sessions,
      client: deps.route?.orchestratorClient,
      logger,
      sessionId,
      toolPolicy: deps.route?.toolPermissions?.policyFor(tenant),
    });
  };

  /** Asks a 2025-era client to decide with an elicitation sent on the call's own stream. */
  const elicit = async (
    ctx: ServerContext,
    approval: ApprovalEvent,
    signal: AbortSignal,
  ): Promise<{ decision: 'approve' | 'deny'; instructions: string | undefined }> => {
    const id = `fleet-elicit-${randomUUID()}`;
    const answered = legacy.awaitResponse(tenant, id, signal);
    const transport = server.server.transport;
    if (transport === undefined) throw new ServiceUnavailableError('The MCP call has ended.');
    await transport.send(
      {
        jsonrpc: '2.0',
        id,
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: describeApproval(approval),
          requestedSchema: DECISION_FORM,
        },
      },
      { relatedRequestId: ctx.mcpReq.id },
    );
    const message = await answered;
    const result = message['result'] as { action?: unknown; content?: unknown } | undefined;
    const form = decisionFormSchema.safeParse(result?.content);
    if (result?.action === 'accept' && form.success) {
      return { decision: form.data.decision, instructions: form.data.instructions };
    }
    return { decision: 'deny', instructions: undefined };
  };

  /**
   * The person's decision through the form, or undefined when the approval was decided elsewhere
   * (the console, the API, a cancel) before they answered: the form is then left unanswered and
   * the run goes on.
   */
  const elicitUnlessDecided = async (
    ctx: ServerContext,
    {
      sessionId,
      approval,
      signal,
    }: { sessionId: string; approval: ApprovalEvent; signal: AbortSignal },
  ): Promise<{ decision: 'approve' | 'deny'; instructions: string | undefined } | undefined> => {
    const elsewhere = new AbortController();
    const unsubscribe = await sessions.subscribe(sessionId, (event) => {
      const decided = event.type === 'approval-decided' && event.approvalId === approval.approvalId;
      if (decided || event.type === 'session-canceled') elsewhere.abort();
    });
    try {
      const current = await sessions.get(sessionId);
      if (current?.approvals[approval.approvalId]?.status !== 'pending') return undefined;
      return await elicit(ctx, approval, AbortSignal.any([signal, elsewhere.signal]));
    } catch (error) {
      if (elsewhere.signal.aborted && !signal.aborted) return undefined;
      throw error;
    } finally {
      await unsubscribe();
    }
  };

  const follow = async (
    ctx: ServerContext,
    run: AskRun,
    {
      canElicit,
      signal,
      report,
      onSession,
    }: {
      canElicit: boolean;
      signal: AbortSignal;
      report: (line: string) => void;
      onSession: (sessionId: string) => void;
    },
  ): Promise<Followed> => {
    const followed: Followed = { ...NOTHING_FOLLOWED, lines: [] };
    for await (const event of run.events) {
      switch (event.kind) {
        case 'progress': {
          if (event.line !== '') {
            followed.lines.push(event.line);
            if (followed.lines.length > MAX_PROGRESS_LINES) followed.lines.shift();
            report(event.line);
          }
          const sessionId = event.fleet?.['sessionId'];
          if (typeof sessionId === 'string' && followed.sessionId !== sessionId) {
            followed.sessionId = sessionId;
            onSession(sessionId);
          }
          if (followed.sessionId !== undefined) {
            followed.paused = pausedFor(event.fleet, followed.sessionId);
            if (followed.paused !== undefined) {
              run.stop();
              return followed;
            }
          }
          const approval = approvalEventSchema.safeParse(event.fleet ?? {});
          if (!approval.success || followed.sessionId === undefined) break;
          if (canElicit) {
            const chosen = await elicitUnlessDecided(ctx, {
              sessionId: followed.sessionId,
              approval: approval.data,
              signal,
            });
            if (chosen !== undefined) {
              await decide({
                sessionId: followed.sessionId,
                approvalId: approval.data.approvalId,
                ...chosen,
              });
            }
            break;
          }
          // The client decides on another round, or elsewhere: stop following; the run waits.
          followed.waiting = approval.data;
          run.stop();
          return followed;
        }
        case 'answer':
          followed.answer += event.text;
          break;
        case 'result':
          followed.result = event.result;
          if (typeof event.result['sessionId'] === 'string') {
            followed.sessionId = event.result['sessionId'];
          }
          break;
        case 'failed':
          // Refused before the run began (a bad argument, an unknown or another tenant's session,
          // the orchestrator not configured): the call's error, not the run's.
          if (followed.sessionId === undefined && followed.lines.length === 0) throw event.error;
          followed.error = toFleetError(event.error).message;
          return followed;
        case 'end':
          return followed;
      }
    }
    return followed;
  };

  /** The answer, from what was followed and the session as it stands now. */
  const answerOf = async (followed: Followed): Promise<AskOutput> => {
    const session =
      followed.sessionId === undefined
        ? undefined
        : await sessions.getForTenant(followed.sessionId, tenant).catch(() => undefined);
    return askOutput(followed, session);
  };

  /** Cancels the session on the client's cancel; a client that only went away leaves the run be. */
  const watchCancel = (
    ctx: ServerContext,
    run: AskRun,
    { sessionOf, abort }: { sessionOf: () => string | undefined; abort: AbortController },
  ): (() => void) => {
    const cancel = (): void => {
      abort.abort(new Error('The call was cancelled.'));
      run.stop();
      const sessionId = sessionOf();
      if (sessionId === undefined) return;
      void cancelSession({
        store: sessions,
        client: deps.route?.orchestratorClient,
        logger,
        sessionId,
        tenant,
      }).catch((error: unknown) => logger.warn({ err: error, sessionId }, 'MCP cancel failed'));
    };
    if (caller.era === 'legacy') {
      // notifications/cancelled comes as a POST of its own (routed here); the call's own signal
      // aborts when its connection closes, which is not a cancel.
      const stopListening =
        caller.connectionId === undefined
          ? () => undefined
          : legacy.onCancel(
              { tenant, connectionId: caller.connectionId, requestId: ctx.mcpReq.id },
              cancel,
            );
      const onClose = (): void => {
        abort.abort(new Error('The client went away.'));
        run.stop();
      };
      ctx.mcpReq.signal.addEventListener('abort', onClose, { once: true });
      return () => {
        // A cancel may reach the gateway just after the call's connection closed.
        setTimeout(stopListening, CANCEL_GRACE_MS).unref();
        ctx.mcpReq.signal.removeEventListener('abort', onClose);
      };
    }
    // 2026-07-28: a call is cancelled by closing its request.
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    return () => ctx.mcpReq.signal.removeEventListener('abort', cancel);
  };

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
        if (deps.route === undefined) {
          throw new ServiceUnavailableError(
            'Asking the fleet needs FLEET_INTERNAL_TOKEN, the token fleet services share; `pnpm fleet up` sets it.',
          );
        }
        const digest = argumentsDigest(args);
        let sessionId = args.session_id;
        const state = caller.era === 'modern' ? ctx.mcpReq.requestState() : undefined;
        if (state !== undefined) {
          const verified = stateCodec.verify(typeof state === 'string' ? state : '', {
            tenant,
            argumentsDigest: digest,
          });
          const view = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT_KEY);
          const form =
            view.kind === 'elicit' && view.action === 'accept'
              ? decisionFormSchema.safeParse(view.content)
              : undefined;
          const decision = form?.success === true ? form.data.decision : 'deny';
          const instructions = form?.success === true ? form.data.instructions : undefined;
          await decide({
            sessionId: verified.sessionId,
            approvalId: verified.approvalId,
            decision,
            instructions,
          });
          sessionId = verified.sessionId;
          // The retry's question is the original one, never an answer to an agent's question.
          const session = await sessions.getForTenant(verified.sessionId, tenant);
          const question = oldestAnswerableInput(session);
          if (question !== undefined) {
            return structuredResult(
              askOutput(
                {
                  ...NOTHING_FOLLOWED,
                  sessionId: verified.sessionId,
                  paused: pausedFor(
                    { type: 'input-required', question: question.preview },
                    verified.sessionId,
                  ),
                },
                session,
              ),
            );
          }
        }
        const canElicit =
          caller.era === 'legacy' &&
          legacy.client(tenant, caller.connectionId)?.elicitation === true;
        const run = startAskRun(deps.route, {
          tenant,
          question: args.question,
          route: args.route,
          sessionId,
          ...(deps.limiter === undefined
            ? {}
            : {
                limits: (res: ServerResponse) =>
                  runLimits(deps.limiter as TenantLimiter, tenant, res),
              }),
        });
        let known = sessionId;
        const abort = new AbortController();
        const stopWatching = watchCancel(ctx, run, {
          sessionOf: () => known ?? followedSession,
          abort,
        });
        const report = progressReporter(ctx);
        let followedSession: string | undefined;
        let followed: Followed;
        try {
          followed = await follow(ctx, run, {
            canElicit,
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
        const answer = await answerOf({ ...followed, sessionId: known });
        const waiting = followed.waiting;
        if (
          waiting !== undefined &&
          known !== undefined &&
          caller.era === 'modern' &&
          modernElicitation(ctx)
        ) {
          const expiresAt = Math.min(Date.parse(waiting.expiresAt), Date.now() + MAX_STATE_TTL_MS);
          return inputRequired({
            inputRequests: {
              [APPROVAL_INPUT_KEY]: inputRequired.elicit({
                message: describeApproval(waiting),
                requestedSchema: DECISION_FORM as never,
              }),
            },
            requestState: stateCodec.mint({
              tenant,
              sessionId: known,
              approvalId: waiting.approvalId,
              expiresAt,
              argumentsDigest: digest,
            }),
          }) as unknown as CallToolResult;
        }
        const result = structuredResult(answer);
        if (answer.waiting !== undefined)
          result.content.unshift({ type: 'text', text: answer.waiting });
        if (waiting !== undefined && answer.approval !== undefined) {
          result.content.unshift({
            type: 'text',
            text: `${describeApproval(waiting)}\nSession ${known ?? ''} waits for this approval: approve or deny it with POST ${answer.approval.decide.path} {"decision": "approve"|"deny"} or in the console at ${answer.approval.decide.console}, then call ask again with session_id "${known ?? ''}" to follow the run.`,
          });
        }
        return result;
      } catch (error) {
        return toolError(error, logger);
      }
    },
  );
}
