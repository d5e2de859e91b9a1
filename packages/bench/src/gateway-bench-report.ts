import type { GatewayBenchOptions, GatewayBenchResult } from './gateway-bench';
import { formatMs } from './stats';

/** The goals a run is judged by: the traced gateway's, or the gateway's with its limits. */
function goalsOf(options: GatewayBenchOptions): { addedMs: number; ratio: number; label: string } {
  // Tracing may cost at most a quarter of the proxy's throughput and 0.8 ms of added latency; the
  // untraced gateway, limits on, at most 15 % and 0.6 ms.
  return options.tracing
    ? { addedMs: 0.8, ratio: 0.75, label: ' (tracing on)' }
    : { addedMs: 0.6, ratio: 0.85, label: options.limits === 'off' ? ' (limits off)' : '' };
}

/** Renders a result as the Markdown that goes into docs/benchmarks.md. */
export function formatGatewayBench(
  result: GatewayBenchResult,
  options: GatewayBenchOptions,
): string {
  const lines: string[] = [];
  lines.push(`Machine: ${result.machine}`);
  lines.push(
    `Load average (1 min): ${result.loadAverage.start.toFixed(2)} at the start, ${result.loadAverage.end.toFixed(2)} at the end`,
  );
  lines.push(
    `Settings: ${options.rounds} rounds × ${options.perRound} requests per target (sequential), ${options.concurrency} clients × ${options.loadSeconds} s × ${options.loadRepeats} phases per target (load), ${options.chunks} streamed chunks per answer; gateway limits ${options.limits ?? 'on'}${options.tracing ? ', tracing on' : ''}`,
  );
  lines.push('');
  lines.push('Sequential latency (median of round medians)');
  lines.push('');
  lines.push('| target | non-streaming | adds | streaming | adds |');
  lines.push('|---|---|---|---|---|');
  const [plain, streamed] = result.sequential;
  for (const [index, row] of (plain?.targets ?? []).entries()) {
    const other = streamed?.targets[index];
    const adds = (value: number | undefined): string =>
      row.target === 'direct' || value === undefined ? '–' : formatMs(value);
    lines.push(
      `| ${row.target} | ${formatMs(row.ms)} | ${adds(row.addedMs)} | ${formatMs(other?.ms ?? Number.NaN)} | ${adds(other?.addedMs)} |`,
    );
  }
  lines.push('');
  lines.push(`Load (${options.concurrency} concurrent streaming clients)`);
  lines.push('');
  lines.push(
    '| target | requests/s (median of phases) | ÷ minimal proxy (median of phases) | p50 | p99 | errors | CPU per request (system) |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const row of result.load) {
    const cpu =
      row.cpuMicrosPerRequest === undefined
        ? '–'
        : `${row.cpuMicrosPerRequest.toFixed(0)} µs (${(row.systemCpuMicrosPerRequest ?? 0).toFixed(0)} µs)`;
    lines.push(
      `| ${row.target} | ${row.requestsPerSecond.toFixed(0)} | ${(row.ratioToProxy * 100).toFixed(1)} % | ${formatMs(row.p50Ms)} | ${formatMs(row.p99Ms)} | ${row.errors} of ${row.completed + row.errors} | ${cpu} |`,
    );
  }
  lines.push('');
  const goals = goalsOf(options);
  const worst = result.gatewayAddedMs;
  lines.push(
    `Gateway${goals.label} added latency p50: ${formatMs(worst)} (goal ≤ ${goals.addedMs} ms: ${worst <= goals.addedMs ? 'met' : 'NOT met'})`,
  );
  const errors = result.load.reduce((sum, row) => sum + row.errors, 0);
  lines.push(
    `Gateway${goals.label} throughput / minimal proxy throughput (median of per-repeat ratios): ${(result.throughputRatio * 100).toFixed(1)} % (goal ≥ ${goals.ratio * 100} %: ${result.throughputRatio >= goals.ratio ? 'met' : 'NOT met'}); errors: ${errors} (goal 0)`,
  );
  lines.push(
    `Gateway p99 minus minimal proxy p99 under load: ${formatMs(result.p99AddedVsProxyMs)}`,
  );
  const cpuOf = (target: string): number | undefined =>
    result.load.find((row) => row.target === target)?.cpuMicrosPerRequest;
  const untraced = cpuOf('gateway, untraced');
  if (options.tracing && untraced !== undefined) {
    const describe = (target: string, label: string): string => {
      const cpu = cpuOf(target);
      return cpu === undefined
        ? `${label} –`
        : `${label} ${cpu.toFixed(0)} µs (+${(cpu - untraced).toFixed(0)} µs)`;
    };
    lines.push(
      `Gateway CPU per request under load: untraced ${untraced.toFixed(0)} µs; ${describe('gateway, context entered', 'traced, context entered for every request')}; ${describe('gateway', 'traced, explicit context on the hot path')}`,
    );
  }
  const limitsOff = cpuOf('gateway, limits off');
  const limitsOn = cpuOf('gateway');
  if (limitsOff !== undefined && limitsOn !== undefined) {
    lines.push(
      `Gateway CPU per request under load: limits on ${limitsOn.toFixed(0)} µs, limits off ${limitsOff.toFixed(0)} µs (${limitsOn - limitsOff >= 0 ? '+' : ''}${(limitsOn - limitsOff).toFixed(0)} µs)`,
    );
  }
  if (result.tracing !== undefined) {
    const { requests, bytes, refused, gatewayRequests, bytesPerRequest } = result.tracing;
    lines.push(
      `Tracing on: the OTLP sink received ${requests} export requests, ${(bytes / 2 ** 20).toFixed(1)} MiB (${bytesPerRequest.toFixed(0)} bytes per traced gateway request, ${gatewayRequests} requests)${refused > 0 ? `, refused ${refused}` : ''}`,
    );
  }
  return lines.join('\n');
}
