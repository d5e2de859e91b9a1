import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { getFreePort, startProcess, type RunningProcess } from '@fleet/testing';
import { timedChatCompletion, type Sample, type Target } from './http-client';
import { median, percentile } from './stats';
import { createProgress } from './progress';
import { readOtlpSinkStats, type OtlpSinkStats } from './otlp-sink';

export { formatGatewayBench } from './gateway-bench-report';

/** Options for {@link runGatewayBench}. */
export interface GatewayBenchOptions {
  /** The repository root (services and packages are found from it). */
  root: string;
  /** Sequential rounds; each interleaves every target. @default 15 */
  rounds: number;
  /** Requests per target per round. @default 60 */
  perRound: number;
  /** Concurrent streaming clients in the load phase. @default 64 */
  concurrency: number;
  /** Seconds per load phase; each target gets `loadRepeats` phases, interleaved. @default 4 */
  loadSeconds: number;
  /** @default 5 */
  loadRepeats: number;
  /** Streamed content deltas per answer. @default 20 */
  chunks: number;
  /**
   * The gateway's per-tenant limits: `on` (as deployed; the bench's tenant gets a request limit far
   * above its load unless the shell sets GATEWAY_LIMIT_RPM, so what is measured is their cost),
   * `off`, or `both` (a second gateway with them off, measured side by side). @default 'on'
   */
  limits?: 'on' | 'off' | 'both' | undefined;
  /**
   * Measures tracing: the gateway traced, exporting OTLP/protobuf to a local sink the bench starts
   * (`otlp-sink.ts`, which counts what it receives), side by side with the same gateway with the
   * request's context entered for every request (`GATEWAY_TRACE_CONTEXT=active`) and untraced.
   * @default false
   */
  tracing?: boolean | undefined;
  /** Extra arguments for the gateway's `node`, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']`. */
  gatewayNodeArgs?: readonly string[] | undefined;
  /** Extra environment for the gateway, e.g. `{ OTEL_BSP_SCHEDULE_DELAY: '1000' }`. */
  gatewayEnv?: Readonly<Record<string, string>> | undefined;
}

/** One target's latency in one sequential phase. */
export interface SequentialTarget {
  target: string;
  /** Median of the round medians. */
  ms: number;
  /** `ms` minus direct's. */
  addedMs: number;
}

/** One target under load. */
export interface LoadTarget {
  target: string;
  requestsPerSecond: number;
  /** Median over repeats of this target's rate ÷ the minimal proxy's in the same repeat. */
  ratioToProxy: number;
  /** CPU time of the target's process per completed request in the load phases (Linux only). */
  cpuMicrosPerRequest: number | undefined;
  /** The kernel's part of it (system calls: sockets). */
  systemCpuMicrosPerRequest: number | undefined;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  completed: number;
}

/** What one run measured. */
export interface GatewayBenchResult {
  machine: string;
  /** The 1-minute load average when the run started and when it ended (other work on the machine). */
  loadAverage: { start: number; end: number };
  /** The gateway the goals apply to (the first gateway target). */
  gateway: string;
  sequential: { mode: 'non-streaming' | 'streaming'; targets: SequentialTarget[] }[];
  load: LoadTarget[];
  /** The gateway's `ratioToProxy`. */
  throughputRatio: number;
  /** The gateway's added p50, the worse of the two sequential phases. */
  gatewayAddedMs: number;
  p99AddedVsProxyMs: number;
  /** With `tracing`: what the OTLP sink received over the whole run, and per traced request. */
  tracing?: OtlpSinkStats & { gatewayRequests: number; bytesPerRequest: number };
}

const GATEWAY_KEY = 'sk-bench-0123456789abcdef';

function chatBody(stream: boolean): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: 'bench-model',
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [
        { role: 'system', content: 'You are a benchmark.' },
        { role: 'user', content: 'Say something short.' },
      ],
    }),
  );
}

/** A gateway process the bench measures, and how it differs from the others. */
interface GatewayVariant {
  name: string;
  env: Record<string, string | undefined>;
  /** Exports to the OTLP sink. */
  traced: boolean;
}

/** The gateways of a run; the first is the one the goals apply to. */
function gatewayVariants({
  limits = 'on',
  tracing = false,
}: GatewayBenchOptions): GatewayVariant[] {
  const limitsEnv = (on: boolean): Record<string, string | undefined> =>
    on
      ? {
          GATEWAY_LIMITS: 'true',
          // The bench's load is far above any tenant's default rate: the limit is set out of
          // reach, so what is measured is what counting costs a request that is let through.
          GATEWAY_LIMIT_RPM: process.env['GATEWAY_LIMIT_RPM'] ?? '1000000000',
        }
      : { GATEWAY_LIMITS: 'false' };
  const primaryLimits = limits !== 'off';
  const variants: GatewayVariant[] = tracing
    ? [
        { name: 'gateway', env: { ...limitsEnv(primaryLimits) }, traced: true },
        {
          name: 'gateway, context entered',
          env: { ...limitsEnv(primaryLimits), GATEWAY_TRACE_CONTEXT: 'active' },
          traced: true,
        },
        { name: 'gateway, untraced', env: { ...limitsEnv(primaryLimits) }, traced: false },
      ]
    : [{ name: 'gateway', env: limitsEnv(primaryLimits), traced: false }];
  if (limits === 'both') {
    variants.push({ name: 'gateway, limits off', env: limitsEnv(false), traced: tracing });
  }
  return variants;
}

interface FleetPieces {
  processes: RunningProcess[];
  /** Each target with the process that serves it (for its CPU time). */
  targets: (Target & { pid: number })[];
  /** The targets that are gateways, the measured one first. */
  gateways: string[];
  /** The gateways that export traces. */
  traced: string[];
  /** The OTLP sink, with tracing on; stopped after everything else so the last batch lands. */
  sink: RunningProcess | undefined;
}

async function startGatewayProcess(
  options: GatewayBenchOptions,
  {
    upstreamUrl,
    sinkUrl,
    variant,
  }: { upstreamUrl: string; sinkUrl: string | undefined; variant: GatewayVariant },
): Promise<{ process: RunningProcess; baseURL: string }> {
  const port = String(await getFreePort());
  const running = await startProcess({
    name: variant.name,
    args: [
      '--enable-source-maps',
      ...(options.gatewayNodeArgs ?? []),
      path.join(options.root, 'services/gateway/dist/main.js'),
    ],
    env: {
      GATEWAY_PORT: port,
      GATEWAY_API_KEYS: `${GATEWAY_KEY}:bench`,
      OPENAI_BASE_URL: `${upstreamUrl}/v1`,
      OPENAI_API_KEY: 'sk-upstream-bench',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // Tracing is off unless asked for, whatever the shell that runs the bench says.
      OTEL_EXPORTER_OTLP_ENDPOINT: variant.traced ? sinkUrl : undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      GATEWAY_TRACE_CONTEXT: undefined,
      ...variant.env,
      ...options.gatewayEnv,
    },
    readyUrl: `http://127.0.0.1:${port}/readyz`,
  });
  return { process: running, baseURL: `http://127.0.0.1:${port}/v1` };
}

async function startFleetPieces(options: GatewayBenchOptions): Promise<FleetPieces> {
  const { root, chunks } = options;
  const processes: RunningProcess[] = [];
  const sink = options.tracing
    ? await startProcess({
        name: 'otlp-sink',
        args: [path.join(root, 'packages/bench/dist/otlp-sink.js')],
        readyLine: /READY (\S+)/,
      })
    : undefined;
  const upstream = await startProcess({
    name: 'scripted-openai',
    args: [
      path.join(root, 'packages/testing/dist/bin/scripted-openai.js'),
      '--port',
      '0',
      '--content',
      'The quick brown fox jumps over the lazy dog and keeps running through the benchmark field.',
      '--chunks',
      String(chunks),
    ],
    readyLine: /READY (\S+)/,
  });
  processes.push(upstream);
  const upstreamUrl = upstream.match?.[1] ?? '';

  const proxy = await startProcess({
    name: 'minimal-proxy',
    args: [path.join(root, 'packages/bench/dist/minimal-proxy.js'), '--target', upstreamUrl],
    readyLine: /READY (\S+)/,
  });
  processes.push(proxy);

  const auth = { authorization: `Bearer ${GATEWAY_KEY}` };
  const targets: FleetPieces['targets'] = [
    { name: 'direct', baseURL: `${upstreamUrl}/v1`, headers: auth, pid: upstream.pid },
    {
      name: 'minimal proxy',
      baseURL: `${proxy.match?.[1] ?? ''}/v1`,
      headers: auth,
      pid: proxy.pid,
    },
  ];
  const variants = gatewayVariants(options);
  for (const variant of variants) {
    const gateway = await startGatewayProcess(options, {
      upstreamUrl,
      sinkUrl: sink?.match?.[1],
      variant,
    });
    processes.push(gateway.process);
    targets.push({
      name: variant.name,
      baseURL: gateway.baseURL,
      headers: auth,
      pid: gateway.process.pid,
    });
  }
  return {
    processes,
    sink,
    targets,
    gateways: variants.map((variant) => variant.name),
    traced: variants.filter((variant) => variant.traced).map((variant) => variant.name),
  };
}

/** Requests sent per target name over the run (warm-up included), for per-request export sizes. */
type SentCounter = Map<string, number>;

function countSent(sent: SentCounter, target: Target, requests = 1): void {
  sent.set(target.name, (sent.get(target.name) ?? 0) + requests);
}

async function sequentialPhase(options: {
  targets: Target[];
  stream: boolean;
  rounds: number;
  perRound: number;
  onProgress: () => void;
  sent: SentCounter;
}): Promise<Map<string, number>> {
  const { targets, stream, rounds, perRound, onProgress, sent } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody(stream);
  const roundMedians = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  try {
    // Warm-up: JIT, connection pools.
    for (let index = 0; index < 100; index += 1) {
      for (const target of targets) {
        await timedChatCompletion({ agent, target, body, stream });
        countSent(sent, target);
      }
    }
    for (let round = 0; round < rounds; round += 1) {
      const samples = new Map<string, number[]>(targets.map((target) => [target.name, []]));
      // Rotate the order every request so drift (GC, CPU frequency) hits every target alike.
      for (let index = 0; index < perRound; index += 1) {
        for (let offset = 0; offset < targets.length; offset += 1) {
          const target = targets[(index + offset + round) % targets.length]!;
          const sample = await timedChatCompletion({ agent, target, body, stream });
          countSent(sent, target);
          if (!sample.ok)
            throw new Error(`${target.name}: request failed (${sample.error ?? '?'})`);
          samples.get(target.name)!.push(sample.ms);
        }
      }
      for (const target of targets)
        roundMedians.get(target.name)!.push(median(samples.get(target.name)!));
      onProgress();
    }
  } finally {
    agent.destroy();
  }
  return new Map([...roundMedians].map(([name, medians]) => [name, median(medians)]));
}

async function loadPhase(options: {
  target: Target;
  concurrency: number;
  seconds: number;
}): Promise<{ samples: Sample[]; elapsedSeconds: number }> {
  const { target, concurrency, seconds } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const body = chatBody(true);
  const samples: Sample[] = [];
  const started = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1000;
  async function client(): Promise<void> {
    while (Date.now() < deadline)
      samples.push(await timedChatCompletion({ agent, target, body, stream: true }));
  }
  await Promise.all(Array.from({ length: concurrency }, client));
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return { samples, elapsedSeconds };
}

/** A process's CPU time so far, in microseconds. */
interface CpuTime {
  user: number;
  system: number;
}

/**
 * A process's CPU time (user and system), from /proc (Linux; undefined elsewhere). CPU per request
 * is steadier than throughput on a shared machine: other load slows both targets but does not add
 * to their CPU time.
 */
function cpuTime(pid: number): CpuTime | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'; utime and stime
    // are fields 14 and 15, in clock ticks (100 per second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
  } catch {
    return undefined;
  }
}

function describeMachine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/**
 * `pnpm bench gateway`: the gateway's added latency (sequential, interleaved rounds, median of
 * round medians) and its throughput and CPU per request under concurrent streaming load against a
 * minimal Node reverse proxy, every process on this machine, all measured in one run; with
 * `tracing`, the traced gateway side by side with the same gateway with the context entered and
 * untraced.
 */
export async function runGatewayBench(options: GatewayBenchOptions): Promise<GatewayBenchResult> {
  const startLoad = os.loadavg()[0] ?? Number.NaN;
  const pieces = await startFleetPieces(options);
  const { processes, sink } = pieces;
  const sent: SentCounter = new Map();
  let result: Omit<GatewayBenchResult, 'tracing' | 'loadAverage'>;
  let sinkStats: OtlpSinkStats | undefined;
  try {
    result = await measure({ options, pieces, sent });
  } finally {
    await Promise.all(processes.reverse().map((running) => running.stop('SIGTERM', 5_000)));
    // The gateways flushed their last batch on SIGTERM: the sink has everything now.
    try {
      if (sink !== undefined) sinkStats = await readOtlpSinkStats(sink.match?.[1] ?? '');
    } finally {
      await sink?.stop('SIGTERM', 5_000);
    }
  }
  const loadAverage = { start: startLoad, end: os.loadavg()[0] ?? Number.NaN };
  if (sinkStats === undefined) return { ...result, loadAverage };
  const gatewayRequests = pieces.traced.reduce((sum, name) => sum + (sent.get(name) ?? 0), 0);
  return {
    ...result,
    loadAverage,
    tracing: {
      ...sinkStats,
      gatewayRequests,
      bytesPerRequest: gatewayRequests === 0 ? 0 : sinkStats.bytes / gatewayRequests,
    },
  };
}

/** Sequential latency of every target, non-streaming then streaming, with what each adds. */
async function measureSequential({
  options,
  targets,
  sent,
}: {
  options: GatewayBenchOptions;
  targets: FleetPieces['targets'];
  sent: SentCounter;
}): Promise<GatewayBenchResult['sequential']> {
  const direct = targets[0]!;
  const sequential: GatewayBenchResult['sequential'] = [];
  for (const stream of [false, true]) {
    const progress = createProgress({
      label: `sequential ${stream ? 'streaming' : 'non-streaming'}`,
      total: options.rounds,
    });
    const medians = await sequentialPhase({
      targets,
      stream,
      rounds: options.rounds,
      perRound: options.perRound,
      onProgress: () => progress.tick(),
      sent,
    });
    progress.done();
    const directMs = medians.get(direct.name)!;
    sequential.push({
      mode: stream ? 'streaming' : 'non-streaming',
      targets: targets.map((target) => ({
        target: target.name,
        ms: medians.get(target.name)!,
        addedMs: medians.get(target.name)! - directMs,
      })),
    });
  }
  return sequential;
}

/** One target's load phases: every sample, the rate of each phase and the CPU time it used. */
interface TargetLoad {
  samples: Sample[];
  rates: number[];
  cpu: CpuTime | undefined;
}

/** Runs the load phases, every target once per repeat, and collects each target's samples. */
async function runLoadPhases({
  options,
  targets,
  sent,
}: {
  options: GatewayBenchOptions;
  targets: FleetPieces['targets'];
  sent: SentCounter;
}): Promise<Map<string, TargetLoad>> {
  const perTarget = new Map<string, TargetLoad>(
    targets.map((target) => [target.name, { samples: [], rates: [], cpu: { user: 0, system: 0 } }]),
  );
  const progress = createProgress({
    label: `load: ${options.concurrency} streaming clients`,
    total: options.loadRepeats * targets.length,
  });
  for (let repeat = 0; repeat < options.loadRepeats; repeat += 1) {
    // Alternate the order so no target always runs on a warmer or cooler machine.
    const order = repeat % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const cpuBefore = cpuTime(target.pid);
      const { samples, elapsedSeconds } = await loadPhase({
        target,
        concurrency: options.concurrency,
        seconds: options.loadSeconds,
      });
      const cpuAfter = cpuTime(target.pid);
      const entry = perTarget.get(target.name)!;
      entry.cpu =
        entry.cpu === undefined || cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : {
              user: entry.cpu.user + cpuAfter.user - cpuBefore.user,
              system: entry.cpu.system + cpuAfter.system - cpuBefore.system,
            };
      countSent(sent, target, samples.length);
      entry.samples.push(...samples);
      entry.rates.push(samples.filter((sample) => sample.ok).length / elapsedSeconds);
      progress.tick();
    }
  }
  progress.done();
  return perTarget;
}

/**
 * Each target's throughput (and its ratio to the proxy's), latency, errors and CPU per request
 * under load. Each repeat runs every target back to back: comparing within a repeat cancels the
 * machine's drift between repeats (other load, CPU frequency).
 */
function loadRows(
  targets: FleetPieces['targets'],
  { perTarget, proxyName }: { perTarget: Map<string, TargetLoad>; proxyName: string },
): LoadTarget[] {
  const proxyRates = perTarget.get(proxyName)!.rates;
  return targets.map((target): LoadTarget => {
    const { samples, rates, cpu } = perTarget.get(target.name)!;
    const ok = samples.filter((sample) => sample.ok).map((sample) => sample.ms);
    return {
      target: target.name,
      requestsPerSecond: median(rates),
      ratioToProxy: median(rates.map((rate, index) => rate / (proxyRates[index] ?? Number.NaN))),
      cpuMicrosPerRequest:
        cpu === undefined || ok.length === 0 ? undefined : (cpu.user + cpu.system) / ok.length,
      systemCpuMicrosPerRequest:
        cpu === undefined || ok.length === 0 ? undefined : cpu.system / ok.length,
      p50Ms: percentile(ok, 0.5),
      p99Ms: percentile(ok, 0.99),
      errors: samples.length - ok.length,
      completed: ok.length,
    };
  });
}

async function measure({
  options,
  pieces: { targets, gateways },
  sent,
}: {
  options: GatewayBenchOptions;
  pieces: FleetPieces;
  sent: SentCounter;
}): Promise<Omit<GatewayBenchResult, 'tracing' | 'loadAverage'>> {
  const proxy = targets[1]!;
  const sequential = await measureSequential({ options, targets, sent });
  const perTarget = await runLoadPhases({ options, targets, sent });
  const load = loadRows(targets, { perTarget, proxyName: proxy.name });
  const gateway = gateways[0]!;
  const gatewayLoad = load.find((row) => row.target === gateway)!;
  const proxyLoad = load.find((row) => row.target === proxy.name)!;
  return {
    machine: describeMachine(),
    gateway,
    sequential,
    load,
    throughputRatio: gatewayLoad.ratioToProxy,
    gatewayAddedMs: Math.max(
      ...sequential.map(
        (phase) => phase.targets.find((row) => row.target === gateway)?.addedMs ?? Number.NaN,
      ),
    ),
    p99AddedVsProxyMs: gatewayLoad.p99Ms - proxyLoad.p99Ms,
  };
}
