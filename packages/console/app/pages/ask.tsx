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

/** What the ask form says: the question, the route and its options. */
interface AskForm {
  message: string;
  mode: RunRequest['mode'];
  planApproval: boolean;
  resultReview: boolean;
  /** The steering fields' text, by kind. */
  steering: Record<keyof AgentSteering, string>;
  /** The upstream model chosen for model-only questions (the first listed, until one is chosen). */
  chosenModel: string | undefined;
}

/** Changes one field of the ask form. */
type SetAskField = <TField extends keyof AskForm>(field: TField, value: AskForm[TField]) => void;

/** Changes one steering field's text. */
type SetSteeringField = (kind: keyof AgentSteering, value: string) => void;

/** The ask form's state, with the gateway's upstream models to choose from. */
function useAskForm(): {
  form: AskForm;
  setField: SetAskField;
  setSteeringField: SetSteeringField;
  upstreamModels: string[];
} {
  const [fields, setFields] = useState<Omit<AskForm, 'chosenModel'>>({
    message: '',
    mode: 'orchestration',
    planApproval: false,
    resultReview: false,
    steering: { prefer: '', require: '', exclude: '' },
  });
  const [model, setModel] = useState<string | undefined>(undefined);
  const models = usePolling(
    async (signal) =>
      (await api<ListOf<{ id: string }>>('/models', { signal })).data
        .map((entry) => entry.id)
        .filter((id) => !id.startsWith('fleet-')),
    { intervalMs: 60_000, active: false, key: 'models' },
  );
  const upstreamModels = models.data ?? [];
  const form: AskForm = { ...fields, chosenModel: model ?? upstreamModels[0] };
  const setField: SetAskField = (field, value) => {
    if (field === 'chosenModel') setModel(value as string | undefined);
    else setFields((now) => ({ ...now, [field]: value }));
  };
  const setSteeringField: SetSteeringField = (kind, value) => {
    setFields((now) => ({ ...now, steering: { ...now.steering, [kind]: value } }));
  };
  return { form, setField, setSteeringField, upstreamModels };
}

/**
 * Starting a run from the form: an orchestrated run opens its session page; a run without a
 * session is kept here, to stream its answer.
 */
function useRunStarter(form: AskForm): {
  submit: (event: Event) => Promise<void>;
  sending: boolean;
  error: string | undefined;
  run: Signal<LiveRun> | undefined;
} {
  const { route } = useLocation();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [run, setRun] = useState<Signal<LiveRun> | undefined>(undefined);
  const { message, mode } = form;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (message.trim() === '') {
      setError('Write a question first.');
      return;
    }
    const runModel = mode === 'passthrough' ? form.chosenModel : AGENT_MODELS[mode];
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
        planApproval: form.planApproval,
        ...(mode === 'orchestration' || mode === 'auto'
          ? { resultReview: form.resultReview, steering: steeringFrom(form.steering) }
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
  return { submit, sending, error, run };
}

/** The route to ask by, with its help, and the upstream model for model-only questions. */
function RouteFields({
  form,
  setField,
  upstreamModels,
}: {
  form: AskForm;
  setField: SetAskField;
  upstreamModels: string[];
}) {
  const selected = MODES.find((entry) => entry.value === form.mode);
  return (
    <div class="grid">
      <div>
        <label for="ask-mode">Route</label>
        <select
          id="ask-mode"
          value={form.mode}
          aria-describedby="ask-mode-help"
          onChange={(event) => setField('mode', event.currentTarget.value as RunRequest['mode'])}
        >
          {MODES.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
        <small id="ask-mode-help">{selected?.help}</small>
      </div>
      {form.mode === 'passthrough' ? (
        <div>
          <label for="ask-model">Model</label>
          <select
            id="ask-model"
            value={form.chosenModel ?? ''}
            onChange={(event) => setField('chosenModel', event.currentTarget.value)}
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
  );
}

/** What an agent route can add: plan approval, answer review and agent steering. */
function AgentRunOptions({
  form,
  setField,
  setSteeringField,
}: {
  form: AskForm;
  setField: SetAskField;
  setSteeringField: SetSteeringField;
}) {
  if (form.mode !== 'orchestration' && form.mode !== 'auto') return null;
  return (
    <>
      <label>
        <input
          type="checkbox"
          role="switch"
          checked={form.planApproval}
          onChange={(event) => setField('planApproval', event.currentTarget.checked)}
        />
        Let me approve the plan before any agent runs
      </label>
      <label>
        <input
          type="checkbox"
          role="switch"
          checked={form.resultReview}
          onChange={(event) => setField('resultReview', event.currentTarget.checked)}
        />
        Review the answer before it is sent
      </label>
      <details class="ask-steering">
        <summary>Agent steering (optional)</summary>
        <small id="ask-steering-help">
          Agent names (rag-agent), an agent's skill (mail-agent/send-mail) or a skill id, separated
          by commas.
        </small>
        {STEERING_FIELDS.map(({ kind, label }) => (
          <div key={kind}>
            <label for={`ask-steering-${kind}`}>{label}</label>
            <input
              id={`ask-steering-${kind}`}
              type="text"
              maxLength={STEERING_LIMIT}
              aria-describedby="ask-steering-help"
              value={form.steering[kind]}
              onInput={(event) => setSteeringField(kind, event.currentTarget.value)}
            />
          </div>
        ))}
      </details>
    </>
  );
}

/** The answer of a run without a session, as it streams, with its files. */
function LiveAnswer({ live }: { live: LiveRun }) {
  return (
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
  );
}

/**
 * Starts a run from the page. An orchestrated run opens its session page (the graph, the approvals,
 * the streamed answer); a run without a session (model only, reasoning) streams its answer here.
 */
export function AskPage() {
  const { form, setField, setSteeringField, upstreamModels } = useAskForm();
  const { submit, sending, error, run } = useRunStarter(form);
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
          value={form.message}
          onInput={(event) => setField('message', event.currentTarget.value)}
          required
        />
        <RouteFields form={form} setField={setField} upstreamModels={upstreamModels} />
        <AgentRunOptions form={form} setField={setField} setSteeringField={setSteeringField} />
        <ErrorNote message={error} />
        <button type="submit" aria-busy={sending} disabled={sending}>
          {sending ? 'Starting…' : 'Ask'}
        </button>
      </form>
      {live === undefined ? null : <LiveAnswer live={live} />}
    </section>
  );
}
