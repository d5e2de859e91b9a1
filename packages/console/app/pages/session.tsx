import type { Signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import {
  ACTIVE_STATUSES,
  ApiError,
  api,
  describeError,
  type AgentSteering,
  type PlanNode,
  type SessionView,
} from '../api';
import { fileViewOf, mergeFiles } from '../../src/files/file-view';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorNote } from '../components/error-note';
import { ReviewSection } from '../components/review-panel';
import { FilesSection } from '../components/run-files';
import {
  AnswerSection,
  ApprovalsSection,
  PlanSection,
  ProgressSection,
  QuestionsSection,
  SessionHeader,
} from '../components/session-sections';
import { formatTime, stateWords } from '../format';
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

/** Whether an approval, review or question of the session waits for a decision. */
function waitsForYou(session: SessionView): boolean {
  const waiting =
    session.approvals.filter((approval) => approval.status === 'pending').length +
    (session.reviews ?? []).filter((review) => review.status === 'pending').length;
  return waiting > 0 || session.inputs.some((input) => input.status === 'pending');
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
  // The session's files (`GET /v1/sessions/{id}`), then any the stream announced first.
  const files = mergeFiles(session.files, live?.files.map(fileViewOf));
  const fileNames = new Map(files.map((file) => [file.id, file.name]));

  return (
    <section aria-labelledby="session-title" class="session" data-status={session.status}>
      <SessionHeader session={session} />
      <ErrorNote message={polled.error} />
      {session.error === null ? null : <p class="error-note">{session.error}</p>}
      <CancelButton
        session={session}
        onCanceled={() => {
          if (run !== undefined) stopStreaming(run);
          polled.refresh();
        }}
      />

      {waitsForYou(session) ? (
        <p class="attention" role="status">
          This run is waiting for you.
        </p>
      ) : null}

      <ReviewSection
        sessionId={session.id}
        reviews={session.reviews ?? []}
        names={fileNames}
        onDecided={polled.refresh}
      />
      <ApprovalsSection session={session} onDecided={polled.refresh} />
      <QuestionsSection session={session} onAnswered={polled.refresh} />
      <SteeringNote steering={session.steering} />
      <PlanSection session={session} nodes={planNodes(session, live)} live={live} narrow={narrow} />
      <ProgressSection lines={lines} note={note} />
      <AnswerSection
        session={session}
        live={live}
        answer={answer}
        citations={citations}
        fileNames={fileNames}
      />

      <FilesSection files={files} refused={live?.refused ?? []} />
    </section>
  );
}
