import { useState } from 'preact/hooks';
import { api, type ApprovalView, type InputView } from '../api';
import { formatTime, fromNow } from '../format';
import { useAction } from '../hooks';
import { ErrorNote } from './error-note';
import { StatusBadge } from './status-badge';

const INSTRUCTIONS_LIMIT = 4000;
const ANSWER_LIMIT = 16000;

function title(approval: ApprovalView): string {
  if (approval.kind === 'plan') return 'Approve the plan';
  return `${approval.agent ?? 'An agent'} asks to ${approval.action.replaceAll('-', ' ')}`;
}

/** The approval's heading, status, risk, summary and full preview. */
function ApprovalDetails({ approval, headingId }: { approval: ApprovalView; headingId: string }) {
  return (
    <>
      <header>
        <h3 id={headingId}>{title(approval)}</h3>
        <p>
          <StatusBadge state={approval.status} />{' '}
          <span class={`risk risk-${approval.risk}`}>{approval.risk} risk</span>
          {approval.nodeId === null ? null : <> · step {approval.nodeId}</>}
        </p>
      </header>
      <p class="approval-summary">{approval.summary}</p>
      {approval.riskDescription === undefined ? null : (
        <p>
          <strong>Why it is risky:</strong> {approval.riskDescription}
        </p>
      )}
      <details open={approval.status === 'pending'}>
        <summary>Preview (exactly what will run or be sent)</summary>
        <pre class="preview" tabIndex={0} aria-label="Preview">
          <code>{approval.preview}</code>
        </pre>
      </details>
    </>
  );
}

/** While the approval waits: Approve, or Deny, with optional instructions, and when it expires. */
function ApprovalDecisionForm({
  sessionId,
  approval,
  onDecided,
}: {
  sessionId: string;
  approval: ApprovalView;
  onDecided: () => void;
}) {
  const [instructions, setInstructions] = useState('');
  const [decision, setDecision] = useState<'approve' | 'deny' | undefined>(undefined);
  const action = useAction();
  const instructionsId = `approval-${approval.id}-instructions`;

  const decide = async (chosen: 'approve' | 'deny'): Promise<void> => {
    setDecision(chosen);
    const trimmed = instructions.trim();
    const path = `/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approval.id)}`;
    const body =
      trimmed === '' ? { decision: chosen } : { decision: chosen, instructions: trimmed };
    if (await action.run(() => api(path, { method: 'POST', json: body }))) {
      setInstructions('');
      onDecided();
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
      }}
    >
      <label for={instructionsId}>
        Instructions (optional: a denial with instructions lets the fleet try again your way)
      </label>
      <textarea
        id={instructionsId}
        rows={2}
        maxLength={INSTRUCTIONS_LIMIT}
        value={instructions}
        onInput={(event) => setInstructions(event.currentTarget.value)}
      />
      <ErrorNote message={action.error} />
      <div class="decision-buttons" role="group" aria-label="Decision">
        <button
          type="button"
          aria-busy={action.busy && decision === 'approve'}
          disabled={action.busy}
          onClick={() => void decide('approve')}
        >
          Approve
        </button>
        <button
          type="button"
          class="secondary"
          aria-busy={action.busy && decision === 'deny'}
          disabled={action.busy}
          onClick={() => void decide('deny')}
        >
          Deny
        </button>
      </div>
      <p>
        <small>
          Expires{' '}
          <time dateTime={approval.expiresAt} title={formatTime(approval.expiresAt)}>
            {fromNow(approval.expiresAt)}
          </time>
          ; nobody deciding counts as a denial.
        </small>
      </p>
    </form>
  );
}

/** A decided approval: when, and the instructions given. */
function ApprovalDecided({ approval }: { approval: ApprovalView }) {
  return (
    <p>
      <small>
        {approval.decidedAt === undefined ? null : <>Decided {formatTime(approval.decidedAt)}. </>}
        {approval.instructions === undefined ? null : <>Instructions: {approval.instructions}</>}
      </small>
    </p>
  );
}

/**
 * One approval: what the agent wants to do and its full preview (the code, the mail), shown as text
 * whatever it contains. While it waits: Approve, or Deny, with optional instructions.
 */
export function ApprovalCard({
  sessionId,
  approval,
  onDecided,
}: {
  sessionId: string;
  approval: ApprovalView;
  onDecided: () => void;
}) {
  const headingId = `approval-${approval.id}-title`;
  return (
    <article
      class={`approval approval-${approval.status}`}
      aria-labelledby={headingId}
      data-approval-id={approval.id}
    >
      <ApprovalDetails approval={approval} headingId={headingId} />
      {approval.status === 'pending' ? (
        <ApprovalDecisionForm sessionId={sessionId} approval={approval} onDecided={onDecided} />
      ) : (
        <ApprovalDecided approval={approval} />
      )}
    </article>
  );
}

/** One question an agent asked: answer it here while it waits. */
export function QuestionCard({
  sessionId,
  input,
  onAnswered,
}: {
  sessionId: string;
  input: InputView;
  onAnswered: () => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  const answerId = `input-${input.id}-answer`;

  const send = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (text.trim() === '') {
      action.setError('Write an answer first.');
      return;
    }
    const path = `/sessions/${encodeURIComponent(sessionId)}/inputs/${encodeURIComponent(input.id)}`;
    if (await action.run(() => api(path, { method: 'POST', json: { text: text.trim() } }))) {
      setText('');
      onAnswered();
    }
  };

  return (
    <article class="question" data-input-id={input.id}>
      <header>
        <h3>{input.agent ?? 'An agent'} asks</h3>
        <StatusBadge state={input.status} />
      </header>
      <p class="question-text">{input.question}</p>
      {input.status === 'pending' ? (
        <form onSubmit={(event) => void send(event)}>
          <label for={answerId}>Your answer</label>
          <textarea
            id={answerId}
            rows={2}
            maxLength={ANSWER_LIMIT}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
          />
          <ErrorNote message={action.error} />
          <button type="submit" aria-busy={action.busy} disabled={action.busy}>
            Send answer
          </button>
        </form>
      ) : input.answer === undefined ? null : (
        <p>
          <small>Answered: {input.answer}</small>
        </p>
      )}
    </article>
  );
}
