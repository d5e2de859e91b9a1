import os from 'node:os';
import path from 'node:path';
import {
  createMessage,
  criticalPath,
  dataPart,
  textPart,
  type Plan,
  type PlanNode,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import {
  startProcess,
  startRedisCluster,
  startService,
  type RunningProcess,
  type RunningService,
} from '@fleet/testing';
import { createProgress } from './progress';
import { formatMs, median } from './stats';

/** Options for {@link runOrchestrationBench}. */
export interface OrchestrationBenchOptions {
  root: string;
  /** Runs per DAG per scheduling mode. @default 10 */
  runs: number;
  /** Extra arguments for the orchestrators' `node`, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']`. */
  orchestratorNodeArgs?: readonly string[] | undefined;
  /**
   * Single-node runs against an agent that answers at once, per block of the fixed-cost section
   * (three blocks, after {@link FIXED_COST_WARMUP_RUNS} warm-up runs). @default 100
   */
  fixedCostRuns?: number | undefined;
  /** Only the fixed-cost section: one orchestrator, no DAG table (for profiles). @default false */
  fixedCostOnly?: boolean | undefined;
  /**
   * Another checkout of the repository, built (`services/orchestrator/dist`): its orchestrator
   * runs the fixed-cost section side by side with this one's, on its own Redis database, run
   * for run (e.g. the main branch, to see what a change does on a shared machine).
   */
  baselineRoot?: string | undefined;
  /** The Redis the baseline orchestrator uses (a database of its own). */
  baselineRedisUrl?: string | undefined;
  /**
   * Also runs the fixed-cost section on a Redis Cluster of three masters with a replica each
   * (redis-server processes the bench starts on loopback): a second orchestrator of this checkout
   * with `REDIS_CLUSTER_NODES`, run for run beside the one on the single Redis. @default false
   */
  redisCluster?: boolean | undefined;
}

/** Runs before the fixed-cost blocks: discovery, connection pools, JIT. */
export const FIXED_COST_WARMUP_RUNS = 300;

/** Runs in flight in the concurrent part of a fixed-cost block. */
const FIXED_COST_CONCURRENCY = 8;

/** Blocks of fixed-cost runs, each measured on its own, for the spread. */
const FIXED_COST_BLOCKS = 3;

/** The single-node plan of the fixed-cost section: one step on the agent that answers at once. */
const FIXED_COST_PLAN: Plan = {
  nodes: [node('only', 'a0')],
  rationale: 'benchmark',
  confidence: 1,
};

/** The scripted agents and their fixed latencies. */
const AGENT_LATENCIES: Record<string, number> = { a0: 0, a50: 50, a100: 100, a200: 200 };

const TOKEN = 'bench-internal-token-0123456789';

function node(id: string, agent: string, dependsOn: string[] = []): PlanNode {
  return { id, agent, task: `${id} (${agent})`, dependsOn };
}

function dag(nodes: PlanNode[]): Plan {
  return { nodes, rationale: 'benchmark', confidence: 1 };
}

/** The DAGs measured: shapes from the reference designs plus one that punishes stage barriers. */
export const BENCH_DAGS: Record<string, Plan> = {
  'single node': dag([node('only', 'a50')]),
  'chain of 5': dag([
    node('n1', 'a50'),
    node('n2', 'a50', ['n1']),
    node('n3', 'a50', ['n2']),
    node('n4', 'a50', ['n3']),
    node('n5', 'a50', ['n4']),
  ]),
  'fan-out of 16': dag(Array.from({ length: 16 }, (_, index) => node(`f${index + 1}`, 'a100'))),
  diamond: dag([
    node('start', 'a50'),
    node('left', 'a100', ['start']),
    node('right', 'a200', ['start']),
    node('join', 'a50', ['left', 'right']),
  ]),
  unbalanced: dag([
    node('long', 'a200'),
    node('s1', 'a50'),
    node('s2', 'a50', ['s1']),
    node('s3', 'a50', ['s2']),
    node('end', 'a50', ['long', 's3']),
  ]),
};

/** Nodes on the longest path: the hops a run cannot avoid. */
function hops(plan: Plan): number {
  return criticalPath(plan.nodes);
}

function criticalMs(plan: Plan): number {
  return criticalPath(plan.nodes, (each) => AGENT_LATENCIES[each.agent] ?? 0);
}

/** One DAG's measurements in one scheduling mode. */
export interface DagResult {
  dag: string;
  mode: 'dependency' | 'stages';
  /** With the agents' nominal latencies. */
  criticalPathMs: number;
  /** With each agent's measured direct-call time (what a hop to it really costs, minus orchestration). */
  calibratedCriticalPathMs: number;
  hops: number;
  runMs: number;
  /** Run ÷ nominal critical path. */
  ratio: number;
  /** (run − calibrated critical path) ÷ hops: the orchestrator's own cost per hop, fixed run costs included. */
  overheadPerHopMs: number;
  nodes: number;
  /** (run − calibrated critical path) ÷ nodes: what orchestration adds per agent call. */
  overheadPerNodeMs: number;
}

/** What calling each agent directly takes (median of streaming calls from this process). */
async function calibrate(agentUrls: Record<string, string>): Promise<Record<string, number>> {
  const measured: Record<string, number> = {};
  for (const [name, url] of Object.entries(agentUrls)) {
    const client = new A2AClient({ url: `${url}/a2a`, token: TOKEN });
    const samples: number[] = [];
    for (let index = 0; index < 15; index += 1) {
      const started = process.hrtime.bigint();
      for await (const _event of client.sendStreamingMessage({
        message: createMessage({ parts: 'calibrate' }),
      })) {
        // drain
      }
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    measured[name] = median(samples.slice(5));
  }
  return measured;
}

/** The process's CPU time so far (user + system, from its `/metrics`: `process.cpuUsage()`), in ms. */
async function cpuMs(service: RunningService): Promise<number> {
  const response = await fetch(`${service.url}/metrics`);
  const text = await response.text();
  let seconds = 0;
  let found = 0;
  for (const line of text.split('\n')) {
    const match = /^process_cpu_(?:user|system)_seconds_total(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (match === null) continue;
    seconds += Number(match[1]);
    found += 1;
  }
  if (found !== 2) throw new Error(`${service.name}'s /metrics has no process CPU counters`);
  return seconds * 1000;
}

/** One orchestrator's figures in one block of the fixed-cost section. */
export interface FixedCostBlock {
  runs: number;
  /** The orchestrator's CPU time (user + system) over its runs one after the other ÷ runs. */
  cpuPerRunMs: number;
  /** Median time of one run, sent to result, as the client sees it. */
  runP50Ms: number;
  /** Runs one after the other: runs ÷ their wall time (interleaved with the other build's, if any). */
  runsPerSecond: number;
  /** The same number of runs again, {@link FIXED_COST_CONCURRENCY} at a time: runs ÷ wall time. */
  concurrentRunsPerSecond: number;
  /** The orchestrator's CPU per run in the concurrent part. */
  concurrentCpuPerRunMs: number;
}

/** One orchestrator build measured in the fixed-cost section. */
export interface FixedCostBuild {
  /** `this checkout`, the baseline's directory, or this checkout on a Redis Cluster. */
  label: string;
  /** What the build is compared as. */
  kind: MeasuredKind;
  blocks: FixedCostBlock[];
}

/** The fixed cost of an orchestrated run: single-node runs against an agent that answers at once. */
export interface FixedCostResult {
  /** A direct streaming call to the same agent (median): what the run's one step costs anyway. */
  directCallMs: number;
  /** This checkout's orchestrator first, then the baseline's (when one was given). */
  builds: FixedCostBuild[];
}

/** This checkout on the single Redis, another checkout, or this checkout on a Redis Cluster. */
type MeasuredKind = 'current' | 'baseline' | 'cluster';

/** An orchestrator process and a client to it. */
interface MeasuredOrchestrator {
  label: string;
  kind: MeasuredKind;
  service: RunningService;
  client: A2AClient;
}

/**
 * Single-node runs against `a0` (it answers at once), in blocks: the orchestrator's CPU per run
 * (its `process.cpuUsage()`, read from `/metrics` before and after each part), the run's median
 * wall time and runs per second, one after the other and {@link FIXED_COST_CONCURRENCY} at a time.
 * With two orchestrators (this checkout and a baseline) their runs one after the other alternate
 * run by run, so both see the same machine; the concurrent parts follow each other.
 */
async function measureFixedCost(
  orchestrators: readonly MeasuredOrchestrator[],
  { runs, directCallMs }: { runs: number; directCallMs: number },
): Promise<FixedCostResult> {
  for (let run = 0; run < FIXED_COST_WARMUP_RUNS; run += 1) {
    for (const { client } of orchestrators) await runOnce(client, FIXED_COST_PLAN);
  }
  const progress = createProgress({
    label: 'fixed-cost runs',
    total: runs * FIXED_COST_BLOCKS * 2 * orchestrators.length,
  });
  const builds: FixedCostBuild[] = orchestrators.map(({ label, kind }) => ({
    label,
    kind,
    blocks: [],
  }));
  for (let block = 0; block < FIXED_COST_BLOCKS; block += 1) {
    const times = orchestrators.map((): number[] => []);
    const wall = orchestrators.map(() => 0);
    const cpuBefore = await Promise.all(orchestrators.map(({ service }) => cpuMs(service)));
    for (let run = 0; run < runs; run += 1) {
      // The order alternates, so neither build always runs right after the other.
      const order = orchestrators.map((_each, index) => index);
      if (run % 2 === 1) order.reverse();
      for (const index of order) {
        const elapsed = await runOnce(orchestrators[index]?.client as A2AClient, FIXED_COST_PLAN);
        times[index]?.push(elapsed);
        wall[index] = (wall[index] ?? 0) + elapsed;
        progress.tick();
      }
    }
    const cpuAfter = await Promise.all(orchestrators.map(({ service }) => cpuMs(service)));
    for (const [index, { client, service }] of orchestrators.entries()) {
      let left = runs;
      const concurrentStarted = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: FIXED_COST_CONCURRENCY }, async () => {
          while (left > 0) {
            left -= 1;
            await runOnce(client, FIXED_COST_PLAN);
            progress.tick();
          }
        }),
      );
      const concurrentMs = Number(process.hrtime.bigint() - concurrentStarted) / 1e6;
      const cpuConcurrent = await cpuMs(service);
      builds[index]?.blocks.push({
        runs,
        cpuPerRunMs: ((cpuAfter[index] ?? 0) - (cpuBefore[index] ?? 0)) / runs,
        runP50Ms: median(times[index] ?? []),
        runsPerSecond: (runs * 1000) / (wall[index] ?? Number.NaN),
        concurrentRunsPerSecond: (runs * 1000) / concurrentMs,
        concurrentCpuPerRunMs: (cpuConcurrent - (cpuAfter[index] ?? 0)) / runs,
      });
    }
  }
  progress.done();
  return { directCallMs, builds };
}

async function runOnce(client: A2AClient, plan: Plan): Promise<number> {
  const message = createMessage({
    parts: [textPart('benchmark run'), dataPart({ fleet: { tenant: 'bench', history: [], plan } })],
  });
  const started = process.hrtime.bigint();
  let state: string | undefined;
  for await (const event of client.sendStreamingMessage({ message })) {
    if ('statusUpdate' in event) state = event.statusUpdate.status.state;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (state !== 'TASK_STATE_COMPLETED') throw new Error(`run ended ${state ?? 'without a state'}`);
  return elapsed;
}

/** A process the benchmark started and stops at the end. */
interface Stoppable {
  stop(): Promise<unknown>;
}

/** The scripted agents' URLs, in {@link AGENT_LATENCIES} order and by name. */
interface ScriptedAgents {
  urls: string[];
  urlsByName: Record<string, string>;
}

/** Starts one scripted agent per entry of {@link AGENT_LATENCIES}, each with its latency. */
async function startScriptedAgents(root: string, processes: Stoppable[]): Promise<ScriptedAgents> {
  const agents: ScriptedAgents = { urls: [], urlsByName: {} };
  for (const [name, latency] of Object.entries(AGENT_LATENCIES)) {
    const agent: RunningProcess = await startProcess({
      name,
      args: [
        path.join(root, 'packages/testing/dist/bin/scripted-agent.js'),
        '--name',
        name,
        '--latency-ms',
        String(latency),
        '--token',
        TOKEN,
      ],
      readyLine: /READY (\S+)/,
    });
    processes.push(agent);
    agents.urls.push(agent.match?.[1] ?? '');
    agents.urlsByName[name] = agent.match?.[1] ?? '';
  }
  return agents;
}

/** Starts an orchestrator of a checkout with the given scheduling (and Redis settings). */
type OrchestratorStarter = (
  scheduling: 'dependency' | 'stages',
  settings?: { from?: string; redisEnv?: Record<string, string> },
) => Promise<RunningService>;

/** The orchestrators the fixed-cost section measures: this checkout's, and the baseline's. */
async function startMeasuredOrchestrators(
  options: OrchestrationBenchOptions,
  {
    startOrchestrator,
    processes,
  }: { startOrchestrator: OrchestratorStarter; processes: Stoppable[] },
): Promise<MeasuredOrchestrator[]> {
  const dependency = await startOrchestrator('dependency');
  processes.push(dependency);
  const measuredOrchestrators: MeasuredOrchestrator[] = [
    {
      label: options.redisCluster === true ? 'this checkout, single Redis' : 'this checkout',
      kind: 'current',
      service: dependency,
      client: new A2AClient({ url: `${dependency.url}/a2a`, token: TOKEN }),
    },
  ];
  if (options.baselineRoot !== undefined) {
    const baseline = await startOrchestrator('dependency', {
      from: options.baselineRoot,
      ...(options.baselineRedisUrl === undefined
        ? {}
        : { redisEnv: { REDIS_URL: options.baselineRedisUrl } }),
    });
    processes.push(baseline);
    measuredOrchestrators.push({
      label: options.baselineRoot,
      kind: 'baseline',
      service: baseline,
      client: new A2AClient({ url: `${baseline.url}/a2a`, token: TOKEN }),
    });
  }
  if (options.redisCluster === true) {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    processes.push(cluster);
    const onCluster = await startOrchestrator('dependency', {
      redisEnv: { REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
    });
    processes.push(onCluster);
    measuredOrchestrators.push({
      label: 'this checkout, Redis Cluster (3 masters + 3 replicas)',
      kind: 'cluster',
      service: onCluster,
      client: new A2AClient({ url: `${onCluster.url}/a2a`, token: TOKEN }),
    });
  }
  return measuredOrchestrators;
}

/** The orchestrator's client for each scheduling mode. */
type ModeClients = Record<'dependency' | 'stages', A2AClient>;

/** One DAG's results for both modes, from the run times measured for each. */
function dagResults(
  name: string,
  plan: Plan,
  {
    times,
    measured,
  }: { times: Record<keyof ModeClients, number[]>; measured: Record<string, number> },
): DagResult[] {
  return (['dependency', 'stages'] as const).map((mode) => {
    const runMs = median(times[mode]);
    const critical = criticalMs(plan);
    const calibrated = criticalPath(plan.nodes, (each) => measured[each.agent] ?? 0);
    return {
      dag: name,
      mode,
      criticalPathMs: critical,
      calibratedCriticalPathMs: calibrated,
      hops: hops(plan),
      runMs,
      ratio: runMs / critical,
      overheadPerHopMs: (runMs - calibrated) / hops(plan),
      nodes: plan.nodes.length,
      overheadPerNodeMs: (runMs - calibrated) / plan.nodes.length,
    };
  });
}

/** Runs every DAG `runs` times in each mode, interleaved, and compares with its critical path. */
async function measureDags(
  modeClients: ModeClients,
  { runs, measured }: { runs: number; measured: Record<string, number> },
): Promise<DagResult[]> {
  const results: DagResult[] = [];
  const progress = createProgress({
    label: 'orchestration runs',
    total: Object.keys(BENCH_DAGS).length * runs * 2,
  });
  for (const [name, plan] of Object.entries(BENCH_DAGS)) {
    const times = { dependency: [] as number[], stages: [] as number[] };
    for (let run = 0; run < runs; run += 1) {
      // Interleaved, the order alternating, so drift hits both modes alike.
      const order =
        run % 2 === 0 ? (['dependency', 'stages'] as const) : (['stages', 'dependency'] as const);
      for (const mode of order) {
        times[mode].push(await runOnce(modeClients[mode], plan));
        progress.tick();
      }
    }
    results.push(...dagResults(name, plan, { times, measured }));
  }
  progress.done();
  return results;
}

/**
 * `pnpm bench orchestration`: for DAGs of scripted agents with known latencies, the run's time
 * against its critical path, under the orchestrator's dependency-driven scheduling and under
 * stage-by-stage execution, every process on this machine, measured in one run.
 */
export async function runOrchestrationBench(
  options: OrchestrationBenchOptions,
): Promise<OrchestrationBenchOutcome> {
  const { root, runs } = options;
  const processes: Stoppable[] = [];
  try {
    const agents = await startScriptedAgents(root, processes);
    const shared = { FLEET_INTERNAL_TOKEN: TOKEN, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
    const planner = await startService({ root, name: 'planner', env: shared });
    processes.push(planner);
    const startOrchestrator: OrchestratorStarter = (scheduling, { from = root, redisEnv } = {}) =>
      startService({
        root: from,
        name: 'orchestrator',
        nodeArgs: options.orchestratorNodeArgs,
        env: {
          ...shared,
          PLANNER_URL: planner.url,
          AGENT_URLS: agents.urls.join(','),
          ORCHESTRATOR_SCHEDULING: scheduling,
          ...redisEnv,
        },
      });
    const measuredOrchestrators = await startMeasuredOrchestrators(options, {
      startOrchestrator,
      processes,
    });
    const fixedCostOf = (measured: Record<string, number>): Promise<FixedCostResult> =>
      measureFixedCost(measuredOrchestrators, {
        runs: options.fixedCostRuns ?? 100,
        directCallMs: measured['a0'] ?? Number.NaN,
      });
    if (options.fixedCostOnly === true) {
      const measured = await calibrate(agents.urlsByName);
      const fixedCost = await fixedCostOf(measured);
      return { calibration: measured, machine: machine(), results: [], fixedCost };
    }
    const stages = await startOrchestrator('stages');
    processes.push(stages);
    const modeClients: ModeClients = {
      dependency: measuredOrchestrators[0]?.client as A2AClient,
      stages: new A2AClient({ url: `${stages.url}/a2a`, token: TOKEN }),
    };

    // Warm-up: discovery, connection pools, JIT.
    for (const plan of Object.values(BENCH_DAGS)) {
      await runOnce(modeClients.dependency, plan);
      await runOnce(modeClients.stages, plan);
    }

    const measured = await calibrate(agents.urlsByName);
    const fixedCost = await fixedCostOf(measured);
    const results = await measureDags(modeClients, { runs, measured });
    return { calibration: measured, machine: machine(), results, fixedCost };
  } finally {
    for (const running of processes.reverse()) await running.stop();
  }
}

/** The machine, as the results name it. */
function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}, load average ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`;
}

/** What one run of the benchmark measured. */
export interface OrchestrationBenchOutcome {
  machine: string;
  /** Median direct streaming-call time per agent, in ms. */
  calibration: Record<string, number>;
  /** The DAG table; empty with `fixedCostOnly`. */
  results: DagResult[];
  fixedCost: FixedCostResult;
}

/** Renders the results as Markdown for docs/benchmarks.md. */
export function formatOrchestrationBench(
  outcome: OrchestrationBenchOutcome,
  options: OrchestrationBenchOptions,
): string {
  const calibration = Object.entries(outcome.calibration)
    .map(([name, ms]) => `${name} ${formatMs(ms)}`)
    .join(', ');
  const lines = [
    `Machine: ${outcome.machine}`,
    `A direct A2A call to each agent, measured in this run: ${calibration}`,
    '',
    ...formatFixedCost(outcome.fixedCost),
  ];
  if (outcome.results.length === 0) return lines.join('\n');
  lines.push(
    '',
    `DAG runs: ${options.runs} runs per DAG per mode (median); agents a50/a100/a200 sleep 50/100/200 ms.`,
    '',
    '| DAG | scheduling | nodes | hops | critical path (nominal / measured calls) | run (p50) | run ÷ critical path | overhead per hop | overhead per node |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const row of outcome.results) {
    lines.push(
      `| ${row.dag} | ${row.mode} | ${row.nodes} | ${row.hops} | ${formatMs(row.criticalPathMs)} / ${formatMs(row.calibratedCriticalPathMs)} | ${formatMs(row.runMs)} | ${row.ratio.toFixed(3)} | ${formatMs(row.overheadPerHopMs)} | ${formatMs(row.overheadPerNodeMs)} |`,
    );
  }
  const dependency = outcome.results.filter((row) => row.mode === 'dependency');
  const chain = dependency.find((row) => row.dag === 'chain of 5');
  const worstPerNode = Math.max(...dependency.map((row) => row.overheadPerNodeMs));
  lines.push('');
  lines.push(
    `Overhead per hop, chain of 5 (dependency scheduling): ${formatMs(chain?.overheadPerHopMs ?? Number.NaN)} (goal ≤ 3 ms: ${(chain?.overheadPerHopMs ?? Infinity) <= 3 ? 'met' : 'NOT met'})`,
  );
  lines.push(
    `Worst overhead per node over all DAGs (dependency scheduling): ${formatMs(worstPerNode)}`,
  );
  lines.push(
    "Overhead = run time minus the critical path of measured direct agent calls (the agents' own time and one A2A call each), so it is what orchestration adds: session, scheduling, progress, composing, the call to the orchestrator.",
  );
  return lines.join('\n');
}

/** Redis Cluster ÷ single Redis, block by block: CPU, run time and throughput. */
function compareCluster(single: FixedCostBuild, cluster: FixedCostBuild): string[] {
  const ratio = (pick: (block: FixedCostBlock) => number): string => {
    const ratios = cluster.blocks.map(
      (block, index) => pick(block) / pick(single.blocks[index] ?? block),
    );
    return `${ratios.map((each) => each.toFixed(3)).join(', ')} (median ${median(ratios).toFixed(3)})`;
  };
  return [
    '',
    `Redis Cluster ÷ single Redis, per block: orchestrator CPU per run ${ratio((block) => block.cpuPerRunMs)}; run p50 ${ratio((block) => block.runP50Ms)}; runs/s one at a time ${ratio((block) => block.runsPerSecond)}; runs/s ${FIXED_COST_CONCURRENCY} at a time ${ratio((block) => block.concurrentRunsPerSecond)}.`,
  ];
}

/** The goal for the orchestrator's own CPU per single-node run. */
export const FIXED_COST_GOAL_MS = 5;

function formatFixedCost(fixedCost: FixedCostResult): string[] {
  const current = fixedCost.builds.find((build) => build.kind === 'current');
  const baseline = fixedCost.builds.find((build) => build.kind === 'baseline');
  const cluster = fixedCost.builds.find((build) => build.kind === 'cluster');
  const runs = current?.blocks[0]?.runs ?? 0;
  const lines = [
    `Fixed cost per run: single-node runs against a0 (answers at once), ${FIXED_COST_WARMUP_RUNS} warm-up runs, then ${current?.blocks.length ?? 0} blocks of ${runs} runs one after the other${fixedCost.builds.length > 1 ? ' (alternating between the orchestrators, run by run)' : ''} and as many ${FIXED_COST_CONCURRENCY} at a time; orchestrator CPU = its process.cpuUsage() (user + system) over the part ÷ runs. A direct call to a0: ${formatMs(fixedCost.directCallMs)}.`,
    '',
    `| build | block | orchestrator CPU per run | run (p50) | runs/s (one at a time) | CPU per run, ${FIXED_COST_CONCURRENCY} at a time | runs/s, ${FIXED_COST_CONCURRENCY} at a time |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const build of fixedCost.builds) {
    build.blocks.forEach((block, index) => {
      lines.push(
        `| ${build.label} | ${index + 1} | ${formatMs(block.cpuPerRunMs)} | ${formatMs(block.runP50Ms)} | ${block.runsPerSecond.toFixed(1)} | ${formatMs(block.concurrentCpuPerRunMs)} | ${block.concurrentRunsPerSecond.toFixed(1)} |`,
      );
    });
  }
  lines.push('');
  for (const build of fixedCost.builds) {
    const cpu = build.blocks.map((block) => block.cpuPerRunMs);
    const worst = Math.max(...cpu);
    const verdict =
      worst <= FIXED_COST_GOAL_MS
        ? 'met'
        : median(cpu) <= FIXED_COST_GOAL_MS
          ? 'met by the median'
          : 'NOT met';
    lines.push(
      `Orchestrator CPU per single-node run, ${build.label}: ${formatMs(median(cpu))} median, ${formatMs(Math.min(...cpu))}–${formatMs(worst)} over the blocks (goal ≤ ${FIXED_COST_GOAL_MS} ms: ${verdict})`,
    );
  }
  if (current !== undefined && baseline !== undefined) {
    const ratios = current.blocks.map(
      (block, index) => block.cpuPerRunMs / (baseline.blocks[index]?.cpuPerRunMs ?? Number.NaN),
    );
    lines.push(
      `This checkout ÷ baseline, CPU per run one after the other: ${ratios.map((ratio) => ratio.toFixed(3)).join(', ')} (median ${median(ratios).toFixed(3)})`,
    );
  }
  if (current !== undefined && cluster !== undefined)
    lines.push(...compareCluster(current, cluster));
  return lines;
}
