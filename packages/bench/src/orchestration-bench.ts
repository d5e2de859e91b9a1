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
}

/** The scripted agents and their fixed latencies. */
const AGENT_LATENCIES: Record<string, number> = { a50: 50, a100: 100, a200: 200 };

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

/**
 * `pnpm bench orchestration`: for DAGs of scripted agents with known latencies, the run's time
 * against its critical path, under the orchestrator's dependency-driven scheduling and under
 * stage-by-stage execution, every process on this machine, measured in one run.
 */
export async function runOrchestrationBench(
  options: OrchestrationBenchOptions,
): Promise<OrchestrationBenchOutcome> {
  const { root, runs } = options;
  const processes: { stop(): Promise<unknown> }[] = [];
  try {
    const agentUrls: string[] = [];
    const agentUrlsByName: Record<string, string> = {};
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
      agentUrls.push(agent.match?.[1] ?? '');
      agentUrlsByName[name] = agent.match?.[1] ?? '';
    }
    const shared = { FLEET_INTERNAL_TOKEN: TOKEN, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
    const planner = await startService({ root, name: 'planner', env: shared });
    processes.push(planner);
    const orchestrators: Record<'dependency' | 'stages', RunningService> = {
      dependency: await startService({
        root,
        name: 'orchestrator',
        nodeArgs: options.orchestratorNodeArgs,
        env: {
          ...shared,
          PLANNER_URL: planner.url,
          AGENT_URLS: agentUrls.join(','),
          ORCHESTRATOR_SCHEDULING: 'dependency',
        },
      }),
      stages: await startService({
        root,
        name: 'orchestrator',
        nodeArgs: options.orchestratorNodeArgs,
        env: {
          ...shared,
          PLANNER_URL: planner.url,
          AGENT_URLS: agentUrls.join(','),
          ORCHESTRATOR_SCHEDULING: 'stages',
        },
      }),
    };
    processes.push(orchestrators.dependency, orchestrators.stages);
    const clients = {
      dependency: new A2AClient({ url: `${orchestrators.dependency.url}/a2a`, token: TOKEN }),
      stages: new A2AClient({ url: `${orchestrators.stages.url}/a2a`, token: TOKEN }),
    };

    // Warm-up: discovery, connection pools, JIT.
    for (const plan of Object.values(BENCH_DAGS)) {
      await runOnce(clients.dependency, plan);
      await runOnce(clients.stages, plan);
    }

    const measured = await calibrate(agentUrlsByName);
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
          times[mode].push(await runOnce(clients[mode], plan));
          progress.tick();
        }
      }
      for (const mode of ['dependency', 'stages'] as const) {
        const runMs = median(times[mode]);
        const critical = criticalMs(plan);
        const calibrated = criticalPath(plan.nodes, (each) => measured[each.agent] ?? 0);
        results.push({
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
        });
      }
    }
    progress.done();
    const cpus = os.cpus();
    return {
      calibration: measured,
      machine: `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
      results,
    };
  } finally {
    for (const running of processes.reverse()) await running.stop();
  }
}

/** What one run of the benchmark measured. */
export interface OrchestrationBenchOutcome {
  machine: string;
  /** Median direct streaming-call time per agent, in ms. */
  calibration: Record<string, number>;
  results: DagResult[];
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
    `Settings: ${options.runs} runs per DAG per mode (median); agents a50/a100/a200 sleep 50/100/200 ms; a direct A2A call to each, measured in this run: ${calibration}`,
    '',
    '| DAG | scheduling | nodes | hops | critical path (nominal / measured calls) | run (p50) | run ÷ critical path | overhead per hop | overhead per node |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
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
