import { displayPath } from '../paths';
import { describeAnswer, probeReadyz, readReadinessDetails } from '../readiness';
import { pingRedis } from '../redis-ping';
import { readState } from '../state-file';
import { isServiceRunning, isStartedRedisRunning } from '../stop-fleet';
import { redactUrl, renderTable } from '../terminal';
import { parseCommandArgs, type Command, type CommandContext } from './command';

const HELP = `Usage: pnpm fleet status

Shows every service \`pnpm fleet up\` started: pid, port, URL, whether the process is alive and
what GET /readyz answers, plus the fleet's Redis and whether it answers PING. A service whose
process is gone shows as DOWN, with how to bring it back; one that runs degraded (the RAG agent
with full-text search only) shows 200 degraded, with the reason below the table (\`pnpm fleet up\` starts only what is
down; \`pnpm fleet restart <service>\` restarts one that runs but is stuck).
Exits 0 when everything is healthy, 1 otherwise (a service down or not ready, Redis not
answering, or nothing running), so scripts can wait on it.

  -h, --help  show this help

Examples:
  pnpm fleet status
  until pnpm fleet status >/dev/null; do sleep 1; done`;

async function run(context: CommandContext): Promise<number> {
  const { args, io, paths, palette } = context;
  parseCommandArgs({ command: 'status', args, options: {} });
  // An unreadable state file is a FleetError: the CLI reports it and exits 1.
  const state = await readState(paths.stateFile);
  if (state === undefined) {
    io.stdout.write('The fleet is not running. Start it with `pnpm fleet up`.\n');
    return 1;
  }

  let healthy = true;
  const down: string[] = [];
  const notReady: string[] = [];
  const degraded: string[] = [];
  const rows = await Promise.all(
    state.services.map(async (service) => {
      const alive = isServiceRunning(service);
      const answer = alive ? await probeReadyz({ url: service.url, timeoutMs: 2000 }) : undefined;
      const ready = answer !== undefined && 'status' in answer && answer.status === 200;
      if (!ready) healthy = false;
      if (!alive) down.push(service.name);
      else if (!ready) notReady.push(service.name);
      const reasons = ready
        ? Object.values((await readReadinessDetails({ url: service.url }))?.degraded ?? {})
        : [];
      for (const reason of reasons) degraded.push(`${service.name} runs degraded, with ${reason}`);
      return [
        alive ? palette.bold(service.name) : palette.red(palette.bold(service.name)),
        alive ? String(service.pid) : palette.red(`${service.pid} (gone)`),
        String(service.port),
        service.url,
        alive ? palette.green('yes') : palette.red('no'),
        !alive
          ? palette.red('DOWN')
          : ready
            ? reasons.length > 0
              ? palette.yellow('200 degraded')
              : palette.green('200 ready')
            : palette.red(describeAnswer(answer)),
      ];
    }),
  );
  const redis = state.redis;
  if (redis !== undefined) {
    const processAlive = redis.source !== 'started' || isStartedRedisRunning(redis);
    const ping = processAlive ? await pingRedis({ url: redis.url, timeoutMs: 2000 }) : undefined;
    if (ping?.ok !== true) healthy = false;
    const source =
      redis.source === 'env' ? 'REDIS_URL' : redis.source === 'local' ? 'reused' : 'started';
    rows.push([
      palette.bold('redis'),
      redis.pid === undefined ? '-' : String(redis.pid),
      redis.port === undefined ? '-' : String(redis.port),
      `${redactUrl(redis.url)} (${source})`,
      redis.source !== 'started'
        ? palette.dim('-')
        : processAlive
          ? palette.green('yes')
          : palette.red('no'),
      ping === undefined
        ? palette.dim('-')
        : ping.ok
          ? palette.green('PONG')
          : palette.red(ping.reason),
    ]);
  }
  io.stdout.write(
    `${renderTable({ headers: ['SERVICE', 'PID', 'PORT', 'URL', 'ALIVE', 'READY'].map((header) => palette.dim(header)), rows })}\n\n`,
  );
  for (const line of degraded) io.stdout.write(`${palette.yellow(line)}\n`);
  const names = (list: string[]): string => list.join(' ');
  if (down.length > 0) {
    io.stdout.write(
      `${palette.red(`Down: ${down.join(', ')}`)} (${down.length === 1 ? 'its process is' : 'their processes are'} gone). ` +
        `Start ${down.length === 1 ? 'it' : 'them'} again: pnpm fleet up (or pnpm fleet up --only ${down.join(',')}).\n`,
    );
  }
  if (notReady.length > 0) {
    io.stdout.write(
      `${palette.red(`Not ready: ${notReady.join(', ')}`)}` +
        (down.length > 0
          ? ` (${notReady.length === 1 ? 'it may be waiting' : 'they may be waiting'} for ${down.join(', ')}).\n`
          : `. If ${notReady.length === 1 ? 'it stays so' : 'they stay so'}: pnpm fleet restart ${names(notReady)}\n`),
    );
  }
  io.stdout.write(
    healthy
      ? `${palette.green('Healthy.')} Started ${state.startedAt}.\n`
      : `${palette.red('Not healthy.')} Look at the logs: pnpm fleet logs <service> (files in ${displayPath(paths, paths.logsDir)}/).\n`,
  );
  return healthy ? 0 : 1;
}

/** `fleet status`: what runs and whether it is ready. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'Show each service: pid, port, URL, alive, /readyz; and Redis',
  help: HELP,
  handlesInterrupt: false,
  run,
};
