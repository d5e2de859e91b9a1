import { toFleetError } from '@fleet/errors';
import type { ServerContext } from '@modelcontextprotocol/server';
import { approvalEventSchema } from './approval-form';
import { NOTHING_FOLLOWED, pausedFor, type Followed } from './ask-answer';
import { decideAndResume } from './ask-decision';
import { elicitUnlessDecided } from './ask-elicitation';
import type { AskRun, AskRunEvent } from './ask-run';
import type { AskScope } from './ask-scope';

/** Progress lines an answer keeps (the most recent). */
export const MAX_PROGRESS_LINES = 50;

/** How one `ask` call follows its run. */
export interface FollowOptions {
  /** Whether approvals are asked of the client with an elicitation (2025-11-25). */
  canElicit: boolean;
  /** Aborts a pending elicitation (the call was cancelled or went away). */
  signal: AbortSignal;
  /** Reports a progress line to the client. */
  report: (line: string) => void;
  /** Hears the run's session id when it is first known. */
  onSession: (sessionId: string) => void;
}

type ProgressEvent = Extract<AskRunEvent, { kind: 'progress' }>;

/** One call following its run: where it is, and what it has followed so far. */
interface Following {
  scope: AskScope;
  ctx: ServerContext;
  run: AskRun;
  options: FollowOptions;
  followed: Followed;
}

/**
 * Follows a progress event: keeps and reports its line, notes the session, and says whether to
 * stop following (the run paused for something, or waits for an approval the client decides on
 * another round). An approval the client can be asked about with an elicitation is asked here.
 */
async function followProgress(
  { scope, ctx, run, options, followed }: Following,
  event: ProgressEvent,
): Promise<'stop' | 'go on'> {
  const { canElicit, signal, report, onSession } = options;
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
      return 'stop';
    }
  }
  const approval = approvalEventSchema.safeParse(event.fleet ?? {});
  if (!approval.success || followed.sessionId === undefined) return 'go on';
  if (canElicit) {
    const chosen = await elicitUnlessDecided(scope, ctx, {
      sessionId: followed.sessionId,
      approval: approval.data,
      signal,
    });
    if (chosen !== undefined) {
      await decideAndResume(scope, {
        sessionId: followed.sessionId,
        approvalId: approval.data.approvalId,
        ...chosen,
      });
    }
    return 'go on';
  }
  // The client decides on another round, or elsewhere: stop following; the run waits.
  followed.waiting = approval.data;
  run.stop();
  return 'stop';
}

/**
 * Follows an `ask` run's events until it ends, fails, pauses or waits for an approval the client
 * decides on another round: what the answer is made of.
 */
export async function followAskRun(
  scope: AskScope,
  { ctx, run, ...options }: FollowOptions & { ctx: ServerContext; run: AskRun },
): Promise<Followed> {
  const followed: Followed = { ...NOTHING_FOLLOWED, lines: [] };
  const following: Following = { scope, ctx, run, options, followed };
  for await (const event of run.events) {
    switch (event.kind) {
      case 'progress':
        if ((await followProgress(following, event)) === 'stop') {
          return followed;
        }
        break;
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
}
