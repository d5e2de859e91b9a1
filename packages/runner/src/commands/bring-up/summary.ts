import type { RunnerConfig } from '../../config';
import { displayPath } from '../../paths';
import { RAG_AGENT } from '../../rag-agent-target';
import { DEV_TENANT } from '../../secrets';
import type { ServiceDefinition } from '../../services';
import type { FleetState } from '../../state-file';
import { formatDuration, padEnd, redactUrl } from '../../terminal';
import type { CommandContext } from '../command';
import type { DemoCorpusOutcome } from './demo-corpus-seed';
import type { Started } from './launch';
import type { Plan } from './plan';
import { listNames, plural } from './words';

/** One service in the summary: what runs now, and what this run did with it. */
export interface SummaryRow {
  service: ServiceDefinition;
  url: string;
  pid: number;
  kind: Plan['kind'];
}

/** What the summary after `up` shows. */
export interface Summary {
  config: RunnerConfig;
  rows: SummaryRow[];
  fresh: boolean;
  /** Services of the fleet this run was not asked about that are down. */
  stillDown: string[];
  state: FleetState;
  elapsedMs: number;
  devKey: string | undefined;
  demo: DemoCorpusOutcome | undefined;
}

type Palette = CommandContext['palette'];
type Write = (line?: string) => void;

/** The gateway's row and what the usage lines need to know. */
interface GatewayUsage {
  gateway: SummaryRow;
  config: RunnerConfig;
  /** The dev API key, or a placeholder when keys come from GATEWAY_API_KEYS. */
  key: string;
  devKey: string | undefined;
  demo: DemoCorpusOutcome | undefined;
  /** Whether the summary lists the named service. */
  has: (name: string) => boolean;
}

/** The summary's first line: what this run started, what was already running. */
function headline({ rows, fresh, elapsedMs }: Summary): string {
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

/** The table of services (and Redis), with what is degraded or still down. */
function printServiceTable(out: Write, palette: Palette, summary: Summary): void {
  const { rows, fresh, state, demo, stillDown } = summary;
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
}

/** Where the gateway and console are, which key to use, and which upstream answers. */
function printGatewayLines(out: Write, context: CommandContext, usage: GatewayUsage): void {
  const { palette, paths } = context;
  const { gateway, config, key, devKey, demo } = usage;
  out();
  out(
    `${palette.bold('Gateway')}   ${gateway.url}/v1   (OpenAI-compatible: point any OpenAI SDK's baseURL here)`,
  );
  out(
    `${palette.bold('Console')}   ${gateway.url}/console   (approvals, sessions, documents and memory in the browser; sign in with the key)`,
  );
  if (config.environment['GATEWAY_MCP_ENABLED'] !== 'false') {
    out(
      `${palette.bold('MCP')}       ${gateway.url}/mcp   (for MCP clients: Streamable HTTP, the key as a bearer token; docs/mcp.md)`,
    );
  }
  out(
    devKey !== undefined
      ? `${palette.bold('API key')}   ${key}   (tenant ${DEV_TENANT}; kept in ${displayPath(paths, paths.secretsFile)})`
      : `${palette.bold('API keys')}  from GATEWAY_API_KEYS (use the key part of one key:tenant pair${demo?.tenant === undefined ? '' : `; the demo corpus is in tenant ${demo.tenant}, the first key's`})`,
  );
  if (isOnline(config)) {
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
}

function isOnline(config: RunnerConfig): boolean {
  return config.openaiApiKey !== undefined || config.openaiBaseUrl !== undefined;
}

/** Working curls against the gateway, for the services that run. */
function printTryIt(out: Write, palette: Palette, usage: GatewayUsage): void {
  const { gateway, config, key, demo, has } = usage;
  const orchestrated = !isOnline(config) && has('orchestrator');
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

/** The commands to follow logs, see status, restart and stop. */
function printManagementLines(out: Write, context: CommandContext): void {
  const { palette, paths } = context;
  out();
  out(
    `${palette.bold('Logs')}      pnpm fleet logs -f   (one service: pnpm fleet logs gateway -f; files in ${displayPath(paths, paths.logsDir)}/)`,
  );
  out(`${palette.bold('Status')}    pnpm fleet status`);
  out(`${palette.bold('Restart')}   pnpm fleet restart <service>`);
  out(`${palette.bold('Stop')}      pnpm fleet down`);
}

/** What `fleet up` prints once the fleet is up: its services, how to use it, how to manage it. */
export function printSummary(context: CommandContext, summary: Summary): void {
  const { io, palette } = context;
  const { rows, config, devKey, demo } = summary;
  const out: Write = (line = '') => {
    io.stdout.write(`${line}\n`);
  };
  out();
  out(palette.green(headline(summary)));
  out();
  printServiceTable(out, palette, summary);
  const gateway = rows.find((row) => row.service.name === 'gateway');
  if (gateway !== undefined) {
    const usage: GatewayUsage = {
      gateway,
      config,
      key: devKey ?? '<your key>',
      devKey,
      demo,
      has: (name) => rows.some((row) => row.service.name === name),
    };
    printGatewayLines(out, context, usage);
    printTryIt(out, palette, usage);
  }
  if (demo !== undefined) {
    out();
    for (const line of documentsLines(demo, palette)) out(line);
  }
  printManagementLines(out, context);
}

/** The summary's Documents lines: the demo corpus, files that failed, how to add more. */
function documentsLines(demo: DemoCorpusOutcome, palette: Palette): string[] {
  return [
    `${palette.bold('Documents')} ${demo.line}`,
    ...demo.warnings.map((warning) => `          ${palette.yellow(warning)}`),
    `          more: pnpm fleet ingest <files or directories> [--tenant ${demo.tenant ?? DEV_TENANT}]`,
  ];
}

/**
 * The summary's rows: every service the run was about, in table order, with the process this
 * run started for it or the one that kept running.
 */
export function summaryRows(
  context: CommandContext,
  { plans, started }: { plans: Plan[]; started: Started[] },
): SummaryRow[] {
  return context.services.flatMap((service) => {
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
}

/** What `fleet restart` prints: each service with its old and new pid. */
export function printRestartReport(
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
