import { ACTIVE_STATUSES, type Citation, type PlanNode, type SessionView } from '../api';
import { formatTime, originWords } from '../format';
import type { LiveRun } from '../runs';
import { AnswerText } from './answer-text';
import { ApprovalCard, QuestionCard } from './approval-card';
import { ErrorNote } from './error-note';
import { PlanGraph } from './plan-graph';
import { StatusBadge } from './status-badge';

/** The session page's heading: its request, status, start time and id. */
export function SessionHeader({ session }: { session: SessionView }) {
  return (
    <>
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
    </>
  );
}

/** The session's tool approvals to decide (or decided), when there are any. */
export function ApprovalsSection({
  session,
  onDecided,
}: {
  session: SessionView;
  onDecided: () => void;
}) {
  if (session.approvals.length === 0) return null;
  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals</h2>
      {session.approvals.map((approval) => (
        <ApprovalCard
          key={approval.id}
          sessionId={session.id}
          approval={approval}
          onDecided={onDecided}
        />
      ))}
    </section>
  );
}

/** The agents' questions to answer (or answered), when there are any. */
export function QuestionsSection({
  session,
  onAnswered,
}: {
  session: SessionView;
  onAnswered: () => void;
}) {
  if (session.inputs.length === 0) return null;
  return (
    <section aria-labelledby="questions-title">
      <h2 id="questions-title">Questions</h2>
      {session.inputs.map((input) => (
        <QuestionCard key={input.id} sessionId={session.id} input={input} onAnswered={onAnswered} />
      ))}
    </section>
  );
}

/** One step of the plan: its origin, agent, state (with review round and progress) and task. */
function StepRow({
  node,
  session,
  live,
}: {
  node: PlanNode;
  session: SessionView;
  live: LiveRun | undefined;
}) {
  const state = session.nodes[node.id];
  return (
    <tr
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
        <StatusBadge state={state?.state ?? 'pending'} />
        {state?.revision === undefined ? null : (
          <p class="step-revision">
            <small>
              Run again for review round {state.revision.round}: {state.revision.feedback}
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
  );
}

/** The plan's steps as a table, beside the graph. */
function StepsTable({
  nodes,
  session,
  live,
}: {
  nodes: PlanNode[];
  session: SessionView;
  live: LiveRun | undefined;
}) {
  return (
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
            <StepRow key={node.id} node={node} session={session} live={live} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The plan as a live graph and a table of its steps (or why there is none yet). */
export function PlanSection({
  session,
  nodes,
  live,
  narrow,
}: {
  session: SessionView;
  /** The plan's steps, with any the live stream added. */
  nodes: PlanNode[];
  live: LiveRun | undefined;
  narrow: boolean;
}) {
  return (
    <section aria-labelledby="plan-title">
      <h2 id="plan-title">Plan</h2>
      {session.plan === null ? (
        <p>{ACTIVE_STATUSES.has(session.status) ? 'Planning…' : 'No plan was made.'}</p>
      ) : (
        <>
          <PlanGraph plan={nodes} states={session.nodes} narrow={narrow} />
          <StepsTable nodes={nodes} session={session} live={live} />
        </>
      )}
    </section>
  );
}

/** The progress lines, with a note on how this page follows the session. */
export function ProgressSection({
  lines,
  note,
}: {
  lines: readonly string[];
  note: string | undefined;
}) {
  return (
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
  );
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

/** The answer (stored, or as it streams), a failed stream's error, and the sources. */
export function AnswerSection({
  session,
  live,
  answer,
  citations,
  fileNames,
}: {
  session: SessionView;
  live: LiveRun | undefined;
  answer: string | undefined;
  citations: readonly Citation[];
  /** File names by id, for the answer's file links. */
  fileNames: Map<string, string>;
}) {
  return (
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
  );
}
