import { DEMO_CORPUS_DIR } from '../demo-corpus';
import { DEV_TENANT } from '../secrets';
import { selectServices, type ServiceDefinition } from '../services';
import { UsageError } from '../usage-error';
import { bringUp } from './bring-up/bring-up';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';

export { bringUp } from './bring-up/bring-up';
export type { BringUpOptions } from './bring-up/plan';

/** How long each service may take to answer /readyz, by default. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** How long a service may take to stop after SIGTERM before SIGKILL, by default. */
export const DEFAULT_GRACE_SECONDS = 10;

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
