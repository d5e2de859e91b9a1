import type { Session } from '@fleet/sessions';
import { approvalView, consoleLink, type ApprovalEvent } from './approval-form';
import type { AskOutput, AskState, AskStep } from './ask-schemas';
import { pauseOfEvent, type Pause } from './pause-forms';

/** The steps as the session records them. */
export function sessionSteps(session: Session | undefined): AskStep[] {
  if (session === undefined) return [];
  return Object.entries(session.nodes).map(([id, node]) => ({
    id,
    agent: node.agent,
    state: node.state,
    ...(node.summary === undefined ? {} : { summary: node.summary }),
    ...(node.error === undefined ? {} : { error: node.error }),
  }));
}

/** What one followed run produced. */
export interface Followed {
  answer: string;
  result: Record<string, unknown> | undefined;
  lines: string[];
  sessionId: string | undefined;
  error: string | undefined;
  /** The approval the run stopped at (the caller stopped following it). */
  waiting: ApprovalEvent | undefined;
  /**
   * A question or a review the run stopped at: its state, how to continue without MCP, and
   * (`asked`) the pause as a form asks it, when the event said enough to ask it.
   */
  paused:
    | { state: 'waiting_input' | 'waiting_review'; what: string; asked?: Pause | undefined }
    | undefined;
}

/** A run of which nothing was read yet. */
export const NOTHING_FOLLOWED: Readonly<Followed> = {
  answer: '',
  result: undefined,
  lines: [],
  sessionId: undefined,
  error: undefined,
  waiting: undefined,
  paused: undefined,
};

/** How to give what a question or a review the run stopped at asks, when it is not asked over MCP. */
function howToContinue(
  kind: Pause['kind'],
  question: string | undefined,
  sessionId: string,
): string {
  if (kind === 'question') {
    return `An agent asks: ${question ?? 'a question'}\nAnswer it by calling ask again with session_id "${sessionId}" and your answer as question.`;
  }
  return `The answer waits for a person's review: review it with POST /v1/sessions/${sessionId}/review or in the console at ${consoleLink(sessionId)}, then call ask again with session_id "${sessionId}" to follow the run.`;
}

/** The pause of a run stopped at `pause`: its state, how to continue, and the pause to ask. */
export function pausedAt(pause: Pause, sessionId: string): NonNullable<Followed['paused']> {
  const question = pause.kind === 'question' ? pause.question : undefined;
  return {
    state: pause.kind === 'question' ? 'waiting_input' : 'waiting_review',
    what: howToContinue(pause.kind, question, sessionId),
    asked: pause,
  };
}

/** What a question or a review the run waits for asks of the caller. */
export function pausedFor(
  fleet: Record<string, unknown> | undefined,
  sessionId: string,
): Followed['paused'] {
  const pause = pauseOfEvent(fleet);
  if (pause !== undefined) return pausedAt(pause, sessionId);
  // An event short of what a form needs: the caller is told how to continue all the same.
  const type = fleet?.['type'];
  if (type === 'input-required') {
    const question = typeof fleet?.['question'] === 'string' ? fleet['question'] : undefined;
    return { state: 'waiting_input', what: howToContinue('question', question, sessionId) };
  }
  if (type === 'review-required') {
    return { state: 'waiting_review', what: howToContinue('review', undefined, sessionId) };
  }
  return undefined;
}

/** The answer of an `ask`: what was followed, and the session as it stands now. */
export function askOutput(followed: Followed, session: Session | undefined): AskOutput {
  const result = followed.result as
    | {
        citations?: AskOutput['citations'];
        state?: AskState;
        usage?: {
          promptTokens: number;
          completionTokens: number;
          totalTokens: number;
          complete: boolean;
        };
      }
    | undefined;
  let state: AskState;
  if (followed.waiting !== undefined) state = 'waiting_approval';
  else if (followed.paused !== undefined) state = followed.paused.state;
  else if (followed.error !== undefined) {
    state = session?.status === 'canceled' ? 'canceled' : 'failed';
  } else if (result?.state !== undefined) state = result.state;
  else if (session !== undefined && session.status !== 'running') {
    state = session.status === 'waiting_approval' ? 'waiting_approval' : session.status;
  } else state = 'completed';
  const usage = result?.usage;
  return {
    answer: followed.answer || (session?.result?.text ?? ''),
    citations: result?.citations ?? session?.result?.citations ?? [],
    steps: sessionSteps(session),
    ...(usage === undefined
      ? {}
      : {
          usage: {
            promptTokens: usage.promptTokens,
            completionTokens: usage.completionTokens,
            totalTokens: usage.totalTokens,
            complete: usage.complete,
          },
        }),
    ...(followed.sessionId === undefined
      ? {}
      : { session_id: followed.sessionId, console: consoleLink(followed.sessionId) }),
    state,
    progress: followed.lines,
    ...(followed.waiting === undefined || followed.sessionId === undefined
      ? {}
      : { approval: approvalView(followed.waiting, followed.sessionId) }),
    ...(followed.paused === undefined ? {} : { waiting: followed.paused.what }),
    ...(followed.error === undefined ? {} : { error: followed.error }),
  };
}
