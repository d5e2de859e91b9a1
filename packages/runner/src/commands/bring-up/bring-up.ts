import { FleetError } from '@fleet/errors';
import type { RunnerConfig } from '../../config';
import { prepareDemoFiles } from '../../demo-files';
import { displayPath } from '../../paths';
import { loadOrCreateSecrets, type FleetSecrets } from '../../secrets';
import { describeDown } from '../../service-health';
import type { ServiceDefinition } from '../../services';
import { readState, removeState, writeState, type FleetState } from '../../state-file';
import { isStartedRedisRunning } from '../../stop-fleet';
import type { CommandContext } from '../command';
import { seedDemoCorpus } from './demo-corpus-seed';
import { effectiveConfig, fleetPorts, fleetServiceEnvironment } from './environment';
import { printFailure, startServices, type Started, type StartOutcome } from './launch';
import {
  checkEntries,
  checkPorts,
  inspectFleet,
  planRun,
  PORT_RELEASE_MS,
  StartError,
  waitForFreePort,
  type BringUpOptions,
  type LiveFleet,
  type RunPlan,
} from './plan';
import { stopBeforeStart, stopperFor, streamForeground } from './shutdown';
import { ensureRedis, initialState } from './stores';
import { printRestartReport, printSummary, summaryRows } from './summary';
import { listNames } from './words';

/** A start-up problem to tell the user (exit code 1); anything else is rethrown. */
function reportStartError(context: CommandContext, error: unknown): number {
  if (error instanceof StartError || FleetError.isInstance(error)) {
    context.io.stderr.write(`${context.errorPalette.red(error.message)}\n`);
    return 1;
  }
  throw error;
}

/**
 * The fleet as this run finds it; throws a {@link StartError} when `restart` finds none, or the
 * fleet's own redis-server is gone. A state left over from a run that ended without
 * `fleet down` (crash, reboot), of which nothing runs, is removed.
 */
async function findFleet(
  context: CommandContext,
  command: BringUpOptions['command'],
): Promise<LiveFleet | undefined> {
  const fleet = await inspectFleet(context.paths);
  if (fleet === undefined && command === 'restart') {
    throw new StartError('The fleet is not running. Start it with `pnpm fleet up`.');
  }
  const redis = fleet?.state.redis;
  if (redis?.source === 'started' && !isStartedRedisRunning(redis)) {
    throw new StartError(
      `The fleet's redis-server (pid ${String(redis.pid)}, ${redis.url}) is gone, and with it ` +
        "the services' sessions and task stores. Start the fleet afresh: pnpm fleet down && pnpm fleet up",
    );
  }
  return fleet;
}

/** Removes a state file of which nothing runs, saying so. */
async function clearStaleState(context: CommandContext): Promise<void> {
  const { io, paths } = context;
  if ((await readState(paths.stateFile)) === undefined) return;
  await removeState(paths.stateFile);
  io.stderr.write(
    `Cleared a stale ${displayPath(paths, paths.stateFile)} (nothing of it was running).\n`,
  );
}

/** `up` with everything already running: the summary, and nothing to stream. */
function reportNothingToStart(
  context: CommandContext,
  {
    run,
    fleet,
    config,
    devKey,
    foreground,
  }: {
    run: RunPlan;
    fleet: LiveFleet | undefined;
    config: RunnerConfig;
    devKey: string | undefined;
    foreground: boolean;
  },
): number {
  const { io, palette } = context;
  const rows = run.plans.flatMap((plan) =>
    plan.kind === 'keep'
      ? [{ service: plan.service, url: plan.entry.url, pid: plan.entry.pid, kind: plan.kind }]
      : [],
  );
  printSummary(context, {
    config,
    rows,
    fresh: false,
    stillDown: run.stillDown,
    state: fleet?.state ?? { version: 1, startedAt: '', services: [] },
    elapsedMs: 0,
    devKey,
    demo: undefined,
  });
  if (foreground) {
    io.stderr.write(
      palette.dim(
        'Nothing started, so nothing to stream: follow the logs with pnpm fleet logs -f\n',
      ),
    );
  }
  return 0;
}

/** Says which services are down (and started again) and which already run. */
function announcePlans(context: CommandContext, run: RunPlan): void {
  const { io, palette } = context;
  for (const plan of run.plans) {
    if (plan.kind === 'revive') {
      io.stderr.write(
        `${palette.yellow(`${plan.service.name} is down`)} (${describeDown(plan.entry, plan.health)}): starting it again.\n`,
      );
    }
  }
  const kept = run.plans.filter((plan) => plan.kind === 'keep').map((plan) => plan.service.name);
  if (kept.length > 0) io.stderr.write(palette.dim(`Already running: ${listNames(kept)}.\n`));
}

/**
 * Each service's port, once the ports of what was just stopped are released. A process whose
 * main thread has exited can hold its socket a moment longer while its other threads end.
 */
async function portsAfterStopping(
  run: RunPlan,
  { config, fleet }: { config: RunnerConfig; fleet: LiveFleet | undefined },
): Promise<(service: ServiceDefinition) => number> {
  const ports = fleetPorts(config, fleet);
  const portOf = (service: ServiceDefinition): number => ports[service.name] ?? service.defaultPort;
  await Promise.all(
    run.toStart
      .filter((plan) => plan.kind === 'restart' || plan.kind === 'revive')
      .map((plan) => waitForFreePort(portOf(plan.service), PORT_RELEASE_MS)),
  );
  return portOf;
}

/** What a run has once its services are launched and waited for. */
interface LaunchedRun {
  run: RunPlan;
  config: RunnerConfig;
  secrets: FleetSecrets;
  devKey: string | undefined;
  state: FleetState;
  started: Started[];
  outcomes: StartOutcome[];
  stopStarted: () => Promise<void>;
  startedAt: number;
}

/** Stops what was started after Ctrl-C; resolves to the exit code 130. */
async function stopInterrupted(
  context: CommandContext,
  launched: LaunchedRun,
  whatStops: string,
): Promise<number> {
  context.io.stderr.write(
    `Interrupted: stopping ${launched.run.fresh ? 'what was started' : whatStops}…\n`,
  );
  await launched.stopStarted();
  return 130;
}

/** Reports the services that did not become ready and stops what was started; resolves to 1. */
async function stopFailed(
  context: CommandContext,
  launched: LaunchedRun,
  {
    options,
    failures,
    whatStops,
  }: { options: BringUpOptions; failures: StartOutcome[]; whatStops: string },
): Promise<number> {
  const { io, paths } = context;
  const { fresh, toStart } = launched.run;
  for (const failure of failures) {
    await printFailure(context, { ...failure, timeoutMs: options.timeoutMs });
  }
  io.stderr.write(
    `\nStopping ${whatStops}${fresh ? '' : ' (the rest of the fleet keeps running)'}…\n`,
  );
  await launched.stopStarted();
  const names = listNames(toStart.map((plan) => plan.service.name));
  io.stderr.write(
    `Fix the problem above and run \`pnpm fleet ${options.command === 'up' ? 'up' : `restart ${names}`}\` again (full logs: ${displayPath(paths, paths.logsDir)}/).\n`,
  );
  return 1;
}

/**
 * After the wait: stops everything on Ctrl-C or a failure; otherwise reports (`restart`), or
 * loads the demo corpus, prints the summary and, with `--foreground`, streams the logs.
 */
async function finishRun(
  context: CommandContext,
  options: BringUpOptions,
  launched: LaunchedRun,
): Promise<number> {
  const { io, signal } = context;
  const { run, started, state } = launched;
  const { fresh } = run;
  const whatStops = fresh ? 'the fleet' : listNames(started.map((entry) => entry.service.name));
  if (signal.aborted) return stopInterrupted(context, launched, whatStops);
  const failures = launched.outcomes.filter(
    ({ outcome }) => outcome.state !== 'ready' && outcome.state !== 'aborted',
  );
  if (failures.length > 0) return stopFailed(context, launched, { options, failures, whatStops });

  const elapsedMs = Date.now() - launched.startedAt;
  if (options.command === 'restart') {
    printRestartReport(context, {
      plans: run.toStart,
      started,
      elapsedMs,
      others: state.services.length - started.length,
    });
    return 0;
  }
  const { config, secrets } = launched;
  const demo = await seedDemoCorpus(context, { config, started, secrets });
  if (signal.aborted) return stopInterrupted(context, launched, whatStops);
  printSummary(context, {
    config,
    rows: summaryRows(context, { plans: run.plans, started }),
    fresh,
    stillDown: run.stillDown,
    state,
    elapsedMs,
    devKey: launched.devKey,
    demo,
  });
  if (!options.foreground) return 0;

  await streamForeground(
    context,
    started,
    fresh ? 'the fleet' : `what this run started (${whatStops})`,
  );
  io.stderr.write(`\nStopping ${whatStops}…\n`);
  await launched.stopStarted();
  io.stderr.write('Stopped.\n');
  return 0;
}

/**
 * Starts services and waits until they are ready: a whole fleet, or — when a fleet already
 * runs — the services that are down (and, for `restart`, the running ones named), with the
 * running fleet's configuration. Resolves to the exit code.
 */
export async function bringUp(context: CommandContext, options: BringUpOptions): Promise<number> {
  const { io, paths, palette } = context;
  let fleet: LiveFleet | undefined;
  try {
    fleet = await findFleet(context, options.command);
  } catch (error) {
    return reportStartError(context, error);
  }
  if (fleet === undefined) await clearStaleState(context);
  const run = planRun(options, fleet);
  const config = effectiveConfig(context, { fleet, startsSomething: run.toStart.length > 0 });
  const { secrets, created } = await loadOrCreateSecrets(paths.secretsFile);
  const devKey = config.gatewayApiKeys === undefined ? secrets.gatewayApiKey : undefined;
  if (run.toStart.length === 0) {
    return reportNothingToStart(context, {
      run,
      fleet,
      config,
      devKey,
      foreground: options.foreground,
    });
  }
  announcePlans(context, run);

  if (options.build) {
    const code = await context.buildWorkspace();
    if (code !== 0) return code;
  }
  const services = run.toStart.map((plan) => plan.service);
  try {
    checkEntries(paths, services);
  } catch (error) {
    return reportStartError(context, error);
  }
  await stopBeforeStart(context, { toStart: run.toStart, graceMs: options.graceMs });
  const portOf = await portsAfterStopping(run, { config, fleet });
  try {
    await checkPorts(services, portOf);
  } catch (error) {
    return reportStartError(context, error);
  }

  const startedAt = Date.now();
  if (created) {
    io.stderr.write(
      palette.dim(
        `Generated a dev API key and internal token in ${displayPath(paths, paths.secretsFile)}.\n`,
      ),
    );
  }
  const state = initialState(context.config, fleet?.state);
  try {
    await ensureRedis(context, { config, state, services });
  } catch (error) {
    return reportStartError(context, error);
  }
  // Written before any service starts, so `fleet down` can clean up whatever happens next.
  await writeState(paths.stateFile, state);
  const demoFiles = await prepareDemoFiles(paths);
  const environment = fleetServiceEnvironment(context, {
    config,
    state,
    services,
    ports: fleetPorts(config, fleet),
    secrets,
    paths,
    demoFilesDir: demoFiles.dir,
  });

  const started: Started[] = [];
  const stopStarted = stopperFor({ fresh: run.fresh, state, paths, started });
  const outcomes = await startServices(context, {
    services,
    state,
    environment,
    portOf,
    timeoutMs: options.timeoutMs,
    started,
    stopStarted,
  });
  return finishRun(context, options, {
    run,
    config,
    secrets,
    devKey,
    state,
    started,
    outcomes,
    stopStarted,
    startedAt,
  });
}
