import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FleetError } from '@fleet/errors';
import { loadRunnerConfig, type RunnerConfig } from '../config';
import { DEMO_CORPUS_DIR, demoQuestion, loadDemoCorpus, reportDemoCorpus } from '../demo-corpus';
import { prepareDemoFiles } from '../demo-files';
import { defaultTenant } from '../default-tenant';
import { rejoinEnvironment } from '../fleet-environment';
import { formatLogLine } from '../log-format';
import { followFile, readLastLines } from '../log-tail';
import { displayPath, logFileFor, type FleetPaths } from '../paths';
import { isPortFree } from '../ports';
import { startDetached, stopProcessGroup, type StartedProcess } from '../processes';
import { ProgressBoard } from '../progress-board';
import {
  describeAnswer,
  readReadinessDetails,
  waitForReady,
  type ReadyOutcome,
} from '../readiness';
import { resolveRedis } from '../redis-setup';
import { RAG_AGENT } from '../rag-agent-target';
import { devGatewayApiKeys, DEV_TENANT, loadOrCreateSecrets, type FleetSecrets } from '../secrets';
import { serviceEnvironment, serviceUrl } from '../service-environment';
import {
  checkServiceHealth,
  clearDownService,
  describeDown,
  type ServiceHealth,
} from '../service-health';
import { selectServices, serviceEntry, type ServiceDefinition } from '../services';
import {
  readState,
  removeState,
  writeState,
  type FleetState,
  type ServiceState,
} from '../state-file';
import { isStartedRedisRunning, stopFleet } from '../stop-fleet';
import { formatDuration, padEnd, redactUrl } from '../terminal';
import { UsageError } from '../usage-error';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';

/** How long each service may take to answer /readyz, by default. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** How long a service may take to stop after SIGTERM before SIGKILL, by default. */
export const DEFAULT_GRACE_SECONDS = 10;
const LOG_TAIL_LINES = 40;

const HELP = `Usage: pnpm fleet up [--only <service,...>] [--foreground] [--timeout <seconds>] [--no-build]

Builds the workspace, starts every service as its own process and waits until each answers
GET /readyz. With the RAG agent running, it then loads the demo corpus
(${DEMO_CORPUS_DIR}/) into the tenant of the first key of GATEWAY_API_KEYS, or
"${DEV_TENANT}" (the generated dev key's) when it is unset; files already stored are left as they
are. The tools agent serves .fleet/files/ over MCP (a copy of the demo documents, made on the
first run; reading runs at once, writing asks for approval) unless MCP_SERVERS or
MCP_SERVERS_FILE names your own servers (docs/mcp.md). Then it prints the gateway URL, a dev
API key and working curls. A RAG agent that runs
degraded (full-text search only, e.g. offline on a store of an upstream's embeddings) is named
with its reason.

When the fleet already runs, \`up\` starts only the services that are down (their process is
gone, or it no longer answers GET /healthz: that one is stopped first) and leaves the others
alone, saying which it started and which were already running. A service started into a
running fleet gets the fleet's configuration: its ports, Redis, dev API key, internal token,
the RAG agent's data directory and the environment the fleet started with (variables you set
now are added; ports, keys, token, REDIS_URL and DATABASE_URL stay as the fleet started).
To restart services that still run: pnpm fleet restart <service>.

  --only <names>       start only these services (comma-separated)
  --foreground         stay attached: stream the logs of what this run starts; Ctrl-C stops it
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
  pnpm fleet up --timeout 120
  pnpm fleet up --only planner          bring back the planner after it died`;

/** Why a start-up stopped early, with what to tell the user. */
class StartError extends Error {}

interface Started {
  service: ServiceDefinition;
  process: StartedProcess;
  url: string;
  logFile: string;
}

/** What a run does with one service. */
type Plan =
  /** Not part of the fleet yet (every service of a fresh start). */
  | { kind: 'new'; service: ServiceDefinition }
  /** Running and answering: left alone. */
  | { kind: 'keep'; service: ServiceDefinition; entry: ServiceState }
  /** Down (gone, or not answering /healthz): started again. */
  | { kind: 'revive'; service: ServiceDefinition; entry: ServiceState; health: ServiceHealth }
  /** Running, and `fleet restart` asked for it: stopped, then started again. */
  | { kind: 'restart'; service: ServiceDefinition; entry: ServiceState };

/** The fleet as a run finds it. */
interface LiveFleet {
  state: FleetState;
  /** Health of every service of the state, by name. */
  health: Map<string, ServiceHealth>;
}

/** Options for {@link bringUp}. */
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
const PORT_RELEASE_MS = 5000;

async function waitForFreePort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isPortFree(port)) && Date.now() < deadline) await sleep(50);
}

function listNames(names: readonly string[]): string {
  return names.join(', ');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** One service in the summary: what runs now, and what this run did with it. */
interface SummaryRow {
  service: ServiceDefinition;
  url: string;
  pid: number;
  kind: Plan['kind'];
}

/** The summary's first line: what this run started, what was already running. */
function headline({
  rows,
  fresh,
  elapsedMs,
}: {
  rows: SummaryRow[];
  fresh: boolean;
  elapsedMs: number;
}): string {
  const names = (kind: Plan['kind']): string[] =>
    rows.filter((row) => row.kind === kind).map((row) => row.service.name);
  const kept = names('keep');
  if (fresh) {
    return `The fleet is up: ${plural(rows.length, 'service')} ready in ${formatDuration(elapsedMs)}.`;
  }
  const parts = [
    names('revive').length > 0 ? `restarted ${listNames(names('revive'))}` : '',
    names('new').length > 0 ? `started ${listNames(names('new'))}` : '',
  ].filter((part) => part !== '');
  if (parts.length === 0) {
    return `The fleet is up: ${kept.length === 1 ? 'the service was' : `all ${kept.length} services were`} already running; nothing to start.`;
  }
  return (
    `The fleet is up: ${parts.join('; ')} (ready in ${formatDuration(elapsedMs)})` +
    (kept.length > 0 ? `; already running: ${listNames(kept)}.` : '.')
  );
}

function printSummary(
  context: CommandContext,
  {
    config,
    rows,
    fresh,
    stillDown,
    state,
    elapsedMs,
    devKey,
    demo,
  }: {
    config: RunnerConfig;
    rows: SummaryRow[];
    fresh: boolean;
    /** Services of the fleet this run was not asked about that are down. */
    stillDown: string[];
    state: FleetState;
    elapsedMs: number;
    devKey: string | undefined;
    demo: DemoCorpusOutcome | undefined;
  },
): void {
  const { io, palette, paths } = context;
  const out = (line = ''): void => {
    io.stdout.write(`${line}\n`);
  };
  out();
  out(palette.green(headline({ rows, fresh, elapsedMs })));
  out();
  const width = Math.max(...rows.map((row) => row.service.name.length), 5);
  const note: Record<Plan['kind'], string> = {
    new: 'started',
    revive: 'restarted',
    restart: 'restarted',
    keep: 'already running',
  };
  for (const row of rows) {
    const line = `  ${padEnd(row.service.name, width)}  ${padEnd(row.url, 24)}  pid ${row.pid}`;
    out(fresh ? line : `${padEnd(line, width + 42)}  ${palette.dim(note[row.kind])}`);
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
  if (demo?.degraded !== undefined) {
    out(palette.yellow(`  ${RAG_AGENT} runs degraded, with ${demo.degraded}`));
  }
  if (stillDown.length > 0) {
    out(
      palette.yellow(
        `  Still down: ${listNames(stillDown)} (start ${stillDown.length === 1 ? 'it' : 'them'} with pnpm fleet up).`,
      ),
    );
  }

  const has = (name: string): boolean => rows.some((row) => row.service.name === name);
  const gateway = rows.find((row) => row.service.name === 'gateway');
  if (gateway !== undefined) {
    const key = devKey ?? '<your key>';
    out();
    out(
      `${palette.bold('Gateway')}   ${gateway.url}/v1   (OpenAI-compatible: point any OpenAI SDK's baseURL here)`,
    );
    out(
      `${palette.bold('Console')}   ${gateway.url}/console   (approvals, sessions, documents and memory in the browser; sign in with the key)`,
    );
    out(
      devKey !== undefined
        ? `${palette.bold('API key')}   ${key}   (tenant ${DEV_TENANT}; kept in ${displayPath(paths, paths.secretsFile)})`
        : `${palette.bold('API keys')}  from GATEWAY_API_KEYS (use the key part of one key:tenant pair${demo?.tenant === undefined ? '' : `; the demo corpus is in tenant ${demo.tenant}, the first key's`})`,
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
    const orchestrated = !online && has('orchestrator');
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
    if (has(RAG_AGENT)) {
      out(
        `  curl -s ${gateway.url}/v1/documents -H "Authorization: Bearer ${key}" -F file=@report.pdf`,
      );
    }
    if (has('tools-agent') && has('orchestrator')) {
      out(
        palette.dim(
          '  # the agents and their skills, MCP tools included (which ones ask for approval: docs/mcp.md):',
        ),
      );
      out(`  curl -s ${gateway.url}/v1/agents -H "Authorization: Bearer ${key}"`);
    }
    if (demo?.question !== undefined && has('orchestrator')) {
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
    for (const line of documentsLines(demo, palette)) out(line);
  }
  out();
  out(
    `${palette.bold('Logs')}      pnpm fleet logs -f   (one service: pnpm fleet logs gateway -f; files in ${displayPath(paths, paths.logsDir)}/)`,
  );
  out(`${palette.bold('Status')}    pnpm fleet status`);
  out(`${palette.bold('Restart')}   pnpm fleet restart <service>`);
  out(`${palette.bold('Stop')}      pnpm fleet down`);
}

/** The summary's Documents lines: the demo corpus, files that failed, how to add more. */
function documentsLines(demo: DemoCorpusOutcome, palette: CommandContext['palette']): string[] {
  return [
    `${palette.bold('Documents')} ${demo.line}`,
    ...demo.warnings.map((warning) => `          ${palette.yellow(warning)}`),
    `          more: pnpm fleet ingest <files or directories> [--tenant ${demo.tenant ?? DEV_TENANT}]`,
  ];
}

/** What `fleet restart` prints: each service with its old and new pid. */
function printRestartReport(
  context: CommandContext,
  {
    plans,
    started,
    elapsedMs,
    others,
  }: { plans: Plan[]; started: Started[]; elapsedMs: number; others: number },
): void {
  const { io, palette } = context;
  const width = Math.max(...plans.map((plan) => plan.service.name.length), 5);
  io.stdout.write(
    `\n${palette.green(
      `Restarted ${plural(started.length, 'service')} in ${formatDuration(elapsedMs)}` +
        (others > 0 ? `; the other ${plural(others, 'service')} kept running.` : '.'),
    )}\n\n`,
  );
  for (const plan of plans) {
    const entry = started.find((each) => each.service === plan.service);
    if (entry === undefined) continue;
    const previous =
      plan.kind === 'restart'
        ? `pid ${plan.entry.pid} → ${entry.process.pid}`
        : plan.kind === 'revive'
          ? `pid ${plan.entry.pid} (was down) → ${entry.process.pid}`
          : `pid ${entry.process.pid} (was not running)`;
    io.stdout.write(
      `  ${padEnd(plan.service.name, width)}  ${padEnd(entry.url, 24)}  ${previous}  ${palette.green('ready')}\n`,
    );
  }
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

async function streamForeground(
  context: CommandContext,
  started: Started[],
  stops: string,
): Promise<void> {
  const { io, palette, signal } = context;
  const width = Math.max(...started.map((entry) => entry.service.name.length));
  const colours = [palette.cyan, palette.magenta, palette.blue, palette.yellow, palette.green];
  io.stdout.write(`\n${palette.dim(`Streaming logs; Ctrl-C stops ${stops}.`)}\n`);
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
  /** Files that failed (one line per reason), or why nothing could be loaded. */
  warnings: string[];
  /** An example question about the corpus, when it was loaded. */
  question: string | undefined;
  /** The tenant it went into, when known. */
  tenant: string | undefined;
  /** Why the RAG agent runs degraded (its `/readyz` says so), if it does. */
  degraded: string | undefined;
}

/**
 * Loads the demo corpus into the first configured key's tenant (`defaultTenant`) once the RAG
 * agent is ready, and reads whether the agent runs degraded. A failure is reported, never fatal:
 * the fleet is up either way.
 */
async function seedDemoCorpus(
  context: CommandContext,
  { config, started, secrets }: { config: RunnerConfig; started: Started[]; secrets: FleetSecrets },
): Promise<DemoCorpusOutcome | undefined> {
  const { io, palette, signal } = context;
  const agent = started.find((entry) => entry.service.name === RAG_AGENT);
  if (agent === undefined) return undefined;
  const degraded = (await readReadinessDetails({ url: agent.url }))?.degraded['embeddings'];
  let tenant: string | undefined;
  try {
    const chosen = defaultTenant(config.gatewayApiKeys);
    tenant = chosen.tenant;
    io.stderr.write(
      palette.dim(
        `Loading the demo corpus into tenant ${tenant}${chosen.source === 'GATEWAY_API_KEYS' ? " (the first GATEWAY_API_KEYS key's)" : ''}…\n`,
      ),
    );
    const result = await loadDemoCorpus({
      root: config.root,
      target: { url: agent.url, token: config.internalToken ?? secrets.internalToken },
      tenant,
      signal,
    });
    if (result === undefined) {
      // No corpus in this checkout: only a degraded agent is worth a line.
      return degraded === undefined
        ? undefined
        : { line: 'no demo corpus to load', warnings: [], question: undefined, tenant, degraded };
    }
    return {
      ...reportDemoCorpus({ result, tenant, degraded }),
      question:
        result.summary.ingested + result.summary.duplicate > 0
          ? await demoQuestion(config.root)
          : undefined,
      tenant,
      degraded,
    };
  } catch (error) {
    return {
      line: 'demo corpus not loaded',
      warnings: [error instanceof Error ? error.message : String(error)],
      question: undefined,
      tenant,
      degraded,
    };
  }
}

/**
 * Reads the state and checks each service's health. `undefined` when there is no state, or
 * nothing of it runs (no service process, no redis-server of the runner's).
 */
async function inspectFleet(paths: FleetPaths): Promise<LiveFleet | undefined> {
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
 * Starts services and waits until they are ready: a whole fleet, or — when a fleet already
 * runs — the services that are down (and, for `restart`, the running ones named), with the
 * running fleet's configuration. Resolves to the exit code.
 */
export async function bringUp(context: CommandContext, options: BringUpOptions): Promise<number> {
  const { config, io, paths, palette, errorPalette, signal } = context;
  const { command, timeoutMs, graceMs } = options;
  const fail = (error: unknown): number => {
    if (error instanceof StartError || FleetError.isInstance(error)) {
      io.stderr.write(`${errorPalette.red(error.message)}\n`);
      return 1;
    }
    throw error;
  };

  let fleet: LiveFleet | undefined;
  try {
    fleet = await inspectFleet(paths);
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
  } catch (error) {
    return fail(error);
  }
  if (fleet === undefined && (await readState(paths.stateFile)) !== undefined) {
    // Left over from a run that ended without `fleet down` (crash, reboot): nothing of it runs.
    await removeState(paths.stateFile);
    io.stderr.write(
      `Cleared a stale ${displayPath(paths, paths.stateFile)} (nothing of it was running).\n`,
    );
  }
  const fresh = fleet === undefined;
  const selected =
    options.all === true && fleet !== undefined
      ? options.services.filter((service) =>
          fleet.state.services.some((entry) => entry.name === service.name),
        )
      : options.services;
  const plans = planServices(selected, fleet, command);
  const toStart = plans.filter((plan) => plan.kind !== 'keep');
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

  // The configuration: the caller's, or the running fleet's updated by the caller's.
  let effective = config;
  if (fleet !== undefined) {
    const rejoined = rejoinEnvironment({
      recorded: fleet.state.environment,
      current: config.environment,
      services: context.services,
    });
    effective = {
      ...loadRunnerConfig({ services: context.services, environment: rejoined.environment }),
      root: config.root,
      cwd: config.cwd,
    };
    if (rejoined.ignored.length > 0 && toStart.length > 0) {
      io.stderr.write(
        palette.yellow(
          `Ignoring ${listNames(rejoined.ignored)}: the running fleet keeps the value it started with ` +
            '(to change it: pnpm fleet down, then pnpm fleet up).\n',
        ),
      );
    }
  }
  const { secrets, created } = await loadOrCreateSecrets(paths.secretsFile);
  const devKey = effective.gatewayApiKeys === undefined ? secrets.gatewayApiKey : undefined;

  if (toStart.length === 0) {
    const rows = plans.flatMap((plan) =>
      plan.kind === 'keep'
        ? [{ service: plan.service, url: plan.entry.url, pid: plan.entry.pid, kind: plan.kind }]
        : [],
    );
    printSummary(context, {
      config: effective,
      rows,
      fresh: false,
      stillDown,
      state: fleet?.state ?? { version: 1, startedAt: '', services: [] },
      elapsedMs: 0,
      devKey,
      demo: undefined,
    });
    if (options.foreground) {
      io.stderr.write(
        palette.dim(
          'Nothing started, so nothing to stream: follow the logs with pnpm fleet logs -f\n',
        ),
      );
    }
    return 0;
  }
  for (const plan of plans) {
    if (plan.kind === 'revive') {
      io.stderr.write(
        `${palette.yellow(`${plan.service.name} is down`)} (${describeDown(plan.entry, plan.health)}): starting it again.\n`,
      );
    }
  }
  const kept = plans.filter((plan) => plan.kind === 'keep').map((plan) => plan.service.name);
  if (kept.length > 0) io.stderr.write(palette.dim(`Already running: ${listNames(kept)}.\n`));

  if (options.build) {
    const code = await context.buildWorkspace();
    if (code !== 0) return code;
  }
  const services = toStart.map((plan) => plan.service);
  try {
    checkEntries(paths, services);
  } catch (error) {
    return fail(error);
  }

  // Stop what is to be started again: restarted services gracefully, hung ones too.
  await Promise.all(
    toStart.map(async (plan) => {
      if (plan.kind === 'revive') {
        await clearDownService(plan.entry, plan.health, { graceMs });
      } else if (plan.kind === 'restart') {
        io.stderr.write(`Stopping ${plan.service.name} (pid ${plan.entry.pid})…\n`);
        const outcome = await stopProcessGroup({ pid: plan.entry.pid, graceMs });
        io.stderr.write(
          outcome === 'killed'
            ? palette.yellow(
                `  killed ${plan.service.name} (pid ${plan.entry.pid}): it did not stop within ${formatDuration(graceMs)} after SIGTERM\n`,
              )
            : `  ${outcome === 'stopped' ? 'stopped' : 'was not running:'} ${plan.service.name} (pid ${plan.entry.pid})\n`,
        );
      }
    }),
  );

  // A service of the fleet keeps its port; a new one gets the configured port.
  const ports: Record<string, number> = { ...effective.ports };
  for (const entry of fleet?.state.services ?? []) ports[entry.name] = entry.port;
  const portOf = (service: ServiceDefinition): number => ports[service.name] ?? service.defaultPort;
  // A process whose main thread has exited can hold its socket a moment longer while its other
  // threads end: give the ports of what was just stopped a moment to be released.
  await Promise.all(
    toStart
      .filter((plan) => plan.kind === 'restart' || plan.kind === 'revive')
      .map((plan) => waitForFreePort(portOf(plan.service), PORT_RELEASE_MS)),
  );
  try {
    await checkPorts(services, portOf);
  } catch (error) {
    return fail(error);
  }

  const startedAt = Date.now();
  if (created) {
    io.stderr.write(
      palette.dim(
        `Generated a dev API key and internal token in ${displayPath(paths, paths.secretsFile)}.\n`,
      ),
    );
  }

  const state: FleetState = fleet?.state ?? {
    version: 1,
    startedAt: new Date().toISOString(),
    services: [],
    environment: config.environment,
  };
  const needsRedis = services.some((service) => service.needs.includes('redis'));
  if (needsRedis && state.redis === undefined) {
    try {
      state.redis = await resolveRedis({
        redisUrl: effective.redisUrl,
        localRedisUrl: effective.localRedisUrl,
        redisServerBinary: effective.redisServerBinary,
        dataDir: paths.redisDir,
        logFile: logFileFor(paths, 'redis'),
        env: effective.environment,
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
  const demoFiles = await prepareDemoFiles(paths);

  // Every service of the fleet once this run is done: the discoverable ones are AGENT_URLS.
  const members = context.services.filter(
    (service) =>
      services.includes(service) || state.services.some((entry) => entry.name === service.name),
  );
  const environment = serviceEnvironment({
    base: effective.environment,
    services: context.services,
    running: members,
    ports,
    fleet: {
      REDIS_URL: state.redis?.url,
      GATEWAY_API_KEYS: devGatewayApiKeys(secrets),
      FLEET_INTERNAL_TOKEN: secrets.internalToken,
      // The RAG agent's embedded PostgreSQL (used without DATABASE_URL) lives with the rest.
      RAG_DATA_DIR: paths.ragDataDir,
      // The tools agent's built-in filesystem server serves a copy of the demo documents, unless
      // the caller configured MCP servers (MCP_SERVERS or MCP_SERVERS_FILE win in the agent).
      TOOLS_AGENT_FILESYSTEM_DIR: demoFiles.dir,
    },
  });

  const started: Started[] = [];
  /** A fresh fleet is stopped whole; into a running fleet, only what this run started. */
  const stopStarted = async (): Promise<void> => {
    if (fresh) {
      await stopFleet({ state, graceMs: 10_000 });
      await removeState(paths.stateFile);
      return;
    }
    // Their entries stay: `status` shows them down and `up` starts them again.
    await Promise.all(
      started.map((entry) => stopProcessGroup({ pid: entry.process.pid, graceMs: 10_000 })),
    );
  };
  const launch = async (service: ServiceDefinition): Promise<Started> => {
    const port = portOf(service);
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
  };

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
      await stopStarted();
      throw error;
    }
    outcomes.push(...(await Promise.all(launched.map(waitFor))));
  }
  signal.removeEventListener('abort', onAbort);
  board.stop();

  const whatStops = fresh ? 'the fleet' : listNames(started.map((entry) => entry.service.name));
  if (signal.aborted) {
    io.stderr.write(`Interrupted: stopping ${fresh ? 'what was started' : whatStops}…\n`);
    await stopStarted();
    return 130;
  }
  const failures = outcomes.filter(
    ({ outcome }) => outcome.state !== 'ready' && outcome.state !== 'aborted',
  );
  if (failures.length > 0) {
    for (const failure of failures) await printFailure(context, { ...failure, timeoutMs });
    io.stderr.write(
      `\nStopping ${whatStops}${fresh ? '' : ' (the rest of the fleet keeps running)'}…\n`,
    );
    await stopStarted();
    io.stderr.write(
      `Fix the problem above and run \`pnpm fleet ${command === 'up' ? 'up' : `restart ${listNames(services.map((service) => service.name))}`}\` again (full logs: ${displayPath(paths, paths.logsDir)}/).\n`,
    );
    return 1;
  }

  const elapsedMs = Date.now() - startedAt;
  if (command === 'restart') {
    printRestartReport(context, {
      plans: toStart,
      started,
      elapsedMs,
      others: state.services.length - started.length,
    });
    return 0;
  }
  const demo = await seedDemoCorpus(context, { config: effective, started, secrets });
  if (signal.aborted) {
    io.stderr.write(`Interrupted: stopping ${fresh ? 'what was started' : whatStops}…\n`);
    await stopStarted();
    return 130;
  }
  const rows: SummaryRow[] = context.services.flatMap((service) => {
    const plan = plans.find((each) => each.service === service);
    const launched = started.find((entry) => entry.service === service);
    if (plan === undefined) return [];
    if (launched !== undefined) {
      return [{ service, url: launched.url, pid: launched.process.pid, kind: plan.kind }];
    }
    return plan.kind === 'keep'
      ? [{ service, url: plan.entry.url, pid: plan.entry.pid, kind: plan.kind }]
      : [];
  });
  printSummary(context, {
    config: effective,
    rows,
    fresh,
    stillDown,
    state,
    elapsedMs,
    devKey,
    demo,
  });
  if (!options.foreground) return 0;

  await streamForeground(
    context,
    started,
    fresh ? 'the fleet' : `what this run started (${whatStops})`,
  );
  io.stderr.write(`\nStopping ${whatStops}…\n`);
  await stopStarted();
  io.stderr.write('Stopped.\n');
  return 0;
}

async function run(context: CommandContext): Promise<number> {
  const { args } = context;
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
    throw new UsageError(unknownServices(context.services, selection.unknown), 'up');
  }
  return bringUp(context, {
    command: 'up',
    services: selection.services,
    timeoutMs,
    graceMs: DEFAULT_GRACE_SECONDS * 1000,
    build: !values['no-build'],
    foreground: values.foreground,
  });
}

/** The message for service names the runner does not know, listing the ones it does. */
export function unknownServices(
  services: readonly ServiceDefinition[],
  unknown: readonly string[],
): string {
  return (
    `Unknown service${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. ` +
    `Known: ${services.map((service) => service.name).join(', ')}.`
  );
}

/** `fleet up`: build, start what is not running, wait until ready, print how to use it. */
export const upCommand: Command = {
  name: 'up',
  summary: 'Build and start the fleet (or the services that are down), wait until ready',
  help: HELP,
  handlesInterrupt: true,
  run,
};
