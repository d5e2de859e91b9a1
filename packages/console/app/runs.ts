/**
 * Streamed answers: `POST /v1/chat/completions` with `stream: true`, read as server-sent events
 * (eventsource-parser) and kept per run in signals, so a page shows the progress lines and the
 * answer as they arrive and another page (the session, after Ask) picks the same run up.
 */
import { signal, type Signal } from '@preact/signals';
import { createParser } from 'eventsource-parser';
import {
  authHeaders,
  errorFromBody,
  handleUnauthorized,
  describeError,
  type AgentSteering,
  type Citation,
  type PlanNode,
} from './api';
import {
  readRefusedFile,
  readRunFile,
  type RefusedFile,
  type RunFileWire,
} from '../src/files/file-view';

/** Files (and refusals) one run keeps for the page: a run's own limit is far below this. */
const MAX_LIVE_FILES = 200;

/** Steps one run adds for the page (a plan has at most 32 steps). */
const MAX_ADDED_NODES = 64;

/** One streamed run as the console shows it. */
export interface LiveRun {
  /** `streaming` until the stream ends: `done`, or `failed` with `error`. */
  state: 'connecting' | 'streaming' | 'done' | 'failed';
  /** The route the gateway took (`X-Routing-Mode` of the answer). */
  route: string | undefined;
  sessionId: string | undefined;
  /** Progress lines (`delta.reasoning_content`), one per line. */
  lines: string[];
  /** The answer so far (`delta.content`). */
  answer: string;
  /** The sources, from the run's `run-result`. */
  citations: Citation[];
  /** Files the run's steps made, as they arrive (`file-ready`, then the run's result). */
  files: RunFileWire[];
  /** Files a step made that the run did not keep (`file-refused`). */
  refused: RefusedFile[];
  /**
   * What each running step's agent last said it was doing (`node-progress`), by step id; a step's
   * entry goes when it ends.
   */
  stepProgress: Record<string, string>;
  /** Steps added to the plan while the run goes (`node-added`), before the session shows them. */
  addedNodes: PlanNode[];
  /**
   * How many review events (`review-required`, `review-end`) arrived: the session page reads the
   * session again when it changes, as a review waits or is decided.
   */
  reviewEvents: number;
  error: string | undefined;
}

/** What to send. */
export interface RunRequest {
  message: string;
  /** `X-Routing-Mode`. */
  mode: 'orchestration' | 'auto' | 'reasoning' | 'passthrough';
  /** The model (passthrough needs an upstream model; the agent routes name their own). */
  model: string;
  /** `X-Plan-Approval: required`. */
  planApproval: boolean;
  /** `X-Result-Review: required`: a person reviews the answer before it is sent. */
  resultReview?: boolean;
  /** The body field `fleet_agents`: agents or skills to prefer, require or leave out. */
  steering?: AgentSteering | undefined;
  /** `X-Session-ID`: follow this session instead of starting a run. */
  followSessionId?: string;
}

const runsBySession = new Map<string, Signal<LiveRun>>();

/** The live run of a session this tab is streaming, if any. */
export function liveRunFor(sessionId: string): Signal<LiveRun> | undefined {
  return runsBySession.get(sessionId);
}

const controllers = new WeakMap<Signal<LiveRun>, AbortController>();

/**
 * Stops a run's stream (the run itself goes on unless the session is canceled) and forgets it, so
 * the session's page follows the session afresh next time.
 */
export function stopStreaming(run: Signal<LiveRun>): void {
  controllers.get(run)?.abort();
  const sessionId = run.value.sessionId;
  if (sessionId !== undefined && runsBySession.get(sessionId) === run) {
    runsBySession.delete(sessionId);
  }
}

interface ChunkShape {
  choices?: { delta?: { content?: unknown; reasoning_content?: unknown } }[];
  fleet?: {
    type?: unknown;
    citations?: unknown;
    sessionId?: unknown;
    file?: unknown;
    files?: unknown;
    nodeId?: unknown;
    text?: unknown;
    node?: unknown;
    agent?: unknown;
    target?: unknown;
    reason?: unknown;
  };
  error?: { message?: unknown };
}

function applyChunk(run: LiveRun, chunk: ChunkShape): LiveRun {
  if (chunk.error !== undefined) {
    const message =
      typeof chunk.error.message === 'string' ? chunk.error.message : 'The run failed.';
    return { ...run, state: 'failed', error: message };
  }
  const delta = chunk.choices?.[0]?.delta;
  let next = run;
  const hasLine = typeof delta?.reasoning_content === 'string' && delta.reasoning_content !== '';
  if (typeof delta?.reasoning_content === 'string' && hasLine) {
    const added = delta.reasoning_content.split('\n').filter((line) => line.trim() !== '');
    next = { ...next, lines: [...next.lines, ...added] };
  }
  if (!hasLine && chunk.fleet?.type === 'handoff-refused') {
    // The orchestrator sends its own line with the event; without one, the page writes it.
    next = { ...next, lines: [...next.lines, handoffRefusedLine(chunk.fleet)] };
  }
  next = applyPlanEvents(next, chunk.fleet);
  if (typeof delta?.content === 'string' && delta.content !== '') {
    next = { ...next, answer: next.answer + delta.content };
  }
  if (chunk.fleet?.type === 'run-result' && Array.isArray(chunk.fleet.citations)) {
    next = { ...next, citations: chunk.fleet.citations as Citation[] };
  }
  const announced =
    chunk.fleet?.type === 'file-ready'
      ? [chunk.fleet.file]
      : chunk.fleet?.type === 'run-result' && Array.isArray(chunk.fleet.files)
        ? (chunk.fleet.files as unknown[])
        : [];
  for (const value of announced) {
    const file = readRunFile(value);
    if (file === undefined || next.files.length >= MAX_LIVE_FILES) continue;
    if (next.files.some((known) => known.id === file.id)) continue;
    next = { ...next, files: [...next.files, file] };
  }
  next = applyStepProgress(next, chunk.fleet);
  if (chunk.fleet?.type === 'file-refused' && next.refused.length < MAX_LIVE_FILES) {
    const refused = readRefusedFile(chunk.fleet);
    if (refused !== undefined) next = { ...next, refused: [...next.refused, refused] };
  }
  return next;
}

/** A refused hand-off in words, from its event's fields. */
function handoffRefusedLine(fleet: NonNullable<ChunkShape['fleet']>): string {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '?');
  return `Step ${text(fleet.nodeId)} (${text(fleet.agent)}) handed off to ${text(fleet.target)}; not taken: ${text(fleet.reason)}`;
}

/** Reads a `node-added` event's step, when it has the shape of one. */
function readAddedNode(value: unknown): PlanNode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const node = value as Record<string, unknown>;
  if (typeof node['id'] !== 'string' || typeof node['agent'] !== 'string') return undefined;
  const origin = node['origin'] as Record<string, unknown> | undefined;
  const dependsOn = Array.isArray(node['dependsOn'])
    ? node['dependsOn'].filter((id): id is string => typeof id === 'string')
    : [];
  return {
    id: node['id'],
    agent: node['agent'],
    task: typeof node['task'] === 'string' ? node['task'] : '',
    dependsOn,
    ...(typeof origin === 'object' &&
    origin !== null &&
    (origin['kind'] === 'handoff' || origin['kind'] === 'replan') &&
    typeof origin['from'] === 'string'
      ? { origin: { kind: origin['kind'], from: origin['from'] } }
      : {}),
  };
}

/** Keeps the steps the run adds (`node-added`) and counts review events. */
function applyPlanEvents(run: LiveRun, fleet: ChunkShape['fleet']): LiveRun {
  if (fleet?.type === 'review-required' || fleet?.type === 'review-end') {
    return { ...run, reviewEvents: run.reviewEvents + 1 };
  }
  if (fleet?.type !== 'node-added' || run.addedNodes.length >= MAX_ADDED_NODES) return run;
  const node = readAddedNode(fleet.node);
  if (node === undefined || run.addedNodes.some((known) => known.id === node.id)) return run;
  return { ...run, addedNodes: [...run.addedNodes, node] };
}

/** Keeps a step's latest progress text (`node-progress`) until the step ends (`node-end`). */
function applyStepProgress(run: LiveRun, fleet: ChunkShape['fleet']): LiveRun {
  if (fleet === undefined || typeof fleet.nodeId !== 'string') return run;
  if (fleet.type === 'node-progress' && typeof fleet.text === 'string') {
    return { ...run, stepProgress: { ...run.stepProgress, [fleet.nodeId]: fleet.text } };
  }
  if (fleet.type === 'node-end' && fleet.nodeId in run.stepProgress) {
    const { [fleet.nodeId]: _ended, ...rest } = run.stepProgress;
    return { ...run, stepProgress: rest };
  }
  return run;
}

/**
 * Starts streaming a run. Resolves once the gateway has answered with headers (the session id is
 * known then), with the run's signal; the stream goes on in the background.
 * @throws ApiError when the gateway refuses the request (400, 401, 404, 409, 503, …)
 */
export async function startRun(request: RunRequest): Promise<Signal<LiveRun>> {
  const controller = new AbortController();
  const headers: Record<string, string> = {
    ...authHeaders(),
    'Content-Type': 'application/json',
    Accept: 'text/event-stream',
    'X-Routing-Mode': request.followSessionId === undefined ? request.mode : 'orchestration',
  };
  if (request.planApproval) headers['X-Plan-Approval'] = 'required';
  if (request.resultReview === true) headers['X-Result-Review'] = 'required';
  if (request.followSessionId !== undefined) headers['X-Session-ID'] = request.followSessionId;
  // Following a session sends no user message: if a question waits, the gateway refuses (400)
  // instead of taking anything here as its answer.
  const messages =
    request.followSessionId === undefined
      ? [{ role: 'user', content: request.message }]
      : [{ role: 'system', content: 'Follow the session from the console.' }];
  const response = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      model: request.model,
      messages,
      stream: true,
      ...(request.steering === undefined ? {} : { fleet_agents: request.steering }),
    }),
    cache: 'no-store',
    signal: controller.signal,
  });
  if (!response.ok || response.body === null) {
    const error = errorFromBody(response.status, await response.text());
    handleUnauthorized(error);
    throw error;
  }
  const sessionId = response.headers.get('x-session-id') ?? undefined;
  const run = signal<LiveRun>({
    state: 'streaming',
    route: response.headers.get('x-routing-mode') ?? undefined,
    sessionId,
    lines: [],
    answer: '',
    citations: [],
    files: [],
    refused: [],
    stepProgress: {},
    addedNodes: [],
    reviewEvents: 0,
    error: undefined,
  });
  controllers.set(run, controller);
  if (sessionId !== undefined) runsBySession.set(sessionId, run);
  void readStream(response.body, run).finally(() => {
    if (sessionId !== undefined && runsBySession.get(sessionId) === run) {
      // A finished stream stays readable until the page asks for it again (reload shows the stored
      // answer), but a new follow may replace it.
      controllers.delete(run);
    }
  });
  return run;
}

async function readStream(body: ReadableStream<Uint8Array>, run: Signal<LiveRun>): Promise<void> {
  let ended = false;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        ended = true;
        return;
      }
      try {
        run.value = applyChunk(run.value, JSON.parse(event.data) as ChunkShape);
      } catch {
        // A line that is not JSON is not ours to show; the stream goes on.
      }
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    if (run.value.state === 'streaming') {
      run.value = ended
        ? { ...run.value, state: 'done' }
        : {
            ...run.value,
            state: 'failed',
            error: 'The stream ended before the answer was complete.',
          };
    }
  } catch (error) {
    if (run.value.state === 'streaming') {
      run.value = { ...run.value, state: 'failed', error: describeError(error) };
    }
  }
}
