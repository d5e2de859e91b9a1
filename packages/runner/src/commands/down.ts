import { displayPath } from '../paths';
import { readState, removeState } from '../state-file';
import { stopFleet, type StopReport } from '../stop-fleet';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';

const DEFAULT_GRACE_SECONDS = 10;

const HELP = `Usage: pnpm fleet down [--grace <seconds>]

Stops what \`pnpm fleet up\` started: each service gets SIGTERM (to its whole process group)
and up to --grace seconds to shut down gracefully before SIGKILL. A redis-server the runner
started is stopped too; a Redis it only reused is left alone. Safe to run when nothing runs.

  --grace <seconds>  shutdown time before SIGKILL (default ${DEFAULT_GRACE_SECONDS})
  -h, --help         show this help

Examples:
  pnpm fleet down
  pnpm fleet down --grace 30`;

function describe(report: StopReport): string {
  switch (report.outcome) {
    case 'stopped':
      return `stopped ${report.name} (pid ${report.pid})`;
    case 'killed':
      return `killed ${report.name} (pid ${report.pid}): it did not stop in time after SIGTERM`;
    case 'not-running':
      return `${report.name} (pid ${report.pid}) was not running`;
  }
}

async function run(context: CommandContext): Promise<number> {
  const { args, io, paths, palette } = context;
  const { values } = parseCommandArgs({
    command: 'down',
    args,
    options: { grace: { type: 'string' } },
  });
  const graceMs = parseSeconds(values.grace, {
    option: 'grace',
    command: 'down',
    fallback: DEFAULT_GRACE_SECONDS,
  });
  // An unreadable state file is a FleetError: the CLI reports it and exits 1.
  const state = await readState(paths.stateFile);
  if (state === undefined) {
    io.stdout.write('Nothing is running.\n');
    return 0;
  }
  const total = state.services.length + (state.redis?.source === 'started' ? 1 : 0);
  if (total > 0) io.stdout.write(`Stopping ${total} process${total === 1 ? '' : 'es'}…\n`);
  const reports = await stopFleet({
    state,
    graceMs,
    onStopped: (report) => {
      const line = describe(report);
      io.stdout.write(
        `  ${report.outcome === 'killed' ? palette.yellow(line) : report.outcome === 'stopped' ? palette.green(line) : palette.dim(line)}\n`,
      );
    },
  });
  await removeState(paths.stateFile);
  const stopped = reports.filter((report) => report.outcome !== 'not-running').length;
  io.stdout.write(
    stopped === 0
      ? `Nothing was running; cleared ${displayPath(paths, paths.stateFile)}.\n`
      : 'The fleet is stopped.\n',
  );
  return 0;
}

/** `fleet down`: stop everything `fleet up` started and clear the state. */
export const downCommand: Command = {
  name: 'down',
  summary: 'Stop every service (and a redis-server the runner started)',
  help: HELP,
  handlesInterrupt: false,
  run,
};
