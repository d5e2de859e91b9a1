import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SessionStore } from '@fleet/sessions';
import { BREAKER_STATES, type AgentBreakers } from '../execution';
import type { RunScheduler } from '../scheduling';

/** Options for {@link registerOrchestratorMetrics}. */
export interface RegisterOrchestratorMetricsOptions {
  /** The orchestrator's registry (`createMetrics(...).registry`), served at `/metrics`. */
  registry: Registry;
  /** The breakers every run of this process shares. */
  breakers?: Pick<AgentBreakers, 'agents' | 'stateOf'> | undefined;
  /** Where sessions live: counted with one `SCARD` per scrape. */
  sessions?: Pick<SessionStore, 'countAwaitingApproval'> | undefined;
  /** The run scheduler of this replica (fair admission). */
  scheduler?: Pick<RunScheduler, 'snapshot' | 'onAdmission'> | undefined;
  /** How long a scrape waits for Redis before it keeps the last count. @default 1000 */
  redisTimeoutMs?: number;
}

/** Resolves with `promise`, or rejects once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Adds the orchestrator's metrics (docs/operations.md), read when Prometheus scrapes:
 * - `orchestrator_agent_circuit_state{agent,state}` (gauge): 1 for the state each agent's
 *   circuit breaker is in on this replica (`closed`, `open`, `half-open`, `isolated`), 0 for the
 *   others; agents appear once this replica has called them;
 * - `orchestrator_sessions_awaiting_approval` (gauge): sessions with an approval or a question
 *   pending, fleet-wide (the same value on every replica: aggregate with `max`, not `sum`). A
 *   scrape that Redis does not answer in time keeps the last count and counts the failure in
 *   `orchestrator_metrics_redis_errors_total`;
 * - `orchestrator_active_runs` (gauge) and `orchestrator_queued_runs{tenant}` (gauge): runs
 *   executing on this replica, and runs waiting for a slot by tenant (docs/architecture.md §5);
 * - `orchestrator_run_wait_seconds{tenant}` (histogram): how long each run waited for its slot
 *   (0 for a run that started at once).
 *
 * @example
 * const metrics = createMetrics({ serviceName: 'orchestrator' });
 * registerOrchestratorMetrics({ registry: metrics.registry, breakers, sessions });
 */
export function registerOrchestratorMetrics({
  registry,
  breakers,
  sessions,
  scheduler,
  redisTimeoutMs = 1000,
}: RegisterOrchestratorMetricsOptions): void {
  if (scheduler !== undefined) registerSchedulerMetrics(registry, scheduler);
  if (breakers !== undefined) {
    new Gauge({
      name: 'orchestrator_agent_circuit_state',
      help: "1 for the state of each agent's circuit breaker on this replica, 0 for the other states.",
      labelNames: ['agent', 'state'],
      registers: [registry],
      collect() {
        for (const agent of breakers.agents()) {
          const current = breakers.stateOf(agent);
          for (const state of BREAKER_STATES) this.set({ agent, state }, state === current ? 1 : 0);
        }
      },
    });
  }
  if (sessions !== undefined) {
    // Metrics are collected concurrently: a failed count shows in the next scrape's counter.
    const errors = new Counter({
      name: 'orchestrator_metrics_redis_errors_total',
      help: 'Scrapes whose count of sessions awaiting approval Redis did not answer in time.',
      registers: [registry],
    });
    new Gauge({
      name: 'orchestrator_sessions_awaiting_approval',
      help: 'Sessions with an approval or a question pending, fleet-wide (the same on every replica).',
      registers: [registry],
      async collect() {
        try {
          this.set(await within(sessions.countAwaitingApproval(), redisTimeoutMs));
        } catch {
          errors.inc();
        }
      },
    });
  }
}

/** The scheduler's gauges, read at each scrape, and its wait histogram, fed on each admission. */
function registerSchedulerMetrics(
  registry: Registry,
  scheduler: Pick<RunScheduler, 'snapshot' | 'onAdmission'>,
): void {
  new Gauge({
    name: 'orchestrator_active_runs',
    help: 'Runs executing on this replica (at most ORCHESTRATOR_MAX_ACTIVE_RUNS).',
    registers: [registry],
    collect() {
      this.set(scheduler.snapshot().active);
    },
  });
  new Gauge({
    name: 'orchestrator_queued_runs',
    help: 'Runs waiting for a slot on this replica, by tenant.',
    labelNames: ['tenant'],
    registers: [registry],
    collect() {
      // Tenants whose queue emptied drop out instead of staying at 0 forever.
      this.reset();
      for (const [tenant, queued] of Object.entries(scheduler.snapshot().queued)) {
        this.set({ tenant }, queued);
      }
    },
  });
  const wait = new Histogram({
    name: 'orchestrator_run_wait_seconds',
    help: 'How long runs waited for a slot before they started, by tenant.',
    labelNames: ['tenant'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  scheduler.onAdmission(({ tenant, waitedMs }) => wait.observe({ tenant }, waitedMs / 1000));
}
