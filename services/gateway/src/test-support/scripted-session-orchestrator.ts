import { randomUUID } from 'node:crypto';
import {
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type OrchestrateRequest,
  type RunResult,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import type { AgentEvent } from '@fleet/a2a/server';
import type { SessionStore } from '@fleet/sessions';
import { storedRunResult } from '../sessions/session-views';
import { seedSession } from './seed-session';
import {
  gate,
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from './orchestrator-double';

/** The answer every scripted run ends with. */
export const SCRIPTED_ANSWER = 'Sent the report to Bob [1].';

/** What a scripted run tells its client when another replica holds the session. */
export const BUSY_REASON = 'is running on another orchestrator replica';

/** The orchestrator's side of sessions, scripted over a real session store. */
export interface ScriptedSessionOrchestrator {
  double: OrchestratorDouble;
  client: A2AClient;
  /**
   * Holds the session's runs before they finish, until the returned function is called; with
   * `new:<request text>`, holds that new run before it asks for its approval.
   */
  hold(sessionId: string): () => void;
  /**
   * Starts a run of the session as a live orchestrator would (`SendMessage`, returnImmediately):
   * it takes the runner lease, records its task id in the session, reports the approval it waits
   * for, and waits ({@link hold}) — or stops and records `canceled` on CancelTask.
   */
  startLiveRun(sessionId: string): Promise<{ taskId: string }>;
  /**
   * Puts a task into the store that says WORKING and runs nowhere, unchanged for a minute: the task
   * of an orchestrator that died mid-run, as the shared task store still shows it.
   */
  startZombieTask(sessionId: string): Promise<{ taskId: string }>;
  /**
   * The next resume of the session finds another replica already running it (a live run started
   * just before), and answers `runningElsewhere` as the orchestrator does.
   */
  raceOnResume(sessionId: string): void;
  /**
   * How many times each session's step `n1` (sending the mail) was carried out: a run that finishes
   * carries it out once, whatever happens around it.
   */
  finished: Map<string, number>;
  close(): Promise<void>;
}

/** How often a new run looks whether its approval was decided. */
const DECISION_POLL_MS = 25;

const LIVE_RUN = 'live-run:';

/**
 * An orchestrator double for session tests. Resume requests (`resumeSessionId`) follow the
 * contract: refused while another replica holds the runner lease, the stored answer for a
 * completed session, else run-start … approval-end (or input-end for each question the session
 * holds, as the session shows it when the run resumes), node-end, the result (written to the session
 * first, as the orchestrator does) and COMPLETED.
 */
export async function startScriptedSessionOrchestrator(
  store: SessionStore,
): Promise<ScriptedSessionOrchestrator> {
  const holds = new Map<string, ReturnType<typeof gate>>();
  const reported = new Map<string, ReturnType<typeof gate>>();
  const heldRun = (sessionId: string): Promise<void> =>
    holds.get(sessionId)?.promise ?? Promise.resolve();

  async function* finishRun(sessionId: string): AsyncGenerator<AgentEvent, void, undefined> {
    const before = await store.get(sessionId);
    const questions = Object.values(before?.approvals ?? {}).filter(
      (approval) => approval.kind === 'input',
    );
    if (questions.length === 0 || before?.approvals['ap-1'] !== undefined) {
      yield progressStatus(
        'Approval ap-1 approved.',
        {
          type: 'approval-end',
          approvalId: 'ap-1',
          status: before?.approvals['ap-1']?.status ?? 'approved',
        },
        sessionId,
      );
    }
    // The questions as the resumed run finds them (answered before it was resumed, or not).
    for (const question of questions) {
      yield progressStatus(
        `Question ${question.id} ${question.status}.`,
        { type: 'input-end', inputId: question.id, status: question.status },
        sessionId,
      );
    }
    yield progressStatus(
      'mail finished (n1).',
      { type: 'node-end', nodeId: 'n1', agent: 'mail', state: 'completed', durationMs: 5 },
      sessionId,
    );
    finished.set(sessionId, (finished.get(sessionId) ?? 0) + 1);
    const { session } = await store.update(sessionId, (draft) => {
      draft.status = 'completed';
      const node = draft.nodes['n1'] ?? { agent: 'mail', state: 'pending', attempts: 0 };
      node.state = 'completed';
      node.attempts += 1;
      draft.nodes['n1'] = node;
      draft.result = {
        text: SCRIPTED_ANSWER,
        citations: [{ title: 'Report', url: 'https://example.com/report' }],
        composer: 'offline',
        failedNodes: [],
      };
    });
    yield resultArtifact(session.result?.text ?? '', storedRunResult(session));
  }

  function resultArtifact(text: string, result: RunResult | undefined): AgentEvent {
    return {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart(text), ...(result === undefined ? [] : [dataPart(result)])],
      },
    };
  }

  const races = new Set<string>();
  const finished = new Map<string, number>();

  /**
   * A new run (a question from the gateway): records its session waiting for approval `ap-1`,
   * reports it, and waits in the run until a person decides it — then finishes as a resumed run
   * does — or stops on CancelTask.
   */
  async function* newRun(
    context: { taskId: string; signal: AbortSignal },
    call: { text: string; input: OrchestrateRequest },
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const seeded = await seedSession(store, {
      tenant: call.input.tenant,
      request: call.text,
      approvalExpiresInMs: 3_600_000,
      taskId: context.taskId,
    });
    const sessionId = seeded.id;
    const lease = await store.acquireRunner(sessionId, `orchestrator:${context.taskId}`);
    try {
      yield progressStatus(`Planning: ${call.text}`, { type: 'run-start', sessionId }, sessionId);
      const aborted = new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      await Promise.race([heldRun(`new:${call.text}`), aborted]);
      const approval = seeded.approvals['ap-1'] ?? (await store.get(sessionId))?.approvals['ap-1'];
      yield progressStatus(
        'Waiting for approval: Send the report to bob@example.com',
        {
          type: 'approval-required',
          approvalId: 'ap-1',
          kind: 'node',
          nodeId: 'n1',
          agent: 'mail',
          action: 'send-mail',
          summary: 'Send the report to bob@example.com',
          preview: 'To: bob@example.com\nSubject: Report',
          risk: 'high',
          expiresAt: approval?.expiresAt ?? '2099-01-01T00:00:00.000Z',
        },
        sessionId,
      );
      for (;;) {
        if (context.signal.aborted) {
          await store.update(sessionId, (draft) => {
            draft.status = 'canceled';
            draft.error = 'Canceled by the orchestrator.';
          });
          return;
        }
        const current = await store.get(sessionId);
        if (current?.approvals['ap-1']?.status !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, DECISION_POLL_MS));
      }
      yield* finishRun(sessionId);
    } finally {
      await lease?.release();
    }
  }

  async function send(text: string): Promise<string> {
    const input: OrchestrateRequest = { tenant: 'acme', history: [], planApproval: 'none' };
    const task = await double.client.sendMessage({
      message: {
        messageId: `${text}:${Date.now()}`,
        role: 'ROLE_USER',
        parts: [textPart(text), dataPart({ fleet: input })],
      },
      configuration: { returnImmediately: true },
    });
    if (!('id' in task)) throw new Error('the double answered with a message');
    return task.id;
  }

  async function startLiveRun(sessionId: string): Promise<{ taskId: string }> {
    const started = gate();
    reported.set(sessionId, started);
    const taskId = await send(`${LIVE_RUN}${sessionId}`);
    // The run records its task id and reports its approval before the caller goes on.
    await started.promise;
    return { taskId };
  }

  const double = await startOrchestratorDouble(async function* execute(context, call) {
    const live = call.text.startsWith(LIVE_RUN);
    const sessionId = live ? call.text.slice(LIVE_RUN.length) : call.input?.resumeSessionId;
    if (sessionId === undefined && call.input !== undefined) {
      yield* newRun(context, { text: call.text, input: call.input });
      return;
    }
    if (sessionId === undefined) {
      yield { type: 'status', state: 'TASK_STATE_FAILED', message: 'not a session request' };
      return;
    }
    if (!live && races.delete(sessionId)) await startLiveRun(sessionId);
    const lease = await store.acquireRunner(sessionId, `orchestrator:${context.taskId}`);
    if (lease === undefined) {
      yield {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: `Session ${sessionId} ${BUSY_REASON}.`,
        metadata: { sessionId, runningElsewhere: true },
      };
      return;
    }
    try {
      const { session } = await store.update(sessionId, (draft) => {
        draft.taskId = context.taskId;
      });
      if (session.status === 'completed') {
        yield resultArtifact(session.result?.text ?? '', storedRunResult(session));
        return;
      }
      if (live) {
        yield progressStatus(
          'Waiting for approval: Send the report to bob@example.com',
          {
            type: 'approval-required',
            approvalId: 'ap-1',
            kind: 'node',
            nodeId: 'n1',
            agent: 'mail',
            action: 'send-mail',
            summary: 'Send the report to bob@example.com',
            preview: 'To: bob@example.com',
            risk: 'high',
            expiresAt: '2099-01-01T00:00:00.000Z',
          },
          sessionId,
        );
        // Past the yield: the handler has recorded the event in the task.
        reported.get(sessionId)?.open();
      } else {
        yield progressStatus(
          `Resuming session ${sessionId}.`,
          { type: 'run-start', sessionId },
          sessionId,
        );
      }
      const aborted = new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      await Promise.race([heldRun(sessionId), aborted]);
      if (context.signal.aborted) {
        await store.update(sessionId, (draft) => {
          draft.status = 'canceled';
          draft.error = 'Canceled by the orchestrator.';
        });
        return;
      }
      yield* finishRun(sessionId);
    } finally {
      await lease.release();
    }
  });

  return {
    double,
    client: double.client,
    hold(sessionId) {
      const held = gate();
      holds.set(sessionId, held);
      return held.open;
    },
    startLiveRun,
    async startZombieTask(_sessionId) {
      const taskId = randomUUID();
      const contextId = randomUUID();
      await double.saveTask({
        id: taskId,
        contextId,
        status: {
          state: 'TASK_STATE_WORKING',
          timestamp: new Date(Date.now() - 60_000).toISOString(),
          message: {
            messageId: randomUUID(),
            role: 'ROLE_AGENT',
            taskId,
            contextId,
            parts: [
              textPart('mail started (n1).'),
              dataPart({
                progress: { type: 'node-start', nodeId: 'n1', agent: 'mail', attempt: 1 },
              }),
            ],
          },
        },
        history: [],
      });
      return { taskId };
    },
    raceOnResume(sessionId) {
      races.add(sessionId);
    },
    finished,
    close: () => double.close(),
  };
}
