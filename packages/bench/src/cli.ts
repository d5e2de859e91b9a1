/**
 * `pnpm bench <name>`: benchmarks that print ratios measured in one run.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatGatewayBench, runGatewayBench, type GatewayBenchOptions } from './gateway-bench';
import {
  formatOrchestrationBench,
  runOrchestrationBench,
  type OrchestrationBenchOptions,
} from './orchestration-bench';
import { HNSW_INDEX_OPTIONS } from '@fleet/rag-agent/store';
import { formatFilesBench, runFilesBench } from './files-bench';
import { formatMcpBench, runMcpBench } from './mcp-bench';
import { formatMcpServerBench, runMcpServerBench } from './mcp-server-bench';
import { formatRagBench, runRagBench, type RagBenchOptions } from './rag-bench';
import { formatTenantsBench, runTenantsBench, type TenantsBenchOptions } from './tenants-bench';
import { formatTtftBench, runTtftBench, type TtftBenchOptions } from './ttft-bench';

const HELP = `Usage: pnpm bench <benchmark> [options]

Benchmarks:
  gateway        Added latency of the gateway's passthrough (tenant limits on) vs straight to a
                 scripted upstream, and throughput and CPU per request under concurrent
                 streaming load vs a minimal Node reverse proxy, in one run; then the ttft
                 benchmark below (unless --skip-ttft).
  ttft           Time to first token through the gateway for passthrough, reasoning,
                 orchestration and auto (cached and uncached classifier decisions), side by side
                 with ratios to passthrough, everything behind one scripted model. Reasoning is
                 included when services/reasoning-agent is built and answers.
  orchestration  The fixed cost of a run (the orchestrator's CPU per single-node run against an
                 agent that answers at once, and runs/s), then the run time of DAGs of scripted
                 agents against their critical path, with the orchestrator's dependency
                 scheduling and with stage-by-stage execution.
  tenants        Fairness between tenants: one tenant's questions one at a time, alone and while
                 another tenant keeps 100 in flight, through the real gateway, orchestrator and
                 planner and a scripted agent; with fair scheduling and with no limit
                 (ORCHESTRATOR_MAX_ACTIVE_RUNS=0), each on a fresh fleet.
  rag            The RAG store: ingestion rate (hashed embeddings), hybrid and vector search
                 latency at 10k and 100k chunks, HNSW recall@10 against an exact scan, and the
                 HNSW speed-up. Embedded PGlite in a temporary directory, or the PostgreSQL
                 server in DATABASE_URL (in a scratch schema, dropped afterwards).
  mcp            One MCP tool call (server-everything's echo over stdio) straight from the
                 official SDK's client and the same call as an A2A task of the tools agent,
                 interleaved in one run: what the tools agent adds at p50 (goal ≤ 2 ms).
  mcp-server     The fleet as an MCP server: the search_documents tool at /mcp (the v2 SDK
                 client, connected once) against POST /v1/documents/search, the same query,
                 interleaved, one real gateway and RAG agent with the demo corpus: p50, p95 and
                 the ratio of the medians (goal ≤ 1.2×).
  files          A 1 MB PNG from the real code agent (bubblewrap) to the client: the same run
                 with and without writing it (what the file adds), and the stored PNG read
                 through the gateway's Files API against straight from PostgreSQL, interleaved.

Options (gateway):
  --rounds N        sequential rounds, each interleaving every target       (default 15)
  --per-round N     requests per target per round                           (default 60)
  --concurrency N   concurrent streaming clients in the load phase          (default 64)
  --load-seconds N  seconds per load phase                                  (default 4)
  --load-repeats N  load phases per target, interleaved                     (default 5)
  --chunks N        streamed deltas per answer                              (default 20)
  --quick           a short smoke run (3 rounds, 1 s phases; 3 orchestration runs; 5 ttft rounds)
  --skip-ttft       leave out the time-to-first-token section
  --limits on|off|both  the gateway's tenant limits (default on, with a request limit out of the
                    load's reach unless GATEWAY_LIMIT_RPM is set); both: a second gateway with
                    them off, side by side
  --tracing         the gateway traced, exporting OTLP/protobuf to a local sink the bench starts
                    (counts export requests and bytes), side by side with the same gateway with
                    the context entered for every request (GATEWAY_TRACE_CONTEXT=active) and
                    untraced: CPU per request of each
  --gateway-node-args "A B"  extra node arguments for the gateway process, space-separated
                    (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"; also BENCH_GATEWAY_NODE_ARGS)

Options (ttft, and the ttft section of gateway):
  --ttft-rounds N   interleaved rounds, one request per route each          (default 30)
  --upstream-latency-ms N  the scripted model's delay before its first byte (default 100)
  --chunk-delay-ms N       delay between its streamed deltas                (default 10)
  --agent-latency-ms N     the scripted document agent's time per task      (default 50)
  --chunks N        streamed deltas per answer                              (default 20)

Options (orchestration):
  --runs N          runs per DAG per scheduling mode                        (default 10)
  --fixed-cost-runs N  single-node runs per block of the fixed-cost section (three blocks,
                    against an agent that answers at once)                  (default 100)
  --fixed-cost-only only the fixed-cost section (one orchestrator, no DAG table)
  --baseline DIR    another built checkout (e.g. of main): its orchestrator runs the fixed-cost
                    section side by side with this one's, run for run, on Redis database 1 of the
                    same server (BENCH_BASELINE_REDIS_URL to choose another)
  --redis-cluster   also run the fixed-cost section on a Redis Cluster of 3 masters and 3
                    replicas (redis-server processes started on loopback), run for run beside
                    the single Redis: CPU, run time and runs/s, cluster ÷ single
  --orchestrator-node-args="A B"  extra node arguments for the orchestrator processes
                    (e.g. --orchestrator-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof";
                    also BENCH_ORCHESTRATOR_NODE_ARGS)

Options (tenants):
  --flood N         the flooding tenant's concurrent requests               (default 100)
  --steady N        the quiet tenant's requests per phase                   (default 20)
  --agent-latency-ms N  the scripted agent's time per task                  (default 100)
  --max-active-runs N   ORCHESTRATOR_MAX_ACTIVE_RUNS of the fair run   (default: the orchestrator's)
  --max-active-per-tenant N  ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT of the fair run (default: the orchestrator's)
  --quick           8 requests per phase, 50 concurrent

Options (rag):
  --sizes N,N       corpus sizes in child chunks                            (default 10000,100000)
  --queries N       queries per measurement                                 (default 100)
  --ef-search N,N   HNSW ef_search values to measure                        (default 40,120,200)
  --m N             HNSW m for the indexes the benchmark builds             (default: the agent's, 32)
  --ef-construction N  HNSW ef_construction for those indexes               (default: the agent's, 128)
  --database-url U  a PostgreSQL server with pgvector        (default: DATABASE_URL, else PGlite)
  --quick           10000 chunks only

Options (mcp):
  --rounds N        interleaved rounds, one call each way per round         (default 300)
  --quick           50 rounds
  --tools-agent-node-args="A B"  extra node arguments for the tools agent process
                    (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")

Options (mcp-server):
  --rounds N        interleaved rounds, one search each way per round       (default 300)
  --database-url U  a PostgreSQL server with pgvector (default: DATABASE_URL, else an embedded
                    PGlite the bench serves over the wire protocol)
  --quick           50 rounds

Options (files):
  --rounds N        interleaved rounds (two runs, then the reads)           (default 20)
  --reads N         reads each way per round                                (default 10)
  --database-url U  a PostgreSQL server with pgvector (default: DATABASE_URL, else an embedded
                    PGlite the bench serves over the wire protocol)
  --quick           5 rounds

Common:
  --json            print the raw result as JSON
  -h, --help        this help

Results go in docs/benchmarks.md with the machine and the command.`;

/** `--limits`: on (default), off or both. */
function limitsOption(value: string | undefined): 'on' | 'off' | 'both' {
  if (value === undefined || value === 'on' || value === 'off' || value === 'both') {
    return value ?? 'on';
  }
  throw new Error(`--limits expects on, off or both, got '${value}'`);
}

/** The same Redis server, database 1 (or 2 when the URL names database 1). */
function otherDatabase(redisUrl: string): string {
  const url = new URL(redisUrl);
  url.pathname = url.pathname === '/1' ? '/2' : '/1';
  return url.toString();
}

/** `"A B"` → `['A', 'B']`: extra node arguments, space-separated. */
function splitArgs(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter((arg) => arg !== '');
}

/** The command line's options, for every benchmark. */
const BENCH_OPTIONS = {
  rounds: { type: 'string' },
  'per-round': { type: 'string' },
  concurrency: { type: 'string' },
  'load-seconds': { type: 'string' },
  'load-repeats': { type: 'string' },
  chunks: { type: 'string' },
  'ttft-rounds': { type: 'string' },
  'upstream-latency-ms': { type: 'string' },
  'chunk-delay-ms': { type: 'string' },
  'agent-latency-ms': { type: 'string' },
  'skip-ttft': { type: 'boolean', default: false },
  tracing: { type: 'boolean', default: false },
  limits: { type: 'string' },
  'gateway-node-args': { type: 'string' },
  'orchestrator-node-args': { type: 'string' },
  'tools-agent-node-args': { type: 'string' },
  'fixed-cost-runs': { type: 'string' },
  'fixed-cost-only': { type: 'boolean', default: false },
  baseline: { type: 'string' },
  'redis-cluster': { type: 'boolean' },
  runs: { type: 'string' },
  flood: { type: 'string' },
  steady: { type: 'string' },
  'max-active-runs': { type: 'string' },
  'max-active-per-tenant': { type: 'string' },
  sizes: { type: 'string' },
  queries: { type: 'string' },
  'ef-search': { type: 'string' },
  m: { type: 'string' },
  'ef-construction': { type: 'string' },
  'database-url': { type: 'string' },
  reads: { type: 'string' },
  quick: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The parsed options of the command line. */
type BenchValues = ReturnType<
  typeof parseArgs<{ options: typeof BENCH_OPTIONS; allowPositionals: true }>
>['values'];

/** A positive number option, or the fallback when it is not given. */
function positiveNumber(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`expected a positive number, got '${value}'`);
  return parsed;
}

/** A comma-separated list of positive numbers (`10k` is 10000), or the fallback. */
function positiveNumbers(value: string | undefined, fallback: number[]): number[] {
  return value === undefined
    ? fallback
    : value.split(',').map((item) => positiveNumber(item.trim().replace(/k$/i, '000'), 0));
}

/** A positive number or 0, or the fallback when it is not given. */
function nonNegativeNumber(value: string | undefined, fallback: number): number {
  return value === '0' ? 0 : positiveNumber(value, fallback);
}

/** What a benchmark prints: its raw result as JSON with `--json`, else its table. */
function report(values: BenchValues, result: unknown, table: () => string): string {
  return values.json ? `${JSON.stringify(result, null, 2)}\n` : `\n${table()}\n`;
}

/** The checkout the benchmarks start services from. */
const ROOT = path.resolve(__dirname, '../../..');

function redisUrl(): string {
  return process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
}

function databaseUrl(values: BenchValues): string | undefined {
  return values['database-url'] ?? (process.env['DATABASE_URL'] || undefined);
}

async function filesBench(values: BenchValues): Promise<string> {
  const result = await runFilesBench({
    root: ROOT,
    rounds: positiveNumber(values.rounds, values.quick ? 5 : 20),
    readsPerRound: positiveNumber(values.reads, 10),
    databaseUrl: databaseUrl(values),
    redisUrl: redisUrl(),
  });
  return report(values, result, () => formatFilesBench(result));
}

async function mcpBench(values: BenchValues): Promise<string> {
  const result = await runMcpBench({
    root: ROOT,
    rounds: positiveNumber(values.rounds, values.quick ? 50 : 300),
    redisUrl: redisUrl(),
    toolsAgentNodeArgs: splitArgs(values['tools-agent-node-args']),
  });
  return report(values, result, () => formatMcpBench(result));
}

async function mcpServerBench(values: BenchValues): Promise<string> {
  const result = await runMcpServerBench({
    root: ROOT,
    rounds: positiveNumber(values.rounds, values.quick ? 50 : 300),
    redisUrl: redisUrl(),
    databaseUrl: databaseUrl(values),
  });
  return report(values, result, () => formatMcpServerBench(result));
}

async function ragBench(values: BenchValues): Promise<string> {
  const ragOptions: RagBenchOptions = {
    // The composition root of `pnpm bench`: the one place that reads the environment.
    databaseUrl: databaseUrl(values),
    sizes: positiveNumbers(values.sizes, values.quick ? [10_000] : [10_000, 100_000]),
    queries: positiveNumber(values.queries, 100),
    efSearch: positiveNumbers(values['ef-search'], [40, 120, 200]),
    m: positiveNumber(values.m, HNSW_INDEX_OPTIONS.m),
    efConstruction: positiveNumber(values['ef-construction'], HNSW_INDEX_OPTIONS.efConstruction),
    dimensions: 384,
    seed: 42,
  };
  const result = await runRagBench(ragOptions);
  return report(values, result, () => formatRagBench(result, ragOptions));
}

/** The time-to-first-token options (also read, and checked, by the benchmarks after it). */
function ttftOptionsOf(values: BenchValues): TtftBenchOptions {
  return {
    root: ROOT,
    rounds: positiveNumber(values['ttft-rounds'], values.quick ? 5 : 30),
    upstreamLatencyMs: nonNegativeNumber(values['upstream-latency-ms'], 100),
    chunkDelayMs: nonNegativeNumber(values['chunk-delay-ms'], 10),
    chunks: positiveNumber(values.chunks, 20),
    agentLatencyMs: nonNegativeNumber(values['agent-latency-ms'], 50),
  };
}

async function ttftBench(values: BenchValues): Promise<string> {
  const ttftOptions = ttftOptionsOf(values);
  const ttft = await runTtftBench(ttftOptions);
  return report(values, ttft, () => formatTtftBench(ttft, ttftOptions));
}

async function tenantsBench(values: BenchValues): Promise<string> {
  // The time-to-first-token options are checked for every benchmark of a fleet.
  ttftOptionsOf(values);
  const tenantsOptions: TenantsBenchOptions = {
    root: ROOT,
    floodConcurrency: positiveNumber(values.flood, values.quick ? 50 : 100),
    steadyRequests: positiveNumber(values.steady, values.quick ? 8 : 20),
    agentLatencyMs: nonNegativeNumber(values['agent-latency-ms'], 100),
    maxActiveRuns:
      values['max-active-runs'] === undefined
        ? undefined
        : nonNegativeNumber(values['max-active-runs'], 0),
    maxActivePerTenant:
      values['max-active-per-tenant'] === undefined
        ? undefined
        : nonNegativeNumber(values['max-active-per-tenant'], 0),
  };
  const tenants = await runTenantsBench(tenantsOptions);
  return report(values, tenants, () => formatTenantsBench(tenants, tenantsOptions));
}

async function orchestrationBench(values: BenchValues): Promise<string> {
  // The time-to-first-token options are checked for every benchmark of a fleet.
  ttftOptionsOf(values);
  const orchestrationOptions: OrchestrationBenchOptions = {
    root: ROOT,
    runs: positiveNumber(values.runs, values.quick ? 3 : 10),
    fixedCostRuns: positiveNumber(values['fixed-cost-runs'], values.quick ? 20 : 100),
    fixedCostOnly: values['fixed-cost-only'],
    baselineRoot: values.baseline === undefined ? undefined : path.resolve(values.baseline),
    baselineRedisUrl:
      values.baseline === undefined
        ? undefined
        : (process.env['BENCH_BASELINE_REDIS_URL'] ?? otherDatabase(redisUrl())),
    redisCluster: values['redis-cluster'],
    orchestratorNodeArgs: splitArgs(
      values['orchestrator-node-args'] ?? process.env['BENCH_ORCHESTRATOR_NODE_ARGS'],
    ),
  };
  const outcome = await runOrchestrationBench(orchestrationOptions);
  return report(values, outcome, () => formatOrchestrationBench(outcome, orchestrationOptions));
}

async function gatewayBench(values: BenchValues): Promise<string> {
  const ttftOptions = ttftOptionsOf(values);
  const options: GatewayBenchOptions = {
    root: ROOT,
    rounds: positiveNumber(values.rounds, values.quick ? 3 : 15),
    perRound: positiveNumber(values['per-round'], values.quick ? 20 : 60),
    concurrency: positiveNumber(values.concurrency, 64),
    loadSeconds: positiveNumber(values['load-seconds'], values.quick ? 1 : 4),
    loadRepeats: positiveNumber(values['load-repeats'], values.quick ? 1 : 5),
    chunks: positiveNumber(values.chunks, 20),
    tracing: values.tracing,
    limits: limitsOption(values.limits),
    gatewayNodeArgs: splitArgs(
      values['gateway-node-args'] ?? process.env['BENCH_GATEWAY_NODE_ARGS'],
    ),
  };
  const result = await runGatewayBench(options);
  const ttft = values['skip-ttft'] ? undefined : await runTtftBench(ttftOptions);
  const sections = [formatGatewayBench(result, options)];
  if (ttft !== undefined)
    sections.push(`Time to first token\n\n${formatTtftBench(ttft, ttftOptions)}`);
  return report(values, ttft === undefined ? result : { ...result, ttft }, () =>
    sections.join('\n\n'),
  );
}

/** Each benchmark by name: runs it and resolves to what it prints. */
const BENCHMARKS: Record<string, (values: BenchValues) => Promise<string>> = {
  files: filesBench,
  gateway: gatewayBench,
  mcp: mcpBench,
  'mcp-server': mcpServerBench,
  orchestration: orchestrationBench,
  rag: ragBench,
  tenants: tenantsBench,
  ttft: ttftBench,
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: BENCH_OPTIONS });
  const [benchmark] = positionals;
  if (values.help || benchmark === undefined) {
    process.stdout.write(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const runBenchmark = Object.hasOwn(BENCHMARKS, benchmark) ? BENCHMARKS[benchmark] : undefined;
  if (runBenchmark === undefined) {
    process.stderr.write(`Unknown benchmark '${benchmark}'.\n\n${HELP}\n`);
    return 2;
  }
  process.stdout.write(await runBenchmark(values));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
