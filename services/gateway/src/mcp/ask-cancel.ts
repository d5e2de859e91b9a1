import type { ServerContext } from '@modelcontextprotocol/server';
import { cancelSession } from '../sessions';
import type { AskRun } from './ask-run';
import type { AskScope } from './ask-scope';

/** How long a 2025-era call's cancel is still heard after the call ended. */
const CANCEL_GRACE_MS = 10_000;

/**
 * Cancels the session on the client's cancel; a client that only went away leaves the run be.
 * Resolves, once watching (it never rejects: a 2025-era cancel that cannot be listened for is
 * logged, and the call goes on without it), to what stops watching.
 */
export async function watchCancel(
  { deps, caller }: AskScope,
  {
    ctx,
    run,
    sessionOf,
    abort,
  }: {
    ctx: ServerContext;
    run: AskRun;
    sessionOf: () => string | undefined;
    abort: AbortController;
  },
): Promise<() => void> {
  const { sessions, logger, legacy } = deps;
  const { tenant } = caller;
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
    // notifications/cancelled comes as a POST of its own (routed here, from any replica); the
    // call's own signal aborts when its connection closes, which is not a cancel.
    const stopListening =
      caller.connectionId === undefined
        ? () => undefined
        : await legacy
            .onCancel(
              { tenant, connectionId: caller.connectionId, requestId: ctx.mcpReq.id },
              cancel,
            )
            .catch((error: unknown) => {
              logger.warn({ err: error }, 'MCP cancel cannot be listened for');
              return () => undefined;
            });
    const onClose = (): void => {
      abort.abort(new Error('The client went away.'));
      run.stop();
    };
    if (ctx.mcpReq.signal.aborted) onClose();
    else ctx.mcpReq.signal.addEventListener('abort', onClose, { once: true });
    return () => {
      // A cancel may reach the gateway just after the call's connection closed.
      setTimeout(stopListening, CANCEL_GRACE_MS).unref();
      ctx.mcpReq.signal.removeEventListener('abort', onClose);
    };
  }
  // 2026-07-28: a call is cancelled by closing its request.
  ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
  return () => ctx.mcpReq.signal.removeEventListener('abort', cancel);
}
