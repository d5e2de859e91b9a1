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

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
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
    },
  });
  const [benchmark] = positionals;
  if (values.help || benchmark === undefined) {
    process.stdout.write(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const benchmarks = [
    'files',
    'gateway',
    'mcp',
    'mcp-server',
    'orchestration',
    'rag',
    'tenants',
    'ttft',
  ];
  if (!benchmarks.includes(benchmark)) {
    process.stderr.write(`Unknown benchmark '${benchmark}'.\n\n${HELP}\n`);
    return 2;
  }
  const number = (value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0)
      throw new Error(`expected a positive number, got '${value}'`);
    return parsed;
  };
  const numbers = (value: string | undefined, fallback: number[]): number[] =>
    value === undefined
      ? fallback
      : value.split(',').map((item) => number(item.trim().replace(/k$/i, '000'), 0));
  if (benchmark === 'files') {
    const result = await runFilesBench({
      root: path.resolve(__dirname, '../../..'),
      rounds: number(values.rounds, values.quick ? 5 : 20),
      readsPerRound: number(values.reads, 10),
      databaseUrl: values['database-url'] ?? (process.env['DATABASE_URL'] || undefined),
      redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    });
    process.stdout.write(
      values.json ? `${JSON.stringify(result, null, 2)}\n` : `\n${formatFilesBench(result)}\n`,
    );
    return 0;
  }
  if (benchmark === 'mcp') {
    const result = await runMcpBench({
      root: path.resolve(__dirname, '../../..'),
      rounds: number(values.rounds, values.quick ? 50 : 300),
      redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      toolsAgentNodeArgs: splitArgs(values['tools-agent-node-args']),
    });
    process.stdout.write(
      values.json ? `${JSON.stringify(result, null, 2)}\n` : `\n${formatMcpBench(result)}\n`,
    );
    return 0;
  }
  if (benchmark === 'mcp-server') {
    const result = await runMcpServerBench({
      root: path.resolve(__dirname, '../../..'),
      rounds: number(values.rounds, values.quick ? 50 : 300),
      redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      databaseUrl: values['database-url'] ?? (process.env['DATABASE_URL'] || undefined),
    });
    process.stdout.write(
      values.json ? `${JSON.stringify(result, null, 2)}\n` : `\n${formatMcpServerBench(result)}\n`,
    );
    return 0;
  }
  if (benchmark === 'rag') {
    const ragOptions: RagBenchOptions = {
      // The composition root of `pnpm bench`: the one place that reads the environment.
      databaseUrl: values['database-url'] ?? (process.env['DATABASE_URL'] || undefined),
      sizes: numbers(values.sizes, values.quick ? [10_000] : [10_000, 100_000]),
      queries: number(values.queries, 100),
      efSearch: numbers(values['ef-search'], [40, 120, 200]),
      m: number(values.m, HNSW_INDEX_OPTIONS.m),
      efConstruction: number(values['ef-construction'], HNSW_INDEX_OPTIONS.efConstruction),
      dimensions: 384,
      seed: 42,
    };
    const result = await runRagBench(ragOptions);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(result, null, 2)}\n`
        : `\n${formatRagBench(result, ragOptions)}\n`,
    );
    return 0;
  }
  const root = path.resolve(__dirname, '../../..');
  const nonNegative = (value: string | undefined, fallback: number): number =>
    value === '0' ? 0 : number(value, fallback);
  const ttftOptions: TtftBenchOptions = {
    root,
    rounds: number(values['ttft-rounds'], values.quick ? 5 : 30),
    upstreamLatencyMs: nonNegative(values['upstream-latency-ms'], 100),
    chunkDelayMs: nonNegative(values['chunk-delay-ms'], 10),
    chunks: number(values.chunks, 20),
    agentLatencyMs: nonNegative(values['agent-latency-ms'], 50),
  };
  if (benchmark === 'ttft') {
    const ttft = await runTtftBench(ttftOptions);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(ttft, null, 2)}\n`
        : `\n${formatTtftBench(ttft, ttftOptions)}\n`,
    );
    return 0;
  }
  if (benchmark === 'tenants') {
    const tenantsOptions: TenantsBenchOptions = {
      root,
      floodConcurrency: number(values.flood, values.quick ? 50 : 100),
      steadyRequests: number(values.steady, values.quick ? 8 : 20),
      agentLatencyMs: nonNegative(values['agent-latency-ms'], 100),
      maxActiveRuns:
        values['max-active-runs'] === undefined
          ? undefined
          : nonNegative(values['max-active-runs'], 0),
      maxActivePerTenant:
        values['max-active-per-tenant'] === undefined
          ? undefined
          : nonNegative(values['max-active-per-tenant'], 0),
    };
    const tenants = await runTenantsBench(tenantsOptions);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(tenants, null, 2)}\n`
        : `\n${formatTenantsBench(tenants, tenantsOptions)}\n`,
    );
    return 0;
  }
  if (benchmark === 'orchestration') {
    const orchestrationOptions: OrchestrationBenchOptions = {
      root,
      runs: number(values.runs, values.quick ? 3 : 10),
      fixedCostRuns: number(values['fixed-cost-runs'], values.quick ? 20 : 100),
      fixedCostOnly: values['fixed-cost-only'],
      baselineRoot: values.baseline === undefined ? undefined : path.resolve(values.baseline),
      baselineRedisUrl:
        values.baseline === undefined
          ? undefined
          : (process.env['BENCH_BASELINE_REDIS_URL'] ??
            otherDatabase(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379')),
      orchestratorNodeArgs: splitArgs(
        values['orchestrator-node-args'] ?? process.env['BENCH_ORCHESTRATOR_NODE_ARGS'],
      ),
    };
    const outcome = await runOrchestrationBench(orchestrationOptions);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(outcome, null, 2)}\n`
        : `\n${formatOrchestrationBench(outcome, orchestrationOptions)}\n`,
    );
    return 0;
  }
  const options: GatewayBenchOptions = {
    root,
    rounds: number(values.rounds, values.quick ? 3 : 15),
    perRound: number(values['per-round'], values.quick ? 20 : 60),
    concurrency: number(values.concurrency, 64),
    loadSeconds: number(values['load-seconds'], values.quick ? 1 : 4),
    loadRepeats: number(values['load-repeats'], values.quick ? 1 : 5),
    chunks: number(values.chunks, 20),
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
  process.stdout.write(
    values.json
      ? `${JSON.stringify(ttft === undefined ? result : { ...result, ttft }, null, 2)}\n`
      : `\n${sections.join('\n\n')}\n`,
  );
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
