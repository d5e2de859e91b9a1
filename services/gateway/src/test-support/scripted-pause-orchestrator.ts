import {
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type OrchestrateRequest,
  type ReviewDecisionKind,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import type { AgentEvent } from '@fleet/a2a/server';
import type { Approval, NewApproval, SessionStore } from '@fleet/sessions';
import { storedRunResult } from '../sessions/session-views';
import {
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from './orchestrator-double';
import { SEEDED_REVIEW_ANSWER, seedSession } from './seed-session';

/** The second question a `QQ:` run asks (step `n1`, agent `mail`), once the first is answered. */
export const SECOND_QUESTION = 'Who else should get it?';

/** The second question (`in-2`, step `n1`, an hour to answer), as the double records it. */
export function secondQuestion(): NewApproval {
  return {
    id: 'in-2',
    kind: 'input',
    nodeId: 'n1',
    agent: 'mail',
    action: 'answer-question',
    summary: SECOND_QUESTION,
    preview: SECOND_QUESTION,
    risk: 'low',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  };
}

/** What a scripted run's session heard from a person, in order. */
export type Heard =
  | { kind: 'answer'; inputId: string; text: string }
  | { kind: 'review'; decision: ReviewDecisionKind; feedback: string | undefined };

/** An orchestrator that asks questions and puts its answer up for review, scripted per request. */
export interface ScriptedPauseOrchestrator {
  double: OrchestratorDouble;
  client: A2AClient;
  /** What each session's run received: the answers and review decisions it went on with. */
  heard: Map<string, Heard[]>;
  close(): Promise<void>;
}

/** How often a run looks whether what it waits for was given. */
const POLL_MS = 25;

/**
 * An orchestrator double for questions and reviews, over a real session store. A new run records
 * its session and then, by the request's prefix:
 * - `Q: …` asks question `in-1` (step `n1`, agent `mail`, `SEEDED_QUESTION`) and waits in the
 *   run for the answer, as the orchestrator does;
 * - `QQ: …` asks `in-1`, then `in-2` ({@link SECOND_QUESTION}) once `in-1` is answered;
 * - `R: …` puts {@link SEEDED_REVIEW_ANSWER} up for review (`rv-1`) and waits for the decision.
 * What it received (read from the session, as the orchestrator reads it) goes to `heard`; then it
 * completes with `Answered: <answers>`, the reviewed answer, or `<decision>: <feedback>`. A resume
 * (`resumeSessionId`) finishes the same way from what the session holds. A CancelTask stops it.
 */
export async function startScriptedPauseOrchestrator(
  store: SessionStore,
): Promise<ScriptedPauseOrchestrator> {
  const heard = new Map<string, Heard[]>();
  const note = (sessionId: string, what: Heard): void => {
    heard.set(sessionId, [...(heard.get(sessionId) ?? []), what]);
  };

  async function settled(sessionId: string, id: string, signal: AbortSignal): Promise<Approval> {
    for (;;) {
      const approval = (await store.get(sessionId))?.approvals[id];
      if (approval === undefined) throw new Error(`no ${id} in ${sessionId}`);
      if (approval.status !== 'pending' || signal.aborted) return approval;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async function* complete(sessionId: string, text: string): AsyncGenerator<AgentEvent> {
    const { session } = await store.update(sessionId, (draft) => {
      draft.status = 'completed';
      const node = draft.nodes['n1'] ?? { agent: 'mail', state: 'pending', attempts: 0 };
      node.state = 'completed';
      draft.nodes['n1'] = node;
      draft.result = { text, citations: [], composer: 'offline', failedNodes: [] };
    });
    const result = storedRunResult(session);
    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart(text), ...(result === undefined ? [] : [dataPart(result)])],
      },
    };
  }

  /** Asks question `id` and waits for its answer in the run; the answer, if one came. */
  async function* ask(
    sessionId: string,
    question: Approval,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, string | undefined> {
    yield progressStatus(
      `mail asks: ${question.preview}`,
      {
        type: 'input-required',
        inputId: question.id,
        nodeId: 'n1',
        agent: 'mail',
        question: question.preview,
        expiresAt: question.expiresAt,
      },
      sessionId,
    );
    const answered = await settled(sessionId, question.id, signal);
    if (answered.status !== 'answered') return undefined;
    note(sessionId, { kind: 'answer', inputId: answered.id, text: answered.answer ?? '' });
    return answered.answer;
  }

  async function* questions(
    sessionId: string,
    twice: boolean,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent> {
    const first = (await store.get(sessionId))?.approvals['in-1'];
    if (first === undefined) throw new Error('no question in-1');
    const answers = [yield* ask(sessionId, first, signal)];
    if (twice && !signal.aborted) {
      const second = await store.addApproval(sessionId, secondQuestion());
      answers.push(yield* ask(sessionId, second, signal));
    }
    if (signal.aborted) return;
    yield* complete(sessionId, `Answered: ${answers.join(' / ')}`);
  }

  async function* review(sessionId: string, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const pending = (await store.get(sessionId))?.approvals['rv-1'];
    if (pending?.review === undefined) throw new Error('no review rv-1');
    yield progressStatus(
      'The answer waits for your review.',
      {
        type: 'review-required',
        sessionId,
        approvalId: 'rv-1',
        round: pending.review.round,
        answer: pending.review.answer,
        steps: pending.review.steps,
        expiresAt: pending.expiresAt,
        onTimeout: 'approve',
      },
      sessionId,
    );
    const decided = await settled(sessionId, 'rv-1', signal);
    if (signal.aborted) return;
    yield* finishReview(sessionId, decided);
  }

  async function* finishReview(sessionId: string, decided: Approval): AsyncGenerator<AgentEvent> {
    const decision = decided.review?.decision ?? 'approve';
    const feedback = decided.review?.feedback;
    note(sessionId, { kind: 'review', decision, feedback });
    yield* complete(
      sessionId,
      decision === 'approve' ? SEEDED_REVIEW_ANSWER : `${decision}: ${feedback ?? ''}`,
    );
  }

  async function* newRun(
    context: { taskId: string; signal: AbortSignal },
    call: { text: string; input: OrchestrateRequest },
  ): AsyncGenerator<AgentEvent> {
    const reviewed = call.text.startsWith('R:');
    const seeded = await seedSession(store, {
      tenant: call.input.tenant,
      request: call.text,
      taskId: context.taskId,
      ...(reviewed ? { reviewExpiresInMs: 3_600_000 } : { questionExpiresInMs: 3_600_000 }),
    });
    const lease = await store.acquireRunner(seeded.id, `orchestrator:${context.taskId}`);
    try {
      yield progressStatus(
        `Planning: ${call.text}`,
        { type: 'run-start', sessionId: seeded.id },
        seeded.id,
      );
      if (reviewed) yield* review(seeded.id, context.signal);
      else yield* questions(seeded.id, call.text.startsWith('QQ:'), context.signal);
    } finally {
      await lease?.release();
    }
  }

  /** A resume: finishes from what the session holds (an answered question, a decided review). */
  async function* resume(sessionId: string): AsyncGenerator<AgentEvent> {
    const session = await store.get(sessionId);
    const approvals = Object.values(session?.approvals ?? {});
    const decided = approvals.find((a) => a.kind === 'review' && a.status !== 'pending');
    if (decided !== undefined) {
      yield* finishReview(sessionId, decided);
      return;
    }
    const answers = approvals.filter((a) => a.kind === 'input' && a.status === 'answered');
    for (const answered of answers) {
      note(sessionId, { kind: 'answer', inputId: answered.id, text: answered.answer ?? '' });
    }
    yield* complete(sessionId, `Answered: ${answers.map((a) => a.answer).join(' / ')}`);
  }

  const double = await startOrchestratorDouble(async function* execute(context, call) {
    const sessionId = call.input?.resumeSessionId;
    if (sessionId !== undefined) {
      yield* resume(sessionId);
      return;
    }
    if (call.input === undefined) {
      yield { type: 'status', state: 'TASK_STATE_FAILED', message: 'not a session request' };
      return;
    }
    yield* newRun(context, { text: call.text, input: call.input });
  });

  return { double, client: double.client, heard, close: () => double.close() };
}
