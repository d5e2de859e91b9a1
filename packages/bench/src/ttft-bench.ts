import { existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  startScriptedOpenAI,
  startService,
  type RunningService,
  type ScriptedOpenAI,
  type ScriptedReply,
} from '@fleet/testing';
import { agentSummaryOf, dataPart, textPart } from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { startDocsAgentStack } from './docs-agent-stack';
import { createProgress } from './progress';
import { formatMs, median, percentile } from './stats';
import { timeStreamedCompletion, type StreamTimings } from './ttft-client';

/** Options for {@link runTtftBench}. */
export interface TtftBenchOptions {
  /** The repository root (services and packages are found from it). */
  root: string;
  /** Interleaved rounds: one request per route each, the order rotating. @default 30 */
  rounds: number;
  /** The scripted model's delay before its first byte, for every call (classifier included). @default 100 */
  upstreamLatencyMs: number;
  /** Delay between streamed deltas. @default 10 */
  chunkDelayMs: number;
  /** Streamed deltas per answer. @default 20 */
  chunks: number;
  /** How long the scripted document agent takes per task. @default 50 */
  agentLatencyMs: number;
}

/** One route's measurements. */
export interface TtftRow {
  route: string;
  /** What the request asked for (`X-Routing-Mode`) and how. */
  description: string;
  /** The route the gateway reported taking (`X-Routing-Mode` response header). */
  taken: string;
  samples: number;
  firstTokenP50Ms: number;
  firstTokenP95Ms: number;
  firstContentP50Ms: number;
  firstContentP95Ms: number;
  /** First to last answer delta: how long the answer took to stream. */
  streamP50Ms: number;
  totalP50Ms: number;
  /** The last `X-Routing-Reason` seen. */
  reason: string | undefined;
}

/** The parts of a run measured straight, without the gateway: what the goals compare with. */
export interface TtftBaseline {
  /** One call to the planner over A2A (SendMessage, blocking), as the orchestrator makes it. */
  planningP50Ms: number;
  /** One call to the document agent over A2A (SendMessage, blocking). */
  agentP50Ms: number;
}

/** A goal of the benchmark and whether this run met it. */
export interface TtftGoal {
  text: string;
  measured: string;
  met: boolean;
}

/** What one run measured. */
export interface TtftBenchResult {
  machine: string;
  rows: TtftRow[];
  baseline: TtftBaseline;
  goals: TtftGoal[];
  /** Why the reasoning route was left out, when it was. */
  reasoningSkipped: string | undefined;
}

const KEY = 'sk-bench-ttft-0123456789abcdef';
const TOKEN = 'bench-ttft-internal-token-0123456789';
const ANSWER =
  'The quick brown fox jumps over the lazy dog and keeps running through the benchmark field.';
const CHAT = 'Say something short about foxes.';
const DOCUMENTS = 'Find the hotel rules in our documents.';

interface Route {
  name: string;
  description: string;
  headers: Record<string, string>;
  /** A fresh message per request, so each one is new to the classifier cache. */
  message: (index: number) => string;
  /** Sent straight to the scripted model, not through the gateway: the reference. */
  straight?: boolean;
}

/** The scripted model without the gateway: what the routes' answer streaming is compared with. */
const MODEL_ROUTE = 'model, straight';

const ROUTES: Route[] = [
  {
    name: MODEL_ROUTE,
    description: 'the scripted model itself, no gateway',
    headers: {},
    message: () => CHAT,
    straight: true,
  },
  {
    name: 'passthrough',
    description: 'no header',
    headers: {},
    message: () => CHAT,
  },
  {
    name: 'reasoning',
    description: 'X-Routing-Mode: reasoning',
    headers: { 'x-routing-mode': 'reasoning' },
    message: () => CHAT,
  },
  {
    name: 'orchestration',
    description: 'X-Routing-Mode: orchestration (1 agent node)',
    headers: { 'x-routing-mode': 'orchestration' },
    message: () => DOCUMENTS,
  },
  {
    name: 'auto → passthrough, cached',
    description: 'X-Routing-Mode: auto, the same chat message every time',
    headers: { 'x-routing-mode': 'auto' },
    message: () => CHAT,
  },
  {
    name: 'auto → passthrough, uncached',
    description: 'X-Routing-Mode: auto, a new chat message every time',
    headers: { 'x-routing-mode': 'auto' },
    message: (index) => `${CHAT} (variation ${index})`,
  },
  {
    name: 'auto → orchestration, cached',
    description: 'X-Routing-Mode: auto, the same documents question every time',
    headers: { 'x-routing-mode': 'auto' },
    message: () => DOCUMENTS,
  },
  {
    name: 'auto → orchestration, uncached',
    description: 'X-Routing-Mode: auto, a new documents question every time',
    headers: { 'x-routing-mode': 'auto' },
    message: (index) => `${DOCUMENTS} (variation ${index})`,
  },
];

function chatBody(message: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: 'bench-model',
      stream: true,
      messages: [{ role: 'user', content: message }],
    }),
  );
}

/**
 * The scripted model: the routing classifier gets a decision (orchestration for questions about
 * documents), other structured-output calls a sample of their schema, everything else the
 * streamed answer, all after the same latency.
 */
function scriptedModel(options: TtftBenchOptions): Promise<ScriptedOpenAI> {
  const { upstreamLatencyMs, chunkDelayMs, chunks } = options;
  return startScriptedOpenAI({
    recordRequests: false,
    respond(_request, context): ScriptedReply {
      const latency = upstreamLatencyMs > 0 ? { latencyMs: upstreamLatencyMs } : {};
      const format = context.request.response_format;
      if (format?.type === 'json_schema' && format.json_schema?.name === 'route_decision') {
        const documents = /document/i.test(context.lastUserMessage);
        return {
          ...latency,
          json: documents
            ? { route: 'orchestration', reason: 'needs documents' }
            : { route: 'passthrough', reason: 'general chat' },
        };
      }
      if (context.jsonMode) return latency;
      return {
        ...latency,
        content: ANSWER,
        chunkCount: chunks,
        ...(chunkDelayMs > 0 ? { chunkDelayMs } : {}),
      };
    },
  });
}

const BASELINE_CALLS = 10;

/** The p50 of `calls` sequential timings of `call`. */
async function timeCalls(call: () => Promise<unknown>, calls: number): Promise<number> {
  const timings: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    const started = process.hrtime.bigint();
    await call();
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(timings);
}

/**
 * What the goals compare with, measured straight: one planner call and one document-agent call
 * over A2A (after one warm-up each).
 */
async function measureBaseline(options: {
  plannerUrl: string;
  agentUrl: string;
}): Promise<TtftBaseline> {
  const planner = new A2AClient({
    card: await discoverAgentCard(options.plannerUrl),
    token: TOKEN,
  });
  const documentsCard = await discoverAgentCard(options.agentUrl);
  const documents = new A2AClient({ card: documentsCard, token: TOKEN });
  const agents = [agentSummaryOf(documentsCard)];
  let counter = 0;
  const plan = () =>
    planner.sendMessage({
      message: {
        messageId: `bench-plan-${(counter += 1)}`,
        role: 'ROLE_USER',
        parts: [
          textPart(DOCUMENTS),
          dataPart({ planRequest: { request: DOCUMENTS, history: [], agents } }),
        ],
      },
    });
  const ask = () =>
    documents.sendMessage({
      message: {
        messageId: `bench-ask-${(counter += 1)}`,
        role: 'ROLE_USER',
        parts: [
          textPart(DOCUMENTS),
          dataPart({
            fleet: { sessionId: 'bench', nodeId: 'docs', tenant: 'bench', dependencyOutputs: {} },
          }),
        ],
      },
    });
  await plan();
  await ask();
  return {
    planningP50Ms: await timeCalls(plan, BASELINE_CALLS),
    agentP50Ms: await timeCalls(ask, BASELINE_CALLS),
  };
}

/**
 * The goals: orchestration's first answer token no later than passthrough's plus planning plus
 * the agent plus 10 ms; every route streams its answer within 10 % of the model's own time.
 */
function checkGoals(rows: readonly TtftRow[], baseline: TtftBaseline): TtftGoal[] {
  const goals: TtftGoal[] = [];
  const passthrough = rows.find((row) => row.route === 'passthrough');
  const straight = rows.find((row) => row.route === MODEL_ROUTE);
  const orchestration = rows.find((row) => row.route === 'orchestration');
  if (passthrough !== undefined && orchestration !== undefined) {
    const bound = passthrough.firstContentP50Ms + baseline.planningP50Ms + baseline.agentP50Ms + 10;
    goals.push({
      text: "orchestration's first answer token ≤ passthrough's + planning + agent + 10 ms",
      measured: `${formatMs(orchestration.firstContentP50Ms)} ≤ ${formatMs(passthrough.firstContentP50Ms)} + ${formatMs(baseline.planningP50Ms)} + ${formatMs(baseline.agentP50Ms)} + 10 ms = ${formatMs(bound)}`,
      met: orchestration.firstContentP50Ms <= bound,
    });
  }
  // Two-sided: an answer sent whole at the end (streaming time ~0) misses as surely as a slow one.
  if (straight === undefined) return goals;
  const model = straight.streamP50Ms;
  for (const row of rows) {
    if (row === straight) continue;
    const off = row.streamP50Ms / model - 1;
    goals.push({
      text: `${row.route}: the answer streams within 10 % of the model's own time`,
      measured: `${formatMs(row.streamP50Ms)} vs ${formatMs(model)} (${off >= 0 ? '+' : ''}${(off * 100).toFixed(1)} %)`,
      met: Math.abs(off) <= 0.1,
    });
  }
  return goals;
}

function describeMachine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** The services of a ttft run, started as processes (stopped through `stoppers`). */
interface TtftFleet {
  planner: RunningService;
  /** The scripted document agent's base URL. */
  agentUrl: string;
  gateway: RunningService;
  /** Why the reasoning route is left out, when it is. */
  reasoningSkipped: string | undefined;
}

/**
 * Starts the fleet a ttft run measures: the scripted document agent, the planner (heuristic), the
 * orchestrator, the reasoning agent when it is built, and the gateway, all on the scripted model.
 */
async function startTtftFleet(
  options: TtftBenchOptions,
  llm: ScriptedOpenAI,
  stoppers: (() => Promise<unknown>)[],
): Promise<TtftFleet> {
  const { root } = options;
  const upstream = {
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'sk-upstream-bench',
    LLM_MODEL: 'bench-model',
  };
  const shared = { FLEET_INTERNAL_TOKEN: TOKEN, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
  // The planner plans without a model (its heuristic): the scripted model cannot write plans.
  const { orchestrator, planner, agentUrl } = await startDocsAgentStack({
    root,
    token: TOKEN,
    agentLatencyMs: options.agentLatencyMs,
    env: shared,
    orchestratorEnv: upstream,
    examples: 'Find the hotel rules in our documents|What does the travel policy say?',
    stoppers,
  });
  let reasoningAgent: RunningService | undefined;
  let reasoningSkipped: string | undefined;
  if (existsSync(path.join(root, 'services/reasoning-agent/dist/main.js'))) {
    try {
      reasoningAgent = await startService({
        root,
        name: 'reasoning-agent',
        env: { ...shared, ...upstream },
      });
      const started = reasoningAgent;
      stoppers.push(() => started.stop());
    } catch (error) {
      reasoningSkipped = `the reasoning agent did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    }
  } else reasoningSkipped = 'services/reasoning-agent is not built';
  const gateway = await startService({
    root,
    name: 'gateway',
    env: {
      ...shared,
      ...upstream,
      GATEWAY_API_KEYS: `${KEY}:bench`,
      GATEWAY_LIMITS: process.env['GATEWAY_LIMITS'] ?? 'false',
      ORCHESTRATOR_URL: orchestrator.url,
      ROUTING_CLASSIFIER_MODEL: 'bench-router',
      ...(reasoningAgent === undefined ? {} : { REASONING_AGENT_URL: reasoningAgent.url }),
    },
  });
  stoppers.push(() => gateway.stop());

  return { planner, agentUrl, gateway, reasoningSkipped };
}

/**
 * `pnpm bench ttft` (and the last section of `pnpm bench gateway`): time to first token through
 * the gateway for passthrough, reasoning, orchestration and auto, with one scripted model behind
 * every service, in interleaved rounds. Reasoning is measured when the reasoning agent is built
 * (`services/reasoning-agent/dist/main.js`) and answers a probe.
 */
export async function runTtftBench(options: TtftBenchOptions): Promise<TtftBenchResult> {
  const { rounds } = options;
  const stoppers: (() => Promise<unknown>)[] = [];
  const llm = await scriptedModel(options);
  stoppers.push(() => llm.close());
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const {
      planner,
      agentUrl,
      gateway,
      reasoningSkipped: notStarted,
    } = await startTtftFleet(options, llm, stoppers);
    let reasoningSkipped = notStarted;
    const url = `${gateway.url}/v1/chat/completions`;
    const send = (route: Route, index: number): Promise<StreamTimings> =>
      timeStreamedCompletion({
        agent,
        url: route.straight === true ? `${llm.baseURL}/chat/completions` : url,
        headers: {
          authorization: `Bearer ${route.straight === true ? 'sk-upstream-bench' : KEY}`,
          ...route.headers,
        },
        body: chatBody(route.message(index)),
      });

    let routes = ROUTES;
    if (reasoningSkipped === undefined) {
      const probe = await send(
        ROUTES.find((route) => route.name === 'reasoning')!,
        0,
      );
      if (!probe.ok || probe.route !== 'reasoning') {
        reasoningSkipped = `the reasoning route did not answer (${probe.error ?? `routed to ${probe.route ?? '?'}`})`;
      }
    }
    if (reasoningSkipped !== undefined)
      routes = routes.filter((route) => route.name !== 'reasoning');

    const baseline = await measureBaseline({
      plannerUrl: planner.url,
      agentUrl,
    });

    // Warm-up: JIT, connection pools, agent card discovery, the classifier cache.
    for (let index = 0; index < 3; index += 1) {
      for (const route of routes) {
        const timings = await send(route, -1 - index);
        if (!timings.ok) throw new Error(`${route.name}: ${timings.error ?? 'failed'}`);
      }
    }
    const samples = new Map<string, StreamTimings[]>(routes.map((route) => [route.name, []]));
    const progress = createProgress({ label: 'time to first token', total: rounds });
    let counter = 0;
    for (let round = 0; round < rounds; round += 1) {
      // Rotate the order every round so drift hits every route alike.
      for (let offset = 0; offset < routes.length; offset += 1) {
        const route = routes[(round + offset) % routes.length]!;
        counter += 1;
        const timings = await send(route, counter);
        if (!timings.ok) throw new Error(`${route.name}: ${timings.error ?? 'failed'}`);
        samples.get(route.name)!.push(timings);
      }
      progress.tick();
    }
    progress.done();

    const rows = routes.map((route): TtftRow => {
      const measured = samples.get(route.name)!;
      const firstToken = measured.map((each) => each.firstTokenMs);
      const firstContent = measured.map((each) => each.firstContentMs);
      return {
        route: route.name,
        description: route.description,
        taken:
          route.straight === true
            ? '—'
            : [...new Set(measured.map((each) => each.route ?? '?'))].join(', '),
        samples: measured.length,
        firstTokenP50Ms: median(firstToken),
        firstTokenP95Ms: percentile(firstToken, 0.95),
        firstContentP50Ms: median(firstContent),
        firstContentP95Ms: percentile(firstContent, 0.95),
        streamP50Ms: median(measured.map((each) => each.lastContentMs - each.firstContentMs)),
        totalP50Ms: median(measured.map((each) => each.totalMs)),
        reason: measured.at(-1)?.reason,
      };
    });
    return {
      machine: describeMachine(),
      rows,
      baseline,
      goals: checkGoals(rows, baseline),
      reasoningSkipped,
    };
  } finally {
    agent.destroy();
    for (const stop of stoppers.reverse()) await stop();
  }
}

/** Renders a result as the Markdown that goes into docs/benchmarks.md. */
export function formatTtftBench(result: TtftBenchResult, options: TtftBenchOptions): string {
  const base = result.rows.find((row) => row.route === 'passthrough');
  const ratio = (value: number, reference: number | undefined): string =>
    reference === undefined || !Number.isFinite(value)
      ? 'n/a'
      : `${(value / reference).toFixed(2)}×`;
  const lines = [
    `Machine: ${result.machine}`,
    `Settings: ${options.rounds} interleaved rounds (one streamed request per route each); scripted model: ${options.upstreamLatencyMs} ms before its first byte (every call, the routing classifier's included), ${options.chunks} deltas ${options.chunkDelayMs} ms apart; scripted document agent ${options.agentLatencyMs} ms; planner heuristic (no model)`,
    '',
    '| route | gateway took | first token p50 | p95 | ÷ passthrough (p50) | first answer token p50 | p95 | ÷ passthrough (p50) | answer streaming p50 | ÷ model (p50) | whole answer p50 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const { baseline } = result;
  const straight = result.rows.find((row) => row.route === MODEL_ROUTE);
  for (const row of result.rows) {
    lines.push(
      `| ${row.route} | ${row.taken} | ${formatMs(row.firstTokenP50Ms)} | ${formatMs(row.firstTokenP95Ms)} | ${ratio(row.firstTokenP50Ms, base?.firstTokenP50Ms)} | ${formatMs(row.firstContentP50Ms)} | ${formatMs(row.firstContentP95Ms)} | ${ratio(row.firstContentP50Ms, base?.firstContentP50Ms)} | ${formatMs(row.streamP50Ms)} | ${ratio(row.streamP50Ms, straight?.streamP50Ms)} | ${formatMs(row.totalP50Ms)} |`,
    );
  }
  lines.push('');
  lines.push(
    `Measured straight (p50 of ${BASELINE_CALLS}): one planner call ${formatMs(baseline.planningP50Ms)}; one document-agent call ${formatMs(baseline.agentP50Ms)}. The model's own answer streaming is the \`${MODEL_ROUTE}\` row.`,
    '',
  );
  for (const goal of result.goals) {
    lines.push(`- ${goal.text}: ${goal.measured} (${goal.met ? 'met' : 'NOT met'})`);
  }
  lines.push('');
  lines.push(
    'First token: the first delta with `content` or `reasoning_content` (orchestration and reasoning stream their progress as reasoning). First answer token: the first `content` delta. Answer streaming: from the first to the last `content` delta.',
  );
  for (const row of result.rows) {
    if (row.route.startsWith('auto') && row.reason !== undefined) {
      lines.push(`- ${row.route}: X-Routing-Reason \`${row.reason}\``);
    }
  }
  if (result.reasoningSkipped !== undefined) {
    lines.push(`Reasoning was not measured: ${result.reasoningSkipped}.`);
  }
  return lines.join('\n');
}
