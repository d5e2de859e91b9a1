/** The `pnpm fleet` command line: parses the command, loads config, runs it. */
import { FleetError } from '@fleet/errors';
import { downCommand } from './commands/down';
import { renderHelp } from './commands/help';
import { ingestCommand } from './commands/ingest';
import { logsCommand } from './commands/logs';
import { migrateRedisCommand } from './commands/migrate-redis';
import { restartCommand } from './commands/restart';
import { statusCommand } from './commands/status';
import { upCommand } from './commands/up';
import type { Command } from './commands/command';
import { colourAllowed, loadRunnerConfig } from './config';
import { fleetPaths } from './paths';
import { SERVICES, type ServiceDefinition } from './services';
import { createPalette, type OutputStream } from './terminal';
import { UsageError } from './usage-error';
import type { Environment } from '@fleet/config';

/** Every command, in the order help lists them. */
export const COMMANDS: readonly Command[] = [
  upCommand,
  downCommand,
  restartCommand,
  statusCommand,
  logsCommand,
  ingestCommand,
  migrateRedisCommand,
];

/** Options for {@link runCli}. */
export interface RunCliOptions {
  /** The arguments after `fleet`. */
  argv: readonly string[];
  /** @default process.env (read in config.ts) */
  environment?: Environment;
  /** @default process.stdout */
  stdout?: OutputStream;
  /** @default process.stderr */
  stderr?: OutputStream;
  /** The services to know about. @default SERVICES */
  services?: readonly ServiceDefinition[];
  /** Aborts long-running commands (`up --foreground`, `logs -f`), as Ctrl-C does. */
  signal?: AbortSignal;
  /**
   * Compiles the workspace before `up` starts services; resolves to the compiler's exit code.
   * @default nothing to build (resolves 0)
   */
  buildWorkspace?: () => Promise<number>;
}

function isHelpFlag(arg: string | undefined): boolean {
  return arg === '--help' || arg === '-h';
}

/** Looks a command up by name. */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}

/**
 * Runs one `fleet` command line and resolves to its exit code: 0 success, 1 failure, 2 a bad
 * command line. Never calls `process.exit`.
 *
 * @example
 * const code = await runCli({ argv: ['status'] });
 */
export async function runCli({
  argv,
  environment,
  stdout = process.stdout,
  stderr = process.stderr,
  services = SERVICES,
  signal = new AbortController().signal,
  buildWorkspace = () => Promise.resolve(0),
}: RunCliOptions): Promise<number> {
  const [name, ...args] = argv;
  // Colours before the config is loaded (help needs none): off when NO_COLOR is set.
  const colour = colourAllowed(environment);
  const palette = createPalette(stdout.isTTY === true && colour);
  const errorPalette = createPalette(stderr.isTTY === true && colour);
  const help = (): string => `${renderHelp({ commands: COMMANDS, services, palette })}\n`;

  if (name === undefined || name === 'help' || isHelpFlag(name)) {
    const topic = name === 'help' ? args[0] : undefined;
    const command = topic === undefined ? undefined : findCommand(topic);
    if (topic !== undefined && command === undefined) {
      stderr.write(`Unknown command: ${topic}\n\n${help()}`);
      return 2;
    }
    stdout.write(command === undefined ? help() : `${command.help}\n`);
    return 0;
  }
  const command = findCommand(name);
  if (command === undefined) {
    stderr.write(`${errorPalette.red(`Unknown command: ${name}`)}\n\n${help()}`);
    return 2;
  }
  if (args.some(isHelpFlag)) {
    stdout.write(`${command.help}\n`);
    return 0;
  }

  try {
    const config = loadRunnerConfig(
      environment === undefined ? { services } : { services, environment },
    );
    return await command.run({
      args,
      config,
      paths: fleetPaths(config.root),
      io: { stdout, stderr },
      palette,
      errorPalette,
      services,
      signal,
      buildWorkspace,
    });
  } catch (error) {
    if (error instanceof UsageError) {
      stderr.write(
        `${errorPalette.red(error.message)}\nSee: pnpm fleet ${error.command ?? command.name} --help\n`,
      );
      return 2;
    }
    if (FleetError.isInstance(error)) {
      stderr.write(`${errorPalette.red(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}

/** Options for {@link main}. */
export interface MainOptions {
  /** @default process.argv.slice(2) */
  argv?: readonly string[];
  /** See {@link RunCliOptions.buildWorkspace}. */
  buildWorkspace?: () => Promise<number>;
}

/**
 * The process entry (`bin/fleet.js` calls it): runs the command line, turns Ctrl-C into an abort
 * for commands that clean up after themselves, and sets the exit code.
 */
export function main({ argv = process.argv.slice(2), buildWorkspace }: MainOptions = {}): void {
  const controller = new AbortController();
  // `pnpm fleet logs | head` closes the pipe early: stop quietly instead of crashing.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      controller.abort();
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
  const command = findCommand(argv[0] ?? '');
  if (command?.handlesInterrupt === true) {
    let interrupts = 0;
    const onInterrupt = (): void => {
      interrupts += 1;
      // A second Ctrl-C means "now": leave whatever is still stopping.
      if (interrupts > 1) process.exit(130);
      controller.abort();
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
  }
  runCli({
    argv,
    signal: controller.signal,
    ...(buildWorkspace === undefined ? {} : { buildWorkspace }),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `fleet: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
