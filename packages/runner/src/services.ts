/**
 * The services the local runner knows how to start. Adding a service to the fleet is one entry
 * here: the runner derives its port, URL, log file and readiness check from it.
 */

/** Infrastructure a service needs before it boots. */
export type Infrastructure = 'redis' | 'postgres';

/** One fleet service, as the runner starts it. */
export interface ServiceDefinition {
  /** Short name used on the command line and in logs: `gateway`, `rag-agent`. */
  readonly name: string;
  /** The workspace package directory, relative to the repository root. */
  readonly packageDir: string;
  /** The variable that sets its listen port, e.g. `GATEWAY_PORT` (docs/architecture.md §11). */
  readonly portVariable: string;
  /** The port it listens on when `portVariable` is unset. */
  readonly defaultPort: number;
  /**
   * The variable through which the other services find this one, e.g. `ORCHESTRATOR_URL`. The
   * runner sets it for every service it starts (unless the caller set it) to this service's
   * local URL.
   */
  readonly urlVariable: string;
  /**
   * The variable naming the base URL the service's own Agent Card announces
   * (`<PREFIX>_PUBLIC_URL`), for services that serve A2A. The runner sets it to the same local URL
   * as `urlVariable` (unless the caller set it).
   */
  readonly publicUrlVariable?: string;
  /** Infrastructure it needs: `redis` is started or reused by the runner; `postgres` is
   * `DATABASE_URL` when set, otherwise the service embeds its own (docs/architecture.md §7). */
  readonly needs: readonly Infrastructure[];
  /** True for A2A agents the orchestrator discovers: their URLs go into `AGENT_URLS`. */
  readonly discoverable: boolean;
  /**
   * True for services that read the discoverable agents' cards when they boot (the orchestrator):
   * `fleet up` starts them once the agents answer `/readyz`, so none is missed. @default false
   */
  readonly startsAfterAgents?: boolean;
}

/**
 * Every service of the fleet, in start order. A service's compiled entry is
 * `<packageDir>/dist/main.js`; it answers `GET /readyz` once its dependencies answer.
 */
export const SERVICES: readonly ServiceDefinition[] = [
  {
    name: 'gateway',
    packageDir: 'services/gateway',
    portVariable: 'GATEWAY_PORT',
    defaultPort: 8080,
    urlVariable: 'GATEWAY_URL',
    // Sessions and approvals live in Redis (docs/architecture.md §6); any gateway replica reads them.
    needs: ['redis'],
    discoverable: false,
  },
  {
    name: 'orchestrator',
    packageDir: 'services/orchestrator',
    portVariable: 'ORCHESTRATOR_PORT',
    defaultPort: 8081,
    urlVariable: 'ORCHESTRATOR_URL',
    publicUrlVariable: 'ORCHESTRATOR_PUBLIC_URL',
    // Sessions, locks, the card cache and its A2A task store.
    needs: ['redis'],
    discoverable: false,
    // It reads the agents' cards at boot and drops those that do not answer until its next
    // refresh (CARD_CACHE_TTL_SECONDS): start it once they are ready.
    startsAfterAgents: true,
  },
  {
    name: 'planner',
    packageDir: 'services/planner',
    portVariable: 'PLANNER_PORT',
    defaultPort: 8082,
    urlVariable: 'PLANNER_URL',
    publicUrlVariable: 'PLANNER_PUBLIC_URL',
    // Its A2A task store.
    needs: ['redis'],
    discoverable: false,
  },
  {
    name: 'rag-agent',
    packageDir: 'services/rag-agent',
    portVariable: 'RAG_AGENT_PORT',
    defaultPort: 8083,
    urlVariable: 'RAG_AGENT_URL',
    publicUrlVariable: 'RAG_AGENT_PUBLIC_URL',
    // Its A2A task store; documents and chunks in PostgreSQL with pgvector (DATABASE_URL, or an
    // embedded PostgreSQL under .fleet/ when it is unset).
    needs: ['redis', 'postgres'],
    discoverable: true,
  },
  {
    name: 'web-agent',
    packageDir: 'services/web-agent',
    portVariable: 'WEB_AGENT_PORT',
    defaultPort: 8084,
    urlVariable: 'WEB_AGENT_URL',
    publicUrlVariable: 'WEB_AGENT_PUBLIC_URL',
    // Its A2A task store. Searching needs a provider (WEB_SEARCH_PROVIDER, TAVILY_API_KEY or
    // SEARXNG_URL, passed through from the caller's environment); without one it still reads pages.
    needs: ['redis'],
    discoverable: true,
  },
  {
    name: 'mail-agent',
    packageDir: 'services/mail-agent',
    portVariable: 'MAIL_AGENT_PORT',
    defaultPort: 8085,
    urlVariable: 'MAIL_AGENT_URL',
    publicUrlVariable: 'MAIL_AGENT_PUBLIC_URL',
    // Its A2A task store. A mailbox comes from MAIL_IMAP_HOST, MAIL_SMTP_HOST, MAIL_USER and
    // MAIL_PASSWORD (or MAIL_OAUTH2_ACCESS_TOKEN); without one its tasks fail saying so.
    needs: ['redis'],
    discoverable: true,
  },
  {
    name: 'code-agent',
    packageDir: 'services/code-agent',
    portVariable: 'CODE_AGENT_PORT',
    defaultPort: 8086,
    urlVariable: 'CODE_AGENT_URL',
    publicUrlVariable: 'CODE_AGENT_PUBLIC_URL',
    // Its A2A task store. Runs Python under bubblewrap (apt-get install bubblewrap); without it the
    // agent starts but refuses to run code and says why.
    needs: ['redis'],
    discoverable: true,
  },
  {
    name: 'reasoning-agent',
    packageDir: 'services/reasoning-agent',
    portVariable: 'REASONING_AGENT_PORT',
    defaultPort: 8087,
    urlVariable: 'REASONING_AGENT_URL',
    publicUrlVariable: 'REASONING_AGENT_PUBLIC_URL',
    // Its A2A task store. The gateway's `X-Routing-Mode: reasoning` calls it; it is not one of
    // the orchestrator's agents (it is the baseline orchestration is compared with).
    needs: ['redis'],
    discoverable: false,
  },
  {
    name: 'tools-agent',
    packageDir: 'services/tools-agent',
    portVariable: 'TOOLS_AGENT_PORT',
    defaultPort: 8088,
    urlVariable: 'TOOLS_AGENT_URL',
    publicUrlVariable: 'TOOLS_AGENT_PUBLIC_URL',
    // Its A2A task store. Its tools come from MCP_SERVERS or MCP_SERVERS_FILE (passed through from
    // the caller's environment); without either, `fleet up` gives it the built-in filesystem
    // server over a copy of the demo documents (TOOLS_AGENT_FILESYSTEM_DIR = .fleet/files):
    // reading runs at once, writing asks.
    needs: ['redis'],
    discoverable: true,
  },
];

/** The compiled entry point of a service, relative to the repository root. */
export function serviceEntry(service: ServiceDefinition): string {
  return `${service.packageDir}/dist/main.js`;
}

/** Options for {@link selectServices}. */
export interface SelectServicesOptions {
  /** Every known service. */
  services: readonly ServiceDefinition[];
  /** Names to keep (`--only`); undefined or empty keeps all. */
  only?: readonly string[] | undefined;
}

/** The result of {@link selectServices}. */
export type SelectServicesResult =
  { success: true; services: ServiceDefinition[] } | { success: false; unknown: string[] };

/**
 * Picks the services named by `--only`, in table order, or reports the names it does not know.
 *
 * @example
 * selectServices({ services: SERVICES, only: ['gateway'] });
 */
export function selectServices({ services, only }: SelectServicesOptions): SelectServicesResult {
  if (only === undefined || only.length === 0) return { success: true, services: [...services] };
  const known = new Set(services.map((service) => service.name));
  const unknown = only.filter((name) => !known.has(name));
  if (unknown.length > 0) return { success: false, unknown };
  return { success: true, services: services.filter((service) => only.includes(service.name)) };
}
