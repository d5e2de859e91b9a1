import type { ServerContext } from '@modelcontextprotocol/server';
import { watchCancel } from './ask-cancel';
import { sendElicitation } from './ask-elicitation';
import type { AskRun } from './ask-run';
import type { AskScope } from './ask-scope';
import { describePause, pauseForm, type FormReply, type Pause } from './pause-forms';

/** What one form asks, of which session. */
interface Asking {
  sessionId: string;
  pause: Pause;
  /** Why the form is asked again, when it is. */
  note: string | undefined;
}

/** Sends the pause's form as an elicitation on the call's own stream; the client's reply. */
async function elicitForm(
  scope: AskScope,
  ctx: ServerContext,
  { pause, note, signal }: Asking & { signal: AbortSignal },
): Promise<Exclude<FormReply, 'settled'>> {
  const message = await sendElicitation(scope, ctx, {
    message: describePause(pause, note),
    requestedSchema: pauseForm(pause),
    signal,
  });
  const result = message['result'] as { action?: unknown; content?: unknown } | undefined;
  const action = result?.action;
  // An error answer, or one that is no elicitation result, leaves the form unanswered.
  if (action === 'accept' || action === 'decline') return { action, content: result?.content };
  return { action: 'cancel', content: undefined };
}

/**
 * Asks a 2025-era client that declared elicitation the pause's form, unless the question is
 * answered or the review decided elsewhere (the console, the API, a cancel) first: then the form
 * is left unanswered and the reply is `settled`.
 */
async function elicitUnlessSettled(
  scope: AskScope,
  ctx: ServerContext,
  asking: Asking & { signal: AbortSignal },
): Promise<FormReply> {
  const { sessions } = scope.deps;
  const { sessionId, pause, signal } = asking;
  const elsewhere = new AbortController();
  const unsubscribe = await sessions.subscribe(sessionId, (event) => {
    const settled = event.type === 'approval-decided' && event.approvalId === pause.id;
    if (settled || event.type === 'session-canceled') elsewhere.abort();
  });
  try {
    const current = await sessions.get(sessionId);
    if (current?.approvals[pause.id]?.status !== 'pending') return 'settled';
    return await elicitForm(scope, ctx, {
      ...asking,
      signal: AbortSignal.any([signal, elsewhere.signal]),
    });
  } catch (error) {
    if (elsewhere.signal.aborted && !signal.aborted) return 'settled';
    throw error;
  } finally {
    await unsubscribe();
  }
}

/** A run that is not there: the client's cancel while a form is open cancels the session only. */
const NO_RUN: AskRun = {
  events: {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.resolve({ done: true, value: undefined }),
    }),
  },
  stop: () => undefined,
  close: () => Promise.resolve(),
};

/**
 * Asks the pause's form of a 2025-era client, the client's cancel wired to the session as while a
 * run is followed: a cancel, or the client going away, leaves the form unanswered (`cancel`).
 */
export async function elicitPause(
  scope: AskScope,
  ctx: ServerContext,
  asking: Asking,
): Promise<FormReply> {
  const abort = new AbortController();
  const stopWatching = await watchCancel(scope, {
    ctx,
    run: NO_RUN,
    sessionOf: () => asking.sessionId,
    abort,
  });
  try {
    return await elicitUnlessSettled(scope, ctx, { ...asking, signal: abort.signal });
  } catch (error) {
    if (abort.signal.aborted) return { action: 'cancel', content: undefined };
    throw error;
  } finally {
    stopWatching();
  }
}
