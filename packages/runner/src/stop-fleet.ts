import { isOwnProcess, stopProcessGroup, type StopOutcome } from './processes';
import type { FleetState, RedisState, ServiceState } from './state-file';

/** What happened to one process when the fleet stopped. */
export interface StopReport {
  /** A service name, or `redis`. */
  name: string;
  pid: number;
  outcome: StopOutcome;
}

/** Options for {@link stopFleet}. */
export interface StopFleetOptions {
  state: FleetState;
  /** How long each process may take to shut down after SIGTERM. @default 10000 */
  graceMs?: number;
  /** Called as each process is dealt with, for progress output. */
  onStopped?: (report: StopReport) => void;
}

/** The marker in a started redis-server's command line (it shows `127.0.0.1:<port>`). */
export function redisMarker(redis: RedisState): string {
  return `:${String(redis.port)}`;
}

/** True when the state's service process is alive and still ours. */
export function isServiceRunning(service: ServiceState): boolean {
  return isOwnProcess(service.pid, service.entry);
}

/** True when the state holds a redis-server the runner started that is still alive. */
export function isStartedRedisRunning(redis: RedisState | undefined): boolean {
  return (
    redis !== undefined &&
    redis.source === 'started' &&
    redis.pid !== undefined &&
    isOwnProcess(redis.pid, redisMarker(redis))
  );
}

/**
 * Stops every service of a state (all at once: each gets SIGTERM to its process group, then
 * SIGKILL after `graceMs`), then the redis-server the runner started, if any. A pid that is no
 * longer ours is left alone and reported `not-running`.
 */
export async function stopFleet({
  state,
  graceMs = 10_000,
  onStopped,
}: StopFleetOptions): Promise<StopReport[]> {
  const stopOne = async (name: string, pid: number, running: boolean): Promise<StopReport> => {
    const outcome = running ? await stopProcessGroup({ pid, graceMs }) : 'not-running';
    const report = { name, pid, outcome };
    onStopped?.(report);
    return report;
  };
  const reports = await Promise.all(
    [...state.services]
      .reverse()
      .map((service) => stopOne(service.name, service.pid, isServiceRunning(service))),
  );
  const redis = state.redis;
  if (redis?.source === 'started' && redis.pid !== undefined) {
    reports.push(await stopOne('redis', redis.pid, isStartedRedisRunning(redis)));
  }
  return reports;
}
