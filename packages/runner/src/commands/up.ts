import { existsSync } from 'node:fs';
import path from 'node:path';
import { FleetError } from '@fleet/errors';
import {
  DEMO_CORPUS_DIR,
  demoQuestion,
  loadDemoCorpus,
  type DemoCorpusResult,
} from '../demo-corpus';
import { describeSummary } from '../ingest-progress';
import { formatLogLine } from '../log-format';
import { followFile, readLastLines } from '../log-tail';
import { displayPath, logFileFor, type FleetPaths } from '../paths';
import { isPortFree } from '../ports';
import { startDetached, type StartedProcess } from '../processes';
import { ProgressBoard } from '../progress-board';
import { describeAnswer, waitForReady, type ReadyOutcome } from '../readiness';
import { resolveRedis } from '../redis-setup';
import { RAG_AGENT } from '../rag-agent-target';
import { devGatewayApiKeys, DEV_TENANT, loadOrCreateSecrets, type FleetSecrets } from '../secrets';
import { serviceEnvironment, serviceUrl } from '../service-environment';
import { selectServices, serviceEntry, type ServiceDefinition } from '../services';
import { readState, removeState, writeState, type FleetState } from '../state-file';
import { isServiceRunning, isStartedRedisRunning, stopFleet } from '../stop-fleet';
import { formatDuration, padEnd, redactUrl } from '../terminal';
import { UsageError } from '../usage-error';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';

const DEFAULT_TIMEOUT_SECONDS = 60;
const LOG_TAIL_LINES = 40;

const HELP = `Usage: pnpm fleet up [--only <service,...>] [--foreground] [--timeout <seconds>] [--no-build]

Builds the workspace, starts every service as its own process and waits until each answers
GET /readyz. With the RAG agent running, it then loads the demo corpus
(${DEMO_CORPUS_DIR}/) into tenant "${DEV_TENANT}" (files already stored are left as they are).
Then it prints the gateway URL, a dev API key and working curls.

  --only <names>       start only these services (comma-separated)
  --foreground         stay attached: stream every log here; Ctrl-C stops the fleet
  --timeout <seconds>  how long each service may take to become ready (default ${DEFAULT_TIMEOUT_SECONDS})
  --no-build           start what is already compiled (skip \`tsc -b\` of the workspace)
  -h, --help           show this help

Your environment passes through to every service, so one variable configures the whole fleet:
  OPENAI_API_KEY=sk-... pnpm fleet up                           use OpenAI
  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 pnpm fleet up      use Ollama (any OpenAI-compatible server)
  GATEWAY_PORT=9080 pnpm fleet up                               move a service to another port

Redis: REDIS_URL if set; otherwise a Redis answering at redis://127.0.0.1:6379; otherwise the
runner starts redis-server on a free port (no persistence) and stops it on \`fleet down\`.
Secrets: without GATEWAY_API_KEYS / FLEET_INTERNAL_TOKEN a dev key (tenant "${DEV_TENANT}") and a token
are generated once into .fleet/secrets.json. Logs go to .fleet/logs/<service>.log. Without
DATABASE_URL the RAG agent keeps an embedded PostgreSQL in .fleet/rag-pglite/.

Examples:
  pnpm fleet up
  pnpm fleet up --only gateway --foreground
  pnpm fleet up --timeout 120`;

/** Why a start-up stopped early, with what to tell the user. */
class StartError extends Error {}

interface Started {
  service: ServiceDefinition;
  process: StartedProcess;
  url: string;
  logFile: string;
}

function describeOutcome(outcome: ReadyOutcome, timeoutMs: number): string {
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

async function refuseIfRunning(context: CommandContext): Promise<void> {
  const { paths, io } = context;
  const state = await readState(paths.stateFile);
  if (state === undefined) return;
  const live = state.services.filter(isServiceRunning);
  if (live.length > 0) {
    const list = live.map((service) => `${service.name} (pid ${service.pid}, ${service.url})`);
    throw new StartError(
      `The fleet is already running: ${list.join(', ')}.\n` +
        'See it with `pnpm fleet status`, or stop it first with `pnpm fleet down`.',
    );
  }
  // Left over from a run that ended without `fleet down` (crash, reboot): clean it up.
  if (isStartedRedisRunning(state.redis)) await stopFleet({ state, graceMs: 2000 });
  await removeState(paths.stateFile);
  io.stderr.write(
    `Cleared a stale ${displayPath(paths, paths.stateFile)} (nothing of it was running).\n`,
  );
}

function checkEntries(paths: FleetPaths, services: readonly ServiceDefinition[]): void {
  const missing = services.filter(
    (service) => !existsSync(path.join(paths.root, serviceEntry(service))),
  );
  if (missing.length === 0) return;
  throw new StartError(
    `Not built: ${missing.map(serviceEntry).join(', ')}.\n` +
      'Run `pnpm build` (or start the fleet with `pnpm fleet up`, which builds first).',
  );
}

async function checkPorts(
  context: CommandContext,
  services: readonly ServiceDefinition[],
): Promise<void> {
  const { config } = context;
  const byPort = new Map<number, ServiceDefinition>();
  const problems: string[] = [];
  for (const service of services) {
    const port = config.ports[service.name] ?? service.defaultPort;
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

function printSummary(
  context: CommandContext,
  {
    started,
    state,
    elapsedMs,
    devKey,
    demo,
  }: {
    started: Started[];
    state: FleetState;
    elapsedMs: number;
    devKey: string | undefined;
    demo: DemoCorpusOutcome | undefined;
  },
): void {
  const { config, io, palette, paths } = context;
  const out = (line = ''): void => {
    io.stdout.write(`${line}\n`);
  };
  out();
  out(
    palette.green(
      `The fleet is up: ${started.length} service${started.length === 1 ? '' : 's'} ready in ${formatDuration(elapsedMs)}.`,
    ),
  );
  out();
  const width = Math.max(...started.map((entry) => entry.service.name.length), 5);
  // In the table's order, whatever order they were started in.
  const listed = [...started].sort(
    (a, b) => context.services.indexOf(a.service) - context.services.indexOf(b.service),
  );
  for (const entry of listed) {
    out(
      `  ${padEnd(entry.service.name, width)}  ${padEnd(entry.url, 24)}  pid ${entry.process.pid}`,
    );
  }
  if (state.redis !== undefined) {
    const source =
      state.redis.source === 'env'
        ? 'REDIS_URL'
        : state.redis.source === 'local'
          ? 'already running here'
          : `started by the runner, pid ${String(state.redis.pid)}`;
    out(`  ${padEnd('redis', width)}  ${padEnd(redactUrl(state.redis.url), 24)}  ${source}`);
  }

  const gateway = started.find((entry) => entry.service.name === 'gateway');
  if (gateway !== undefined) {
    const key = devKey ?? '<your key>';
    out();
    out(
      `${palette.bold('Gateway')}   ${gateway.url}/v1   (OpenAI-compatible: point any OpenAI SDK's baseURL here)`,
    );
    out(
      devKey !== undefined
        ? `${palette.bold('API key')}   ${key}   (tenant ${DEV_TENANT}; kept in ${displayPath(paths, paths.secretsFile)})`
        : `${palette.bold('API keys')}  from GATEWAY_API_KEYS (use the key part of one key:tenant pair)`,
    );
    const online = config.openaiApiKey !== undefined || config.openaiBaseUrl !== undefined;
    if (online) {
      const upstream = config.openaiBaseUrl ?? 'https://api.openai.com/v1';
      out(`${palette.bold('Upstream')}  ${upstream}   (model ${config.llmModel})`);
    } else {
      out(
        `${palette.bold('Upstream')}  ${palette.yellow('none: offline mode')} (passthrough and reasoning answer 503 until an upstream is set).`,
      );
      out('          To use a model: pnpm fleet down && OPENAI_API_KEY=sk-... pnpm fleet up');
      out(
        '          or any OpenAI-compatible server: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 pnpm fleet up',
      );
    }
    const orchestrated = !online && started.some((entry) => entry.service.name === 'orchestrator');
    out();
    out(palette.bold('Try it:'));
    out(`  curl -s ${gateway.url}/v1/models -H "Authorization: Bearer ${key}"`);
    // Offline, a greeting has no agent to go to: the demo-corpus question below is the example.
    if (!orchestrated || demo?.question === undefined) {
      out(`  curl -s ${gateway.url}/v1/chat/completions -H "Authorization: Bearer ${key}" \\`);
      out(
        `    -H 'Content-Type: application/json'${orchestrated ? " -H 'X-Routing-Mode: orchestration'" : ''} \\`,
      );
      out(
        `    -d '{"model":"${config.llmModel}","messages":[{"role":"user","content":"Say hello in one sentence."}]}'`,
      );
    }
    const ragAgent = started.some((entry) => entry.service.name === RAG_AGENT);
    if (ragAgent) {
      out(
        `  curl -s ${gateway.url}/v1/documents -H "Authorization: Bearer ${key}" -F file=@report.pdf`,
      );
    }
    if (
      demo?.question !== undefined &&
      started.some((entry) => entry.service.name === 'orchestrator')
    ) {
      const body = JSON.stringify({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: demo.question }],
      });
      out(
        palette.dim(
          '  # a question about the demo corpus, answered by the RAG agent with citations:',
        ),
      );
      out(`  curl -s ${gateway.url}/v1/chat/completions -H "Authorization: Bearer ${key}" \\`);
      out(`    -H 'Content-Type: application/json' -H 'X-Routing-Mode: orchestration' \\`);
      out(`    -d '${body.replaceAll("'", "'\\''")}'`);
    }
  }
  if (demo !== undefined) {
    out();
    out(`${palette.bold('Documents')} ${demo.line}`);
    for (const warning of demo.warnings) out(`          ${palette.yellow(warning)}`);
    out(`          more: pnpm fleet ingest <files or directories> [--tenant ${DEV_TENANT}]`);
  }
  out();
  out(
    `${palette.bold('Logs')}      pnpm fleet logs -f   (one service: pnpm fleet logs gateway -f; files in ${displayPath(paths, paths.logsDir)}/)`,
  );
  out(`${palette.bold('Status')}    pnpm fleet status`);
  out(`${palette.bold('Stop')}      pnpm fleet down`);
}

async function printFailure(
  context: CommandContext,
  { entry, outcome, timeoutMs }: { entry: Started; outcome: ReadyOutcome; timeoutMs: number },
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

async function streamForeground(context: CommandContext, started: Started[]): Promise<void> {
  const { io, palette, signal } = context;
  const width = Math.max(...started.map((entry) => entry.service.name.length));
  const colours = [palette.cyan, palette.magenta, palette.blue, palette.yellow, palette.green];
  io.stdout.write(`\n${palette.dim('Streaming logs; Ctrl-C stops the fleet.')}\n`);
  for (const entry of started) {
    void entry.process.exited.then((exit) => {
      if (signal.aborted) return;
      io.stderr.write(
        `${palette.red(`${entry.service.name} exited`)} (${exit.signal ?? `code ${String(exit.code)}`}); the others keep running.\n`,
      );
    });
  }
  await Promise.all(
    started.map((entry, index) => {
      const colour = colours[index % colours.length] ?? palette.cyan;
      const prefix = `${colour(padEnd(entry.service.name, width))} ${palette.dim('|')} `;
      return followFile({
        file: entry.logFile,
        from: entry.process.logOffset,
        signal,
        onLine: (line) => {
          io.stdout.write(`${prefix}${formatLogLine({ line, color: palette.enabled })}\n`);
        },
      });
    }),
  );
}

/** What `up` reports about the demo corpus. */
interface DemoCorpusOutcome {
  /** One line: how many documents, new or unchanged, in which tenant. */
  line: string;
  /** Files that failed, or why nothing could be loaded. */
  warnings: string[];
  /** An example question about the corpus, when it was loaded. */
  question: string | undefined;
}

function describeDemo(result: DemoCorpusResult): DemoCorpusOutcome['line'] {
  return `demo corpus (${DEMO_CORPUS_DIR}/): ${result.files} file${result.files === 1 ? '' : 's'} in tenant ${DEV_TENANT}, ${describeSummary(result.summary)}`;
}

/**
 * Loads the demo corpus into the dev tenant once the RAG agent is ready. A failure is reported,
 * never fatal: the fleet is up either way.
 */
async function seedDemoCorpus(
  context: CommandContext,
  { started, secrets }: { started: Started[]; secrets: FleetSecrets },
): Promise<DemoCorpusOutcome | undefined> {
  const { config, io, palette, signal } = context;
  const agent = started.find((entry) => entry.service.name === RAG_AGENT);
  if (agent === undefined) return undefined;
  io.stderr.write(palette.dim(`Loading the demo corpus into tenant ${DEV_TENANT}…\n`));
  try {
    const result = await loadDemoCorpus({
      root: config.root,
      target: { url: agent.url, token: config.internalToken ?? secrets.internalToken },
      tenant: DEV_TENANT,
      signal,
    });
    if (result === undefined) return undefined;
    return {
      line: describeDemo(result),
      warnings: result.failures.map(
        (failure) => `${path.basename(failure.file)}: ${failure.error}`,
      ),
      question:
        result.summary.ingested + result.summary.duplicate > 0
          ? await demoQuestion(config.root)
          : undefined,
    };
  } catch (error) {
    return {
      line: 'demo corpus not loaded',
      warnings: [error instanceof Error ? error.message : String(error)],
      question: undefined,
    };
  }
}

async function run(context: CommandContext): Promise<number> {
  const { args, config, io, paths, palette, errorPalette, signal } = context;
  const { values } = parseCommandArgs({
    command: 'up',
    args,
    options: {
      only: { type: 'string' },
      foreground: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
    },
  });
  const timeoutMs = parseSeconds(values.timeout, {
    option: 'timeout',
    command: 'up',
    fallback: DEFAULT_TIMEOUT_SECONDS,
  });
  const only = values.only
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const selection = selectServices({ services: context.services, only });
  if (!selection.success) {
    throw new UsageError(
      `Unknown service${selection.unknown.length > 1 ? 's' : ''}: ${selection.unknown.join(', ')}. ` +
        `Known: ${context.services.map((service) => service.name).join(', ')}.`,
      'up',
    );
  }
  const services = selection.services;
  const fail = (error: unknown): number => {
    if (error instanceof StartError || FleetError.isInstance(error)) {
      io.stderr.write(`${errorPalette.red(error.message)}\n`);
      return 1;
    }
    throw error;
  };

  try {
    await refuseIfRunning(context);
  } catch (error) {
    return fail(error);
  }
  if (!values['no-build']) {
    const code = await context.buildWorkspace();
    if (code !== 0) return code;
  }
  try {
    checkEntries(paths, services);
    await checkPorts(context, services);
  } catch (error) {
    return fail(error);
  }

  const startedAt = Date.now();
  const { secrets, created } = await loadOrCreateSecrets(paths.secretsFile);
  if (created) {
    io.stderr.write(
      palette.dim(
        `Generated a dev API key and internal token in ${displayPath(paths, paths.secretsFile)}.\n`,
      ),
    );
  }

  const state: FleetState = { version: 1, startedAt: new Date().toISOString(), services: [] };
  const needsRedis = services.some((service) => service.needs.includes('redis'));
  if (needsRedis) {
    try {
      state.redis = await resolveRedis({
        redisUrl: config.redisUrl,
        localRedisUrl: config.localRedisUrl,
        redisServerBinary: config.redisServerBinary,
        dataDir: paths.redisDir,
        logFile: logFileFor(paths, 'redis'),
        env: config.environment,
      });
    } catch (error) {
      return fail(error);
    }
    if (state.redis.source === 'started') {
      io.stderr.write(
        palette.dim(
          `Started redis-server on ${state.redis.url} (no persistence; stopped by fleet down).\n`,
        ),
      );
    }
  }
  // Written before any service starts, so `fleet down` can clean up whatever happens next.
  await writeState(paths.stateFile, state);

  const environment = serviceEnvironment({
    base: config.environment,
    services: context.services,
    running: services,
    ports: config.ports,
    fleet: {
      REDIS_URL: state.redis?.url,
      GATEWAY_API_KEYS: devGatewayApiKeys(secrets),
      FLEET_INTERNAL_TOKEN: secrets.internalToken,
      // The RAG agent's embedded PostgreSQL (used without DATABASE_URL) lives with the rest.
      RAG_DATA_DIR: paths.ragDataDir,
    },
  });

  const started: Started[] = [];
  const stopAll = async (): Promise<void> => {
    await stopFleet({ state, graceMs: 10_000 });
    await removeState(paths.stateFile);
  };
  const launch = async (service: ServiceDefinition): Promise<Started> => {
    const port = config.ports[service.name] ?? service.defaultPort;
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
    state.services.push({
      name: service.name,
      pid: child.pid,
      port,
      url,
      entry,
      logFile,
      logOffset: child.logOffset,
    });
    await writeState(paths.stateFile, state);
    return launched;
  };

  io.stderr.write(
    `Waiting for ${services.length === 1 ? 'the service' : `${services.length} services`} to answer /readyz…\n`,
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
  const waitFor = async (entry: Started) => {
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
  };
  const outcomes: Awaited<ReturnType<typeof waitFor>>[] = [];
  for (const phase of phases) {
    if (phase.length === 0 || waiting.signal.aborted) continue;
    const launched: Started[] = [];
    try {
      for (const service of phase) launched.push(await launch(service));
    } catch (error) {
      // Nothing half-started stays behind.
      board.stop();
      await stopAll();
      throw error;
    }
    outcomes.push(...(await Promise.all(launched.map(waitFor))));
  }
  signal.removeEventListener('abort', onAbort);
  board.stop();

  if (signal.aborted) {
    io.stderr.write('Interrupted: stopping what was started…\n');
    await stopAll();
    return 130;
  }
  const failures = outcomes.filter(
    ({ outcome }) => outcome.state !== 'ready' && outcome.state !== 'aborted',
  );
  if (failures.length > 0) {
    for (const failure of failures) await printFailure(context, { ...failure, timeoutMs });
    io.stderr.write(`\nStopping the fleet…\n`);
    await stopAll();
    io.stderr.write(
      `Fix the problem above and run \`pnpm fleet up\` again (full logs: ${displayPath(paths, paths.logsDir)}/).\n`,
    );
    return 1;
  }

  const elapsedMs = Date.now() - startedAt;
  const demo = await seedDemoCorpus(context, { started, secrets });
  if (signal.aborted) {
    io.stderr.write('Interrupted: stopping what was started…\n');
    await stopAll();
    return 130;
  }
  printSummary(context, {
    started,
    state,
    elapsedMs,
    devKey: config.gatewayApiKeys === undefined ? secrets.gatewayApiKey : undefined,
    demo,
  });
  if (!values.foreground) return 0;

  await streamForeground(context, started);
  io.stderr.write('\nStopping the fleet…\n');
  await stopAll();
  io.stderr.write('Stopped.\n');
  return 0;
}

/** `fleet up`: build, start, wait until ready, print how to use it. */
export const upCommand: Command = {
  name: 'up',
  summary: 'Build and start the fleet, wait until every service is ready',
  help: HELP,
  handlesInterrupt: true,
  run,
};
