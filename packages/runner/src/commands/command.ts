import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { RunnerConfig } from '../config';
import type { FleetPaths } from '../paths';
import type { ServiceDefinition } from '../services';
import type { CommandIo, Palette } from '../terminal';
import { UsageError } from '../usage-error';

/** What a command runs with. */
export interface CommandContext {
  /** The arguments after the command name. */
  readonly args: readonly string[];
  readonly config: RunnerConfig;
  readonly paths: FleetPaths;
  readonly io: CommandIo;
  /** Colours for stdout. */
  readonly palette: Palette;
  /** Colours for stderr. */
  readonly errorPalette: Palette;
  /** Every service the runner knows. */
  readonly services: readonly ServiceDefinition[];
  /** Aborted by Ctrl-C for commands that handle interrupts. */
  readonly signal: AbortSignal;
  /**
   * Compiles the whole workspace (`tsc -b`), showing progress and the compiler's output;
   * resolves to tsc's exit code. Supplied by `bin/fleet.js`.
   */
  readonly buildWorkspace: () => Promise<number>;
}

/** One `fleet <name>` command. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `fleet <name> --help` text. */
  readonly help: string;
  /**
   * True when Ctrl-C should abort `context.signal` (so the command can clean up) instead of
   * ending the process.
   */
  readonly handlesInterrupt: boolean;
  /** Runs the command; resolves to the exit code. */
  run(context: CommandContext): Promise<number>;
}

/** Options for {@link parseCommandArgs}. */
export interface ParseCommandArgsOptions<TOptions extends NonNullable<ParseArgsConfig['options']>> {
  command: string;
  args: readonly string[];
  options: TOptions;
  /** How many positionals the command takes at most. @default 0 */
  maxPositionals?: number;
}

/**
 * `node:util` `parseArgs` in strict mode; a bad command line becomes a {@link UsageError} that
 * names the command.
 */
export function parseCommandArgs<TOptions extends NonNullable<ParseArgsConfig['options']>>({
  command,
  args,
  options,
  maxPositionals = 0,
}: ParseCommandArgsOptions<TOptions>): {
  values: ReturnType<
    typeof parseArgs<{ options: TOptions; allowPositionals: true; strict: true }>
  >['values'];
  positionals: string[];
} {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(
      `Unexpected argument${parsed.positionals.length - maxPositionals > 1 ? 's' : ''}: ${parsed.positionals.slice(maxPositionals).join(' ')}`,
      command,
    );
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/** Parses a positive number of seconds from an option (`--timeout 60`) into milliseconds. */
export function parseSeconds(
  value: string | undefined,
  { option, command, fallback }: { option: string; command: string; fallback: number },
): number {
  if (value === undefined) return fallback * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(
      `--${option} expects a number of seconds above 0, got "${value}".`,
      command,
    );
  }
  return Math.round(seconds * 1000);
}
