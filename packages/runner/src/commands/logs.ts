import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { formatLogLine } from '../log-format';
import { followFile, readLastLines } from '../log-tail';
import { displayPath, logFileFor } from '../paths';
import { padEnd } from '../terminal';
import { UsageError } from '../usage-error';
import { parseCommandArgs, type Command, type CommandContext } from './command';

const DEFAULT_LINES = 50;

const HELP = `Usage: pnpm fleet logs [service...] [-f|--follow] [-n <lines>] [--json]

Shows the end of each service's log (.fleet/logs/<service>.log). JSON log lines are shown as
"time LEVEL service message key=value"; --json prints them as written. With several services
every line is prefixed with the service's name. \`redis\` is the log of a redis-server the
runner started. Logs stay after \`pnpm fleet down\`.

  -f, --follow       keep printing new lines until Ctrl-C
  -n, --lines <n>    how many lines per service to show first (default ${DEFAULT_LINES})
  --json             print the raw JSON lines
  -h, --help         show this help

Examples:
  pnpm fleet logs
  pnpm fleet logs gateway -f
  pnpm fleet logs gateway -n 200 --json | jq .`;

async function run(context: CommandContext): Promise<number> {
  const { args, io, paths, palette, errorPalette, signal } = context;
  const { values, positionals } = parseCommandArgs({
    command: 'logs',
    args,
    options: {
      follow: { type: 'boolean', short: 'f', default: false },
      lines: { type: 'string', short: 'n' },
      json: { type: 'boolean', default: false },
    },
    maxPositionals: Number.POSITIVE_INFINITY,
  });
  const count = values.lines === undefined ? DEFAULT_LINES : Number(values.lines);
  if (!Number.isInteger(count) || count < 0) {
    throw new UsageError(
      `-n expects a whole number of lines, got "${values.lines ?? ''}".`,
      'logs',
    );
  }
  const known = [...context.services.map((service) => service.name), 'redis'];
  const unknown = positionals.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown service: ${unknown.join(', ')}. Known: ${known.join(', ')}.`,
      'logs',
    );
  }
  const names =
    positionals.length > 0
      ? positionals
      : context.services
          .map((service) => service.name)
          .filter((name) => existsSync(logFileFor(paths, name)));
  const missing = names.filter((name) => !existsSync(logFileFor(paths, name)));
  if (names.length === 0 || (missing.length > 0 && !values.follow)) {
    const which = missing.length > 0 ? `for ${missing.join(', ')} ` : '';
    io.stderr.write(
      errorPalette.red(
        `No logs ${which}yet (${displayPath(paths, paths.logsDir)}/). Start the fleet with \`pnpm fleet up\`.\n`,
      ),
    );
    return 1;
  }

  const width = Math.max(...names.map((name) => name.length));
  const colours = [palette.cyan, palette.magenta, palette.blue, palette.yellow, palette.green];
  const printer = (name: string, index: number): ((line: string) => void) => {
    const colour = colours[index % colours.length] ?? palette.cyan;
    const prefix = names.length > 1 ? `${colour(padEnd(name, width))} ${palette.dim('|')} ` : '';
    return (line) => {
      const text = values.json ? line : formatLogLine({ line, color: palette.enabled });
      io.stdout.write(`${prefix}${text}\n`);
    };
  };

  const sizes: number[] = [];
  for (const [index, name] of names.entries()) {
    const file = logFileFor(paths, name);
    const print = printer(name, index);
    const size = existsSync(file) ? (await stat(file)).size : 0;
    sizes.push(size);
    for (const line of await readLastLines({ file, count, until: size })) print(line);
  }
  if (!values.follow) return 0;

  await Promise.all(
    names.map((name, index) =>
      followFile({
        file: logFileFor(paths, name),
        from: sizes[index] ?? 0,
        signal,
        onLine: printer(name, index),
      }),
    ),
  );
  return 0;
}

/** `fleet logs`: tail (and follow) service logs, pretty-printed. */
export const logsCommand: Command = {
  name: 'logs',
  summary: 'Show or follow service logs (pretty-printed JSON)',
  help: HELP,
  handlesInterrupt: true,
  run,
};
