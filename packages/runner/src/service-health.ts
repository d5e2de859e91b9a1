import { isGroupAlive, isRunning, stopProcessGroup } from './processes';
import { describeAnswer, probeReadyz, type ProbeAnswer } from './readiness';
import type { ServiceState } from './state-file';
import { isServiceRunning } from './stop-fleet';

/** Whether a service of the state still runs. */
export type ServiceHealth =
  /** Its process is alive and `GET /healthz` answers 2xx. */
  | { state: 'running' }
  /** Its process is gone (or the pid now belongs to an unrelated process). */
  | { state: 'gone' }
  /** Its process is alive but `GET /healthz` does not answer 2xx (hung, stopped, wedged). */
  | { state: 'unresponsive'; answer: ProbeAnswer };

/** Options for {@link checkServiceHealth}. */
export interface CheckServiceHealthOptions {
  /** How long `GET /healthz` may take. @default 2000 */
  timeoutMs?: number;
}

/**
 * Tells whether a started service still runs: its pid is alive and ours, and it answers
 * `GET /healthz` (liveness; `/readyz` also depends on Redis and other services).
 *
 * @example
 * const health = await checkServiceHealth(state.services[0]);
 */
export async function checkServiceHealth(
  service: ServiceState,
  { timeoutMs = 2000 }: CheckServiceHealthOptions = {},
): Promise<ServiceHealth> {
  if (!isServiceRunning(service)) return { state: 'gone' };
  const answer = await probeReadyz({ url: service.url, path: '/healthz', timeoutMs });
  if ('status' in answer && answer.status >= 200 && answer.status < 300) {
    return { state: 'running' };
  }
  return { state: 'unresponsive', answer };
}

/** Why a service counts as down, for messages: `its process (pid 42) is gone`. */
export function describeDown(service: ServiceState, health: ServiceHealth): string {
  switch (health.state) {
    case 'running':
      return 'running';
    case 'gone':
      return `its process (pid ${service.pid}) is gone`;
    case 'unresponsive':
      return `pid ${service.pid} does not answer /healthz (${describeAnswer(health.answer)})`;
  }
}

/**
 * Stops what is left of a service that is down: an unresponsive process (SIGTERM, then SIGKILL
 * after `graceMs`), or the orphaned members of a dead leader's process group. A pid reused by an
 * unrelated process is left alone.
 */
export async function clearDownService(
  service: ServiceState,
  health: ServiceHealth,
  { graceMs }: { graceMs: number },
): Promise<void> {
  if (health.state === 'unresponsive') {
    await stopProcessGroup({ pid: service.pid, graceMs });
    return;
  }
  // A dead leader's pid cannot be reused while its group has members, so the group is still ours.
  if (health.state === 'gone' && !isRunning(service.pid) && isGroupAlive(service.pid)) {
    await stopProcessGroup({ pid: service.pid, graceMs: Math.min(graceMs, 2000) });
  }
}
