import { selectServices } from '../services';
import { UsageError } from '../usage-error';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';
import { bringUp, DEFAULT_GRACE_SECONDS, DEFAULT_TIMEOUT_SECONDS, unknownServices } from './up';

const HELP = `Usage: pnpm fleet restart [service...] [--grace <seconds>] [--timeout <seconds>] [--no-build]

Restarts services of the running fleet, the others keep running: each named service gets
SIGTERM (to its process group) and up to --grace seconds to stop before SIGKILL, then starts
again with the fleet's configuration (its port, Redis, dev API key, internal token, the RAG
agent's data directory and the environment the fleet started with; variables you set now are
added, fleet-wide ones stay) and is waited for until GET /readyz answers. A named service that
is down is just started. No service named: every service of the fleet.
It builds the workspace first, so a restart picks up code changes; a failed build stops nothing.
Exits 0 when every restarted service is ready, 1 when one is not (or the fleet is not running),
2 for an unknown service.

  --grace <seconds>    shutdown time before SIGKILL (default ${DEFAULT_GRACE_SECONDS})
  --timeout <seconds>  how long each service may take to become ready (default ${DEFAULT_TIMEOUT_SECONDS})
  --no-build           start what is already compiled (skip \`tsc -b\` of the workspace)
  -h, --help           show this help

Examples:
  pnpm fleet restart planner
  pnpm fleet restart rag-agent web-agent --grace 30
  LOG_LEVEL=debug pnpm fleet restart gateway
  pnpm fleet restart`;

async function run(context: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    command: 'restart',
    args: context.args,
    options: {
      grace: { type: 'string' },
      timeout: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
    },
    maxPositionals: Number.POSITIVE_INFINITY,
  });
  const names = positionals.flatMap((name) =>
    name
      .split(',')
      .map((each) => each.trim())
      .filter((each) => each !== ''),
  );
  const selection = selectServices({ services: context.services, only: names });
  if (!selection.success) {
    throw new UsageError(unknownServices(context.services, selection.unknown), 'restart');
  }
  const graceMs = parseSeconds(values.grace, {
    option: 'grace',
    command: 'restart',
    fallback: DEFAULT_GRACE_SECONDS,
  });
  const timeoutMs = parseSeconds(values.timeout, {
    option: 'timeout',
    command: 'restart',
    fallback: DEFAULT_TIMEOUT_SECONDS,
  });
  return bringUp(context, {
    command: 'restart',
    services: selection.services,
    timeoutMs,
    graceMs,
    build: !values['no-build'],
    foreground: false,
    all: names.length === 0,
  });
}

/** `fleet restart`: stop and start services of the running fleet, one or all. */
export const restartCommand: Command = {
  name: 'restart',
  summary: 'Restart services (stop gracefully, start with the same configuration)',
  help: HELP,
  handlesInterrupt: true,
  run,
};
