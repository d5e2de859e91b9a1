import path from 'node:path';
import { formatLogLine } from '../../log-format';
import { readLastLines } from '../../log-tail';
import { displayPath, logFileFor } from '../../paths';
import { startDetached, type StartedProcess } from '../../processes';
import { ProgressBoard } from '../../progress-board';
import { describeAnswer, waitForReady, type ReadyOutcome } from '../../readiness';
import { serviceUrl } from '../../service-environment';
import { serviceEntry, type ServiceDefinition } from '../../services';
import { writeState, type FleetState, type ServiceState } from '../../state-file';
import { formatDuration } from '../../terminal';
import type { CommandContext } from '../command';

const LOG_TAIL_LINES = 40;

/** A service this run started: its process, URL and log file. */
export interface Started {
  service: ServiceDefinition;
  process: StartedProcess;
  url: string;
  logFile: string;
}

/** How a started service's wait for readiness ended. */
export interface StartOutcome {
  entry: Started;
  outcome: ReadyOutcome;
}

/** What {@link startServices} needs to launch the services and wait for them. */
export interface LaunchSettings {
  /** The services to start, in table order. */
  services: ServiceDefinition[];
  /** The fleet's state: each launched service is recorded in it (and written) at once. */
  state: FleetState;
  /** The environment every service starts with. */
  environment: Record<string, string>;
  portOf: (service: ServiceDefinition) => number;
  timeoutMs: number;
  /** Filled with each service as it is launched. */
  started: Started[];
  /** Stops what was started when launching fails half-way. */
  stopStarted: () => Promise<void>;
}

/** How a wait for /readyz ended, in words. */
export function describeOutcome(outcome: ReadyOutcome, timeoutMs: number): string {
  switch (outcome.state) {
    case 'ready':
      return 'ready';
    case 'exited':
      return outcome.exit.signal !== null
        ? `exited (killed by ${outcome.exit.signal})`
        : `exited with code ${String(outcome.exit.code)}`;
    case 'timeout':
      return `not ready after ${formatDuration(timeoutMs)} (last /readyz: ${describeAnswer(outcome.last)})`;
    case 'aborted':
      return 'interrupted';
  }
}

/** Starts one service as a detached process and records it in the state file. */
async function launch(
  context: CommandContext,
  settings: LaunchSettings,
  service: ServiceDefinition,
): Promise<Started> {
  const { paths } = context;
  const { state, environment, started } = settings;
  const port = settings.portOf(service);
  const logFile = logFileFor(paths, service.name);
  const entry = serviceEntry(service);
  const child = await startDetached({
    command: process.execPath,
    args: ['--enable-source-maps', path.join(paths.root, entry)],
    cwd: path.join(paths.root, service.packageDir),
    env: environment,
    logFile,
  });
  const url = serviceUrl(port);
  const launched = { service, process: child, url, logFile };
  started.push(launched);
  const record: ServiceState = {
    name: service.name,
    pid: child.pid,
    port,
    url,
    entry,
    logFile,
    logOffset: child.logOffset,
  };
  const index = state.services.findIndex((each) => each.name === service.name);
  if (index === -1) state.services.push(record);
  else state.services[index] = record;
  await writeState(paths.stateFile, state);
  return launched;
}

/** Waits for one started service's /readyz, showing progress; a failure aborts `waiting`. */
async function waitFor(
  entry: Started,
  {
    board,
    waiting,
    timeoutMs,
  }: { board: ProgressBoard; waiting: AbortController; timeoutMs: number },
): Promise<StartOutcome> {
  const outcome = await waitForReady({
    url: entry.url,
    timeoutMs,
    exitInfo: entry.process.exitInfo,
    signal: waiting.signal,
    onProbe: (answer) =>
      board.update(entry.service.name, 'waiting', `/readyz: ${describeAnswer(answer)}`),
  });
  board.update(
    entry.service.name,
    outcome.state === 'ready' ? 'ready' : 'failed',
    outcome.state === 'ready'
      ? `${entry.url}/readyz answered 200`
      : describeOutcome(outcome, timeoutMs),
  );
  // One failure is enough: stop waiting for the rest.
  if (outcome.state !== 'ready') waiting.abort();
  return { entry, outcome };
}

/**
 * Starts the services and waits until each answers /readyz, showing progress: first those that
 * do not read the agents' cards at boot, then those that do. Stops waiting at the first failure
 * or on Ctrl-C; a launch that throws stops what was started and rethrows.
 */
export async function startServices(
  context: CommandContext,
  settings: LaunchSettings,
): Promise<StartOutcome[]> {
  const { io, errorPalette, signal } = context;
  const { services, timeoutMs } = settings;
  io.stderr.write(
    `Waiting for ${services.length === 1 ? `the ${services[0]?.name ?? 'service'}` : `${services.length} services`} to answer /readyz…\n`,
  );
  const board = new ProgressBoard({
    stream: io.stderr,
    names: services.map((service) => service.name),
    palette: errorPalette,
  });
  // Services that read the agents' cards at boot start once the agents answer, so they find them.
  const later = services.filter((service) => service.startsAfterAgents === true);
  const phases = [services.filter((service) => service.startsAfterAgents !== true), later];
  for (const service of later) {
    board.update(service.name, 'waiting', 'starts once the agents are ready');
  }
  const waiting = new AbortController();
  const onAbort = (): void => waiting.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const outcomes: StartOutcome[] = [];
  for (const phase of phases) {
    if (phase.length === 0 || waiting.signal.aborted) continue;
    const launched: Started[] = [];
    try {
      for (const service of phase) launched.push(await launch(context, settings, service));
    } catch (error) {
      // Nothing half-started stays behind.
      board.stop();
      await settings.stopStarted();
      throw error;
    }
    outcomes.push(
      ...(await Promise.all(
        launched.map((entry) => waitFor(entry, { board, waiting, timeoutMs })),
      )),
    );
  }
  signal.removeEventListener('abort', onAbort);
  board.stop();
  return outcomes;
}

/** Says why a service did not become ready, with the last lines of its log. */
export async function printFailure(
  context: CommandContext,
  { entry, outcome, timeoutMs }: StartOutcome & { timeoutMs: number },
): Promise<void> {
  const { io, errorPalette, paths } = context;
  io.stderr.write(
    `\n${errorPalette.red(`✖ ${entry.service.name} ${describeOutcome(outcome, timeoutMs)}.`)}\n`,
  );
  const lines = await readLastLines({
    file: entry.logFile,
    count: LOG_TAIL_LINES,
    from: entry.process.logOffset,
  });
  if (lines.length === 0) {
    io.stderr.write(`  (${displayPath(paths, entry.logFile)} is empty)\n`);
    return;
  }
  io.stderr.write(
    `  Last ${lines.length} line${lines.length === 1 ? '' : 's'} of ${displayPath(paths, entry.logFile)}:\n`,
  );
  for (const line of lines) {
    io.stderr.write(
      `  ${errorPalette.dim('│')} ${formatLogLine({ line, color: errorPalette.enabled })}\n`,
    );
  }
}
