import type { Signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, describeError, type AgentSteering, type ListOf } from '../api';
import { fileViewOf } from '../../src/files/file-view';
import { AnswerText } from '../components/answer-text';
import { ErrorNote } from '../components/error-note';
import { FilesSection } from '../components/run-files';
import { usePolling } from '../hooks';
import { startRun, type LiveRun, type RunRequest } from '../runs';

const MODES: { value: RunRequest['mode']; label: string; help: string }[] = [
  {
    value: 'orchestration',
    label: 'Orchestration',
    help: 'The planner splits the question into steps for the agents; the answer cites its sources.',
  },
  {
    value: 'auto',
    label: 'Auto',
    help: 'The gateway decides: simple questions go straight to the model, the rest to the agents.',
  },
  { value: 'reasoning', label: 'Reasoning', help: 'One reasoning agent answers on its own.' },
  { value: 'passthrough', label: 'Model only', help: 'Straight to the upstream model, no agents.' },
];

const AGENT_MODELS: Record<string, string> = {
  orchestration: 'fleet-orchestration',
  auto: 'fleet-auto',
  reasoning: 'fleet-reasoning',
};

/** Characters a question may have (the gateway's own limit is larger). */
const MESSAGE_LIMIT = 32_000;

/** Characters a steering field may have: 16 names of 128 characters, with commas. */
const STEERING_LIMIT = 16 * 130;

const STEERING_FIELDS: { kind: keyof AgentSteering; label: string }[] = [
  { kind: 'prefer', label: 'Prefer these agents or skills' },
  { kind: 'require', label: 'Require these agents or skills' },
  { kind: 'exclude', label: 'Leave out these agents or skills' },
];

/**
 * The steering the fields say (`fleet_agents`): each field's names split at commas and spaces;
 * undefined when every field is empty.
 */
function steeringFrom(fields: Record<keyof AgentSteering, string>): AgentSteering | undefined {
  const steering: AgentSteering = {};
  for (const { kind } of STEERING_FIELDS) {
    const names = fields[kind].split(/[\s,]+/).filter((name) => name !== '');
    if (names.length > 0) steering[kind] = names;
  }
  return Object.keys(steering).length === 0 ? undefined : steering;
}

/**
 * Starts a run from the page. An orchestrated run opens its session page (the graph, the approvals,
 * the streamed answer); a run without a session (model only, reasoning) streams its answer here.
 */
export function AskPage() {
  const { route } = useLocation();
  const [message, setMessage] = useState('');
  const [mode, setMode] = useState<RunRequest['mode']>('orchestration');
  const [planApproval, setPlanApproval] = useState(false);
  const [resultReview, setResultReview] = useState(false);
  const [steering, setSteering] = useState<Record<keyof AgentSteering, string>>({
    prefer: '',
    require: '',
    exclude: '',
  });
  const [model, setModel] = useState<string | undefined>(undefined);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [run, setRun] = useState<Signal<LiveRun> | undefined>(undefined);
  const models = usePolling(
    async (signal) =>
      (await api<ListOf<{ id: string }>>('/models', { signal })).data
        .map((entry) => entry.id)
        .filter((id) => !id.startsWith('fleet-')),
    { intervalMs: 60_000, active: false, key: 'models' },
  );
  const upstreamModels = models.data ?? [];
  const chosenModel = model ?? upstreamModels[0];

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (message.trim() === '') {
      setError('Write a question first.');
      return;
    }
    const runModel = mode === 'passthrough' ? chosenModel : AGENT_MODELS[mode];
    if (runModel === undefined) {
      setError(
        'The gateway lists no upstream model: model-only questions need one (offline mode?).',
      );
      return;
    }
    setSending(true);
    setError(undefined);
    setRun(undefined);
    try {
      const started = await startRun({
        message: message.trim(),
        mode,
        model: runModel,
        planApproval,
        ...(mode === 'orchestration' || mode === 'auto'
          ? { resultReview, steering: steeringFrom(steering) }
          : {}),
      });
      if (started.value.sessionId !== undefined) {
        route(`/console/sessions/${encodeURIComponent(started.value.sessionId)}`);
        return;
      }
      setRun(started);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setSending(false);
    }
  };

  const selected = MODES.find((entry) => entry.value === mode);
  const live = run?.value;
  return (
    <section aria-labelledby="ask-title">
      <h1 id="ask-title">Ask</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label for="ask-message">Question</label>
        <textarea
          id="ask-message"
          rows={4}
          maxLength={MESSAGE_LIMIT}
          value={message}
          onInput={(event) => setMessage(event.currentTarget.value)}
          required
        />
        <div class="grid">
          <div>
            <label for="ask-mode">Route</label>
            <select
              id="ask-mode"
              value={mode}
              aria-describedby="ask-mode-help"
              onChange={(event) => setMode(event.currentTarget.value as RunRequest['mode'])}
            >
              {MODES.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
            <small id="ask-mode-help">{selected?.help}</small>
          </div>
          {mode === 'passthrough' ? (
            <div>
              <label for="ask-model">Model</label>
              <select
                id="ask-model"
                value={chosenModel ?? ''}
                onChange={(event) => setModel(event.currentTarget.value)}
              >
                {upstreamModels.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
        </div>
        {mode === 'orchestration' || mode === 'auto' ? (
          <label>
            <input
              type="checkbox"
              role="switch"
              checked={planApproval}
              onChange={(event) => setPlanApproval(event.currentTarget.checked)}
            />
            Let me approve the plan before any agent runs
          </label>
        ) : null}
        {mode === 'orchestration' || mode === 'auto' ? (
          <label>
            <input
              type="checkbox"
              role="switch"
              checked={resultReview}
              onChange={(event) => setResultReview(event.currentTarget.checked)}
            />
            Review the answer before it is sent
          </label>
        ) : null}
        {mode === 'orchestration' || mode === 'auto' ? (
          <details class="ask-steering">
            <summary>Agent steering (optional)</summary>
            <small id="ask-steering-help">
              Agent names (rag-agent), an agent's skill (mail-agent/send-mail) or a skill id,
              separated by commas.
            </small>
            {STEERING_FIELDS.map(({ kind, label }) => (
              <div key={kind}>
                <label for={`ask-steering-${kind}`}>{label}</label>
                <input
                  id={`ask-steering-${kind}`}
                  type="text"
                  maxLength={STEERING_LIMIT}
                  aria-describedby="ask-steering-help"
                  value={steering[kind]}
                  onInput={(event) => {
                    const value = event.currentTarget.value;
                    setSteering((now) => ({ ...now, [kind]: value }));
                  }}
                />
              </div>
            ))}
          </details>
        ) : null}
        <ErrorNote message={error} />
        <button type="submit" aria-busy={sending} disabled={sending}>
          {sending ? 'Starting…' : 'Ask'}
        </button>
      </form>
      {live === undefined ? null : (
        <section aria-labelledby="ask-answer-title">
          <h2 id="ask-answer-title">Answer</h2>
          <p>
            <small>Route taken: {live.route ?? 'unknown'}</small>
          </p>
          <div class="answer" aria-live="polite" aria-busy={live.state === 'streaming'}>
            <AnswerText
              text={live.answer}
              names={new Map(live.files.map((file) => [file.id, file.name]))}
            />
          </div>
          {live.state === 'failed' ? <ErrorNote message={live.error} /> : null}
          <FilesSection
            files={live.files.map(fileViewOf)}
            refused={live.refused}
            titleId="ask-files-title"
          />
        </section>
      )}
    </section>
  );
}
