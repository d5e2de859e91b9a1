import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FleetPaths } from '../../paths';
import { isPortFree } from '../../ports';
import { checkServiceHealth, type ServiceHealth } from '../../service-health';
import { serviceEntry, type ServiceDefinition } from '../../services';
import { readState, type FleetState, type ServiceState } from '../../state-file';
import { isStartedRedisRunning } from '../../stop-fleet';

/** Why a start-up stopped early, with what to tell the user. */
export class StartError extends Error {}

/** What a run does with one service. */
export type Plan =
  /** Not part of the fleet yet (every service of a fresh start). */
  | { kind: 'new'; service: ServiceDefinition }
  /** Running and answering: left alone. */
  | { kind: 'keep'; service: ServiceDefinition; entry: ServiceState }
  /** Down (gone, or not answering /healthz): started again. */
  | { kind: 'revive'; service: ServiceDefinition; entry: ServiceState; health: ServiceHealth }
  /** Running, and `fleet restart` asked for it: stopped, then started again. */
  | { kind: 'restart'; service: ServiceDefinition; entry: ServiceState };

/** The fleet as a run finds it. */
export interface LiveFleet {
  state: FleetState;
  /** Health of every service of the state, by name. */
  health: Map<string, ServiceHealth>;
}

/** Options for `bringUp`. */
export interface BringUpOptions {
  /** `up` starts what is down; `restart` also stops and starts what runs. */
  command: 'up' | 'restart';
  /** The services the command is about, in table order. */
  services: readonly ServiceDefinition[];
  timeoutMs: number;
  /** How long a service being stopped may take after SIGTERM. */
  graceMs: number;
  /** Build the workspace before starting anything. */
  build: boolean;
  /** Stay attached, streaming the logs of what was started (`up --foreground`). */
  foreground: boolean;
  /** `restart` without names: every service of the running fleet (not every known one). */
  all?: boolean;
}

/** What a run is about to do: the plan for each service it was asked about. */
export interface RunPlan {
  /** No fleet was running: everything is started, and a failure stops everything. */
  fresh: boolean;
  /** One plan per service the run is about, in table order. */
  plans: Plan[];
  /** The plans that start a process (everything but `keep`). */
  toStart: Plan[];
  /** Services of the fleet this run was not asked about that are down. */
  stillDown: string[];
}

/** Throws a {@link StartError} when the services' compiled entry files are missing. */
export function checkEntries(paths: FleetPaths, services: readonly ServiceDefinition[]): void {
  const missing = services.filter(
    (service) => !existsSync(path.join(paths.root, serviceEntry(service))),
  );
  if (missing.length === 0) return;
  throw new StartError(
    `Not built: ${missing.map(serviceEntry).join(', ')}.\n` +
      'Run `pnpm build` (or start the fleet with `pnpm fleet up`, which builds first).',
  );
}

/** Throws a {@link StartError} when two services share a port or a port is already in use. */
export async function checkPorts(
  services: readonly ServiceDefinition[],
  portOf: (service: ServiceDefinition) => number,
): Promise<void> {
  const byPort = new Map<number, ServiceDefinition>();
  const problems: string[] = [];
  for (const service of services) {
    const port = portOf(service);
    const other = byPort.get(port);
    if (other !== undefined) {
      problems.push(
        `Port ${port} is set for both ${other.name} (${other.portVariable}) and ${service.name} (${service.portVariable}).`,
      );
      continue;
    }
    byPort.set(port, service);
    if (!(await isPortFree(port))) {
      problems.push(
        `Port ${port} (${service.portVariable}, for the ${service.name}) is already in use. ` +
          `Stop whatever listens there, or choose another port: ${service.portVariable}=${port + 100} pnpm fleet up`,
      );
    }
  }
  if (problems.length > 0) throw new StartError(problems.join('\n'));
}

/** How long a stopped service's port may take to be released. */
export const PORT_RELEASE_MS = 5000;

/** Waits until the port is free, or the time is up (whichever comes first). */
export async function waitForFreePort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isPortFree(port)) && Date.now() < deadline) await sleep(50);
}

/**
 * Reads the state and checks each service's health. `undefined` when there is no state, or
 * nothing of it runs (no service process, no redis-server of the runner's).
 */
export async function inspectFleet(paths: FleetPaths): Promise<LiveFleet | undefined> {
  const state = await readState(paths.stateFile);
  if (state === undefined) return undefined;
  const health = new Map(
    await Promise.all(
      state.services.map(
        async (service) => [service.name, await checkServiceHealth(service)] as const,
      ),
    ),
  );
  const anyAlive = [...health.values()].some((each) => each.state !== 'gone');
  if (!anyAlive && !isStartedRedisRunning(state.redis)) return undefined;
  return { state, health };
}

function planServices(
  services: readonly ServiceDefinition[],
  fleet: LiveFleet | undefined,
  command: BringUpOptions['command'],
): Plan[] {
  return services.map((service): Plan => {
    const entry = fleet?.state.services.find((each) => each.name === service.name);
    const health = fleet?.health.get(service.name);
    if (entry === undefined || health === undefined) return { kind: 'new', service };
    if (health.state !== 'running') return { kind: 'revive', service, entry, health };
    return command === 'restart'
      ? { kind: 'restart', service, entry }
      : { kind: 'keep', service, entry };
  });
}

/**
 * What a run does with each service it is about: for `restart` without names, the services of
 * the running fleet; otherwise the services asked for.
 */
export function planRun(options: BringUpOptions, fleet: LiveFleet | undefined): RunPlan {
  const selected =
    options.all === true && fleet !== undefined
      ? options.services.filter((service) =>
          fleet.state.services.some((entry) => entry.name === service.name),
        )
      : options.services;
  const plans = planServices(selected, fleet, options.command);
  const stillDown =
    fleet === undefined
      ? []
      : fleet.state.services
          .filter(
            (entry) =>
              fleet.health.get(entry.name)?.state !== 'running' &&
              !selected.some((service) => service.name === entry.name),
          )
          .map((entry) => entry.name);
  return {
    fresh: fleet === undefined,
    plans,
    toStart: plans.filter((plan) => plan.kind !== 'keep'),
    stillDown,
  };
}
