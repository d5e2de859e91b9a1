import http from 'node:http';
import os from 'node:os';
import { startService } from '@fleet/testing';
import { startDocsAgentStack } from './docs-agent-stack';
import { createProgress } from './progress';
import { formatMs, median, percentile } from './stats';
import { timeStreamedCompletion, type StreamTimings } from './ttft-client';

/** Options for {@link runTenantsBench}. */
export interface TenantsBenchOptions {
  /** The repository root (services are found from it). */
  root: string;
  /** Concurrent requests the flooding tenant keeps in flight. @default 100 */
  floodConcurrency: number;
  /** The quiet tenant's sequential requests per phase (unloaded, then loaded). @default 20 */
  steadyRequests: number;
  /** How long the scripted agent takes per task. @default 100 */
  agentLatencyMs: number;
  /**
   * ORCHESTRATOR_MAX_ACTIVE_RUNS for the fair run; undefined: the orchestrator's default. The
   * comparison run always uses 0 (no limit).
   */
  maxActiveRuns: number | undefined;
  /** ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT for the fair run; undefined: the orchestrator's default. */
  maxActivePerTenant: number | undefined;
}

/** One mode's measurements (fair scheduling, or none). */
export interface TenantsModeResult {
  mode: string;
  /** ORCHESTRATOR_MAX_ACTIVE_RUNS as set ('default' when left to the orchestrator). */
  maxActiveRuns: string;
  /** ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT as set ('default' when left to the orchestrator). */
  maxActivePerTenant: string;
  unloadedP50Ms: number;
  unloadedP95Ms: number;
  loadedP50Ms: number;
  loadedP95Ms: number;
  /** Loaded p50 ÷ unloaded p50: the goal is ≤ 1.5. */
  ratio: number;
  /** The flooding tenant's completed runs per second while the quiet one was measured. */
  floodRunsPerSecond: number;
  floodP50Ms: number;
  /** Flood requests refused (429) or failed during the loaded phase. */
  floodRefused: number;
  floodFailed: number;
}

/** What one run of the benchmark measured. */
export interface TenantsBenchResult {
  machine: string;
  modes: TenantsModeResult[];
}

const TOKEN = 'bench-tenants-internal-token-0123456789';
const FLOOD_KEY = 'sk-bench-tenant-a-0123456789abcdef';
const STEADY_KEY = 'sk-bench-tenant-b-0123456789abcdef';
const QUESTION = 'Find the hotel rules in our documents.';
/** How long the flood runs before the quiet tenant is measured (the queue fills up). */
const RAMP_MS = 2000;
/** A refused or failed flood request waits this long before the next (no hot loop of 429s). */
const FLOOD_BACKOFF_MS = 100;

function chatBody(message: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: 'bench-model',
      stream: true,
      messages: [{ role: 'user', content: message }],
    }),
  );
}

function describeMachine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** The fleet one mode measures: a scripted agent, the planner, the orchestrator, the gateway. */
async function startFleet(
  options: TenantsBenchOptions,
  limits: Record<string, string>,
  stoppers: (() => Promise<unknown>)[],
): Promise<string> {
  const { root } = options;
  const shared = { FLEET_INTERNAL_TOKEN: TOKEN, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
  const { orchestrator } = await startDocsAgentStack({
    root,
    token: TOKEN,
    agentLatencyMs: options.agentLatencyMs,
    // Offline: the planner plans with its heuristic, the orchestrator composes from the results.
    env: shared,
    orchestratorEnv: limits,
    stoppers,
  });
  const gateway = await startService({
    root,
    name: 'gateway',
    env: {
      ...shared,
      GATEWAY_API_KEYS: `${FLOOD_KEY}:tenantA,${STEADY_KEY}:tenantB`,
      // What is measured is the orchestrator's admission; the gateway's tenant limits (runs, rate)
      // would refuse most of the flood before it (docs/limits.md).
      GATEWAY_LIMITS: process.env['GATEWAY_LIMITS'] ?? 'false',
      ORCHESTRATOR_URL: orchestrator.url,
    },
  });
  stoppers.push(() => gateway.stop());
  return `${gateway.url}/v1/chat/completions`;
}

/** The flooding tenant: `concurrency` loops, each sending its next request when one ends. */
function startFlood(
  send: (key: string, agent: http.Agent) => Promise<StreamTimings>,
  concurrency: number,
): {
  stop(): Promise<void>;
  /** Completed runs (their total times), refusals and failures since `mark`. */
  since(mark: number): { completed: number[]; refused: number; failed: number };
} {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const log: { at: number; ms: number; outcome: 'ok' | 'refused' | 'failed' }[] = [];
  let stopping = false;
  const loop = async (): Promise<void> => {
    while (!stopping) {
      const timings = await send(FLOOD_KEY, agent);
      const outcome = timings.ok
        ? 'ok'
        : /status 429/.test(timings.error ?? '')
          ? 'refused'
          : 'failed';
      log.push({ at: performance.now(), ms: timings.totalMs, outcome });
      if (outcome !== 'ok') await new Promise((resolve) => setTimeout(resolve, FLOOD_BACKOFF_MS));
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      agent.destroy();
    },
    since(mark) {
      const window = log.filter((entry) => entry.at >= mark);
      return {
        completed: window.filter((entry) => entry.outcome === 'ok').map((entry) => entry.ms),
        refused: window.filter((entry) => entry.outcome === 'refused').length,
        failed: window.filter((entry) => entry.outcome === 'failed').length,
      };
    },
  };
}

/** The quiet tenant: `count` requests one after the other; their total times. */
async function steady(
  send: (key: string, agent: http.Agent) => Promise<StreamTimings>,
  { count, label }: { count: number; label: string },
): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const progress = createProgress({ label, total: count });
  const samples: number[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const timings = await send(STEADY_KEY, agent);
      if (!timings.ok)
        throw new Error(`the quiet tenant's request failed: ${timings.error ?? '?'}`);
      samples.push(timings.totalMs);
      progress.tick();
    }
  } finally {
    progress.done();
    agent.destroy();
  }
  return samples;
}

/** One mode: the fleet started with `maxActiveRuns`, the quiet tenant alone, then beside the flood. */
async function runMode(
  options: TenantsBenchOptions,
  { mode, limits }: { mode: string; limits: Record<string, string> },
): Promise<TenantsModeResult> {
  const stoppers: (() => Promise<unknown>)[] = [];
  try {
    const url = await startFleet(options, limits, stoppers);
    let counter = 0;
    const send = (key: string, agent: http.Agent): Promise<StreamTimings> =>
      timeStreamedCompletion({
        agent,
        url,
        headers: { authorization: `Bearer ${key}`, 'x-routing-mode': 'orchestration' },
        body: chatBody(`${QUESTION} (${(counter += 1)})`),
      });
    // Warm-up: JIT, connection pools, agent card discovery.
    await steady(send, { count: 5, label: `${mode}: warm-up` });
    const unloaded = await steady(send, {
      count: options.steadyRequests,
      label: `${mode}: quiet tenant alone`,
    });
    const flood = startFlood(send, options.floodConcurrency);
    let loaded: number[];
    let floodWindow: ReturnType<typeof flood.since>;
    let seconds: number;
    try {
      await new Promise((resolve) => setTimeout(resolve, RAMP_MS));
      const mark = performance.now();
      loaded = await steady(send, {
        count: options.steadyRequests,
        label: `${mode}: quiet tenant beside ${options.floodConcurrency} concurrent of the other`,
      });
      seconds = (performance.now() - mark) / 1000;
      floodWindow = flood.since(mark);
    } finally {
      await flood.stop();
    }
    const unloadedP50Ms = median(unloaded);
    const loadedP50Ms = median(loaded);
    return {
      mode,
      maxActiveRuns: limits['ORCHESTRATOR_MAX_ACTIVE_RUNS'] ?? 'default',
      maxActivePerTenant: limits['ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT'] ?? 'default',
      unloadedP50Ms,
      unloadedP95Ms: percentile(unloaded, 0.95),
      loadedP50Ms,
      loadedP95Ms: percentile(loaded, 0.95),
      ratio: loadedP50Ms / unloadedP50Ms,
      floodRunsPerSecond: floodWindow.completed.length / seconds,
      floodP50Ms: median(floodWindow.completed),
      floodRefused: floodWindow.refused,
      floodFailed: floodWindow.failed,
    };
  } finally {
    for (const stop of stoppers.reverse()) await stop();
  }
}

/**
 * `pnpm bench tenants`: two tenants through the real gateway, orchestrator and planner and a
 * scripted agent (every process on this machine, offline). Tenant B asks one question at a
 * time, alone and then while tenant A keeps `floodConcurrency` questions in flight; measured
 * with fair scheduling (ORCHESTRATOR_MAX_ACTIVE_RUNS) and without it (0), each on a fresh fleet.
 */
export async function runTenantsBench(options: TenantsBenchOptions): Promise<TenantsBenchResult> {
  const fair: Record<string, string> = {};
  if (options.maxActiveRuns !== undefined) {
    fair['ORCHESTRATOR_MAX_ACTIVE_RUNS'] = String(options.maxActiveRuns);
  }
  if (options.maxActivePerTenant !== undefined) {
    fair['ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT'] = String(options.maxActivePerTenant);
  }
  const modes = [
    { mode: 'fair scheduling', limits: fair },
    { mode: 'no limit', limits: { ORCHESTRATOR_MAX_ACTIVE_RUNS: '0' } },
  ];
  const results: TenantsModeResult[] = [];
  for (const mode of modes) results.push(await runMode(options, mode));
  return { machine: describeMachine(), modes: results };
}

/** Renders a result as the Markdown that goes into docs/benchmarks.md. */
export function formatTenantsBench(
  result: TenantsBenchResult,
  options: TenantsBenchOptions,
): string {
  const lines = [
    `Machine: ${result.machine}`,
    `Settings: tenant B sends ${options.steadyRequests} streamed questions one at a time, alone and then while tenant A keeps ${options.floodConcurrency} in flight; one scripted agent (${options.agentLatencyMs} ms per task), heuristic planner, offline composer`,
    '',
    '| mode | max active runs (per tenant) | B alone p50 | p95 | B beside the flood p50 | p95 | ÷ alone (p50) | A runs/s | A p50 | A refused | A failed |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of result.modes) {
    lines.push(
      `| ${row.mode} | ${row.maxActiveRuns} (${row.maxActivePerTenant}) | ${formatMs(row.unloadedP50Ms)} | ${formatMs(row.unloadedP95Ms)} | ${formatMs(row.loadedP50Ms)} | ${formatMs(row.loadedP95Ms)} | ${row.ratio.toFixed(2)}× | ${row.floodRunsPerSecond.toFixed(1)} | ${formatMs(row.floodP50Ms)} | ${row.floodRefused} | ${row.floodFailed} |`,
    );
  }
  lines.push('');
  const fair = result.modes[0];
  if (fair !== undefined) {
    lines.push(
      `- Goal: the quiet tenant's p50 beside the flood within 1.5× of its p50 alone: ${fair.ratio.toFixed(2)}× (${fair.ratio <= 1.5 ? 'met' : 'NOT met'})`,
    );
  }
  lines.push('Times are whole streamed answers (request to `[DONE]`), through the gateway.');
  return lines.join('\n');
}
