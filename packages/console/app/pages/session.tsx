import type { Signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import {
  ACTIVE_STATUSES,
  ApiError,
  api,
  describeError,
  type AgentSteering,
  type Citation,
  type PlanNode,
  type SessionView,
} from '../api';
import { fileViewOf, mergeFiles } from '../../src/files/file-view';
import { AnswerText } from '../components/answer-text';
import { ApprovalCard, QuestionCard } from '../components/approval-card';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorNote } from '../components/error-note';
import { PlanGraph } from '../components/plan-graph';
import { ReviewSection } from '../components/review-panel';
import { FilesSection } from '../components/run-files';
import { StatusBadge } from '../components/status-badge';
import { formatTime, originWords, stateWords } from '../format';
import { useNarrow, usePolling } from '../hooks';
import { liveRunFor, startRun, stopStreaming, type LiveRun } from '../runs';

/** How often an active session is read again (the graph, approvals and questions). */
const REFRESH_MS = 1000;
/** After a refused follow (another window streams it, a question waits), when to try again. */
const FOLLOW_RETRY_MS = 5000;

/**
 * Follows the session's stream from this tab: the run Ask started here, or a new follow
 * (`X-Session-ID`) while the session is active and no question waits (a follow carries no answer).
 */
function useLiveRun(session: SessionView | undefined): {
  run: Signal<LiveRun> | undefined;
  note: string | undefined;
} {
  const id = session?.id;
  // Bumped when a follow starts: the tab's runs (liveRunFor) are not state of their own.
  const [, setFollows] = useState(0);
  const [note, setNote] = useState<string | undefined>(undefined);
  const retryAt = useRef(0);
  const currentId = useRef<string | undefined>(undefined);
  const followRef = useRef<(() => void) | undefined>(undefined);
  const run = id === undefined ? undefined : liveRunFor(id);
  const active = session !== undefined && ACTIVE_STATUSES.has(session.status);
  const questionWaits = session?.inputs.some((input) => input.status === 'pending') ?? false;
  const streaming = run !== undefined && run.value.state === 'streaming';

  // A new session (or the first): take the run this tab already streams for it, if any. Leaving
  // it stops the follow this page started (freeing the session for other windows); a run Ask
  // started keeps streaming.
  useEffect(() => {
    currentId.current = id;
    retryAt.current = 0;
    setNote(undefined);
    let followed: Signal<LiveRun> | undefined;
    const follow = (): void => {
      if (id === undefined) return;
      retryAt.current = Date.now() + FOLLOW_RETRY_MS;
      startRun({
        message: '',
        mode: 'orchestration',
        model: 'fleet-orchestration',
        planApproval: false,
        followSessionId: id,
      })
        .then((started) => {
          if (currentId.current !== id) {
            stopStreaming(started);
            return;
          }
          followed = started;
          setFollows((count) => count + 1);
          setNote(undefined);
        })
        .catch((error: unknown) => {
          if (currentId.current !== id) return;
          setNote(
            error instanceof ApiError && error.status === 409
              ? 'Another window is streaming this session; this page follows it by reading it every second.'
              : `Live progress is not available (${describeError(error)}); this page reads the session every second.`,
          );
        });
    };
    followRef.current = follow;
    return () => {
      followRef.current = undefined;
      if (followed !== undefined) stopStreaming(followed);
    };
  }, [id]);

  // Follow while the session is active, nothing streams here and no question waits; a refused
  // follow is tried again after a while, when the session has changed.
  useEffect(() => {
    if (!active || streaming || questionWaits || Date.now() < retryAt.current) return;
    followRef.current?.();
  }, [id, active, streaming, questionWaits, session?.updatedAt]);

  return { run, note };
}

/** Progress lines: the stream's, or (without one) what the stored node states say. */
function storedLines(session: SessionView): string[] {
  const lines: string[] = [];
  for (const node of session.plan?.nodes ?? []) {
    const state = session.nodes[node.id];
    if (state === undefined) continue;
    if (state.startedAt !== undefined)
      lines.push(`${formatTime(state.startedAt)} · ${node.id} (${node.agent}) started`);
    if (state.endedAt !== undefined)
      lines.push(
        `${formatTime(state.endedAt)} · ${node.id} ${stateWords(state.state)}${state.summary === undefined ? '' : `: ${state.summary}`}`,
      );
  }
  return lines;
}

function Citations({ citations }: { citations: readonly Citation[] }) {
  if (citations.length === 0) return null;
  return (
    <section aria-labelledby="sources-title" class="citations">
      <h3 id="sources-title">Sources</h3>
      <ol>
        {citations.map((citation, index) => (
          <li key={`${index}-${citation.title}`}>
            {citation.url !== undefined && /^https?:\/\//i.test(citation.url) ? (
              <a href={citation.url} rel="noopener noreferrer" target="_blank">
                {citation.title}
              </a>
            ) : (
              citation.title
            )}
            {citation.agent === undefined ? null : <small> · {citation.agent}</small>}
            {citation.snippet === undefined ? null : (
              <details>
                <summary>Excerpt</summary>
                <blockquote>{citation.snippet}</blockquote>
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The plan's steps, then any the live stream added that the session does not show yet. */
function planNodes(session: SessionView, live: LiveRun | undefined): PlanNode[] {
  const nodes = session.plan?.nodes ?? [];
  const known = new Set(nodes.map((node) => node.id));
  const added = (live?.addedNodes ?? []).filter((node) => !known.has(node.id));
  return added.length === 0 ? nodes : [...nodes, ...added];
}

const STEERING_WORDS: { kind: keyof AgentSteering; label: string }[] = [
  { kind: 'prefer', label: 'Prefers' },
  { kind: 'require', label: 'Requires' },
  { kind: 'exclude', label: 'Leaves out' },
];

/** The agents or skills the run was asked to prefer, require or leave out (`X-Fleet-Agents`). */
function SteeringNote({ steering }: { steering: AgentSteering | undefined }) {
  const lists = STEERING_WORDS.filter(({ kind }) => (steering?.[kind]?.length ?? 0) > 0);
  if (steering === undefined || lists.length === 0) return null;
  return (
    <section aria-labelledby="steering-title" class="steering">
      <h2 id="steering-title">Agent steering</h2>
      <dl>
        {lists.map(({ kind, label }) => (
          <div key={kind} data-steering={kind}>
            <dt>{label}</dt>
            <dd>{(steering[kind] ?? []).join(', ')}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function CancelButton({ session, onCanceled }: { session: SessionView; onCanceled: () => void }) {
  if (!ACTIVE_STATUSES.has(session.status)) return null;
  return (
    <ConfirmButton
      label="Cancel…"
      question="Cancel this run? Agents stop; nothing waiting is approved."
      confirmLabel="Cancel the run"
      keepLabel="Keep it running"
      onConfirm={async () => {
        await api(`/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
        onCanceled();
      }}
    />
  );
}

/**
 * One session: the plan as a live graph, approvals and questions to decide, the progress lines,
 * and the answer as it streams, with its sources.
 */
export function SessionPage() {
  const { params } = useRoute();
  const id = params['id'] ?? '';
  const [active, setActive] = useState(true);
  const polled = usePolling(
    (signal) => api<SessionView>(`/sessions/${encodeURIComponent(id)}`, { signal }),
    { intervalMs: REFRESH_MS, active, key: id },
  );
  const session = polled.data;
  useEffect(() => {
    if (session !== undefined) setActive(ACTIVE_STATUSES.has(session.status));
  }, [session?.status]);
  const { run, note } = useLiveRun(session);
  const narrow = useNarrow();
  // A review asked for or decided on the stream: read the session now, not at the next tick.
  const reviewEvents = run?.value.reviewEvents ?? 0;
  useEffect(() => {
    if (reviewEvents > 0) polled.refresh();
  }, [reviewEvents]);

  if (session === undefined) {
    return polled.error === undefined ? (
      <p aria-busy="true">Loading the session…</p>
    ) : (
      <section>
        <h1>Session</h1>
        <ErrorNote message={polled.error} />
        <p>
          <a href="/console/sessions">Back to the sessions</a>
        </p>
      </section>
    );
  }

  const live = run?.value;
  const lines = live !== undefined && live.lines.length > 0 ? live.lines : storedLines(session);
  const answer = session.result?.text ?? (live?.answer === '' ? undefined : live?.answer);
  const citations = session.result?.citations ?? live?.citations ?? [];
  const approvals = session.approvals;
  const questions = session.inputs;
  const reviews = session.reviews ?? [];
  const waiting =
    approvals.filter((approval) => approval.status === 'pending').length +
    reviews.filter((review) => review.status === 'pending').length;
  const nodes = planNodes(session, live);
  // The session's files (`GET /v1/sessions/{id}`), then any the stream announced first.
  const files = mergeFiles(session.files, live?.files.map(fileViewOf));
  const fileNames = new Map(files.map((file) => [file.id, file.name]));

  return (
    <section aria-labelledby="session-title" class="session" data-status={session.status}>
      <nav aria-label="Breadcrumb">
        <ul>
          <li>
            <a href="/console/sessions">Sessions</a>
          </li>
          <li aria-current="page">This session</li>
        </ul>
      </nav>
      <hgroup>
        <h1 id="session-title" class="session-request">
          {session.request || session.id}
        </h1>
        <p>
          <span aria-live="polite">
            <StatusBadge state={session.status} />
          </span>{' '}
          · started {formatTime(session.createdAt)} · <code>{session.id}</code>
        </p>
      </hgroup>
      <ErrorNote message={polled.error} />
      {session.error === null ? null : <p class="error-note">{session.error}</p>}
      <CancelButton
        session={session}
        onCanceled={() => {
          if (run !== undefined) stopStreaming(run);
          polled.refresh();
        }}
      />

      {waiting > 0 || questions.some((input) => input.status === 'pending') ? (
        <p class="attention" role="status">
          This run is waiting for you.
        </p>
      ) : null}

      <ReviewSection
        sessionId={session.id}
        reviews={reviews}
        names={fileNames}
        onDecided={polled.refresh}
      />

      {approvals.length === 0 ? null : (
        <section aria-labelledby="approvals-title">
          <h2 id="approvals-title">Approvals</h2>
          {approvals.map((approval) => (
            <ApprovalCard
              key={approval.id}
              sessionId={session.id}
              approval={approval}
              onDecided={polled.refresh}
            />
          ))}
        </section>
      )}

      {questions.length === 0 ? null : (
        <section aria-labelledby="questions-title">
          <h2 id="questions-title">Questions</h2>
          {questions.map((input) => (
            <QuestionCard
              key={input.id}
              sessionId={session.id}
              input={input}
              onAnswered={polled.refresh}
            />
          ))}
        </section>
      )}

      <SteeringNote steering={session.steering} />

      <section aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        {session.plan === null ? (
          <p>{ACTIVE_STATUSES.has(session.status) ? 'Planning…' : 'No plan was made.'}</p>
        ) : (
          <>
            <PlanGraph plan={nodes} states={session.nodes} narrow={narrow} />
            <div class="table-wrap">
              <table class="plan-table">
                <caption>Steps of the plan</caption>
                <thead>
                  <tr>
                    <th scope="col">Step</th>
                    <th scope="col">Agent</th>
                    <th scope="col">State</th>
                    <th scope="col">Task</th>
                  </tr>
                </thead>
                <tbody>
                  {nodes.map((node) => (
                    <tr
                      key={node.id}
                      data-node-id={node.id}
                      data-added={node.origin === undefined ? undefined : node.origin.kind}
                    >
                      <td data-label="Step">
                        {node.id}
                        {node.origin === undefined ? null : (
                          <p class="step-origin">
                            <small>{originWords(node.origin)}</small>
                          </p>
                        )}
                      </td>
                      <td data-label="Agent">{node.agent}</td>
                      <td data-label="State">
                        <StatusBadge state={session.nodes[node.id]?.state ?? 'pending'} />
                        {session.nodes[node.id]?.revision === undefined ? null : (
                          <p class="step-revision">
                            <small>
                              Run again for review round {session.nodes[node.id]?.revision?.round}:{' '}
                              {session.nodes[node.id]?.revision?.feedback}
                            </small>
                          </p>
                        )}
                        {live?.stepProgress[node.id] === undefined ? null : (
                          <p class="step-progress" aria-live="polite">
                            <small>{live.stepProgress[node.id]}</small>
                          </p>
                        )}
                      </td>
                      <td data-label="Task">{node.task}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>

      <section aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        {note === undefined ? null : (
          <p>
            <small>{note}</small>
          </p>
        )}
        {lines.length === 0 ? (
          <p>No progress yet.</p>
        ) : (
          <div role="log" aria-live="polite" aria-label="Progress lines">
            <ol class="progress-lines">
              {lines.map((line, index) => (
                <li key={index}>{line}</li>
              ))}
            </ol>
          </div>
        )}
      </section>

      <section aria-labelledby="answer-title">
        <h2 id="answer-title">Answer</h2>
        {answer === undefined ? (
          <p aria-busy={ACTIVE_STATUSES.has(session.status)}>
            {ACTIVE_STATUSES.has(session.status)
              ? 'The answer comes when the agents are done.'
              : 'No answer.'}
          </p>
        ) : (
          <div
            class="answer"
            aria-live="polite"
            aria-busy={live?.state === 'streaming' && session.result === null}
          >
            <AnswerText text={answer} names={fileNames} />
          </div>
        )}
        {live?.state === 'failed' && live.error !== undefined && session.result === null ? (
          <ErrorNote message={live.error} />
        ) : null}
        <Citations citations={citations} />
      </section>

      <FilesSection files={files} refused={live?.refused ?? []} />
    </section>
  );
}
