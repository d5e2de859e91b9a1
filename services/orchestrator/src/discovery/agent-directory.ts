import type { Cluster, Redis } from 'ioredis';
import {
  agentCardSchema,
  agentSummaryOf,
  type AgentAvailability,
  type AgentCard,
  type AgentSummary,
} from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import { safeParseJson } from '@fleet/errors';
import { readAvailability } from './read-availability';

/** One agent the orchestrator can use: a card name, with one or more replicas behind it. */
export interface AvailableAgent {
  /** The card's `name`: what plans refer to. */
  name: string;
  /** The first replica's base URL. */
  url: string;
  /** The first replica's card. */
  card: AgentCard;
  /** What the planner sees (with `availability`). */
  summary: AgentSummary;
  /**
   * What the first replica's card says about whether it can work (its availability extension,
   * docs/a2a.md §2.1); undefined: it does not say, or said it in a malformed way (counts as ready).
   */
  availability?: AgentAvailability | undefined;
  /** Every healthy base URL serving a card with this name, in AGENT_URLS order. */
  replicas: Replica[];
}

/** One healthy URL of an agent. */
interface Replica {
  url: string;
  card: AgentCard;
  availability?: AgentAvailability | undefined;
}

/** The logging discovery needs. */
export interface DiscoveryLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

/** Options for {@link createAgentDirectory}. */
export interface AgentDirectoryOptions {
  /** Agent base URLs (AGENT_URLS). */
  urls: readonly string[];
  /**
   * The card cache (`fleet:cards:<url>`: one key per card, single-key commands only, so any slot
   * on a Redis Cluster), shared by orchestrator replicas.
   */
  redis: Redis | Cluster;
  /** Sent with card requests (FLEET_INTERNAL_TOKEN). */
  token?: string | undefined;
  /** Card cache lifetime and background refresh period. @default 60 */
  ttlSeconds?: number;
  /** Per card or health request. @default 3000 */
  timeoutMs?: number;
  /** @default 'fleet:cards:' */
  keyPrefix?: string;
  logger: DiscoveryLogger;
}

/** The agents the orchestrator knows about, kept fresh in the background. */
export interface AgentDirectory {
  /** The healthy agents (after the first discovery, which it waits for). */
  availableAgents(): Promise<AvailableAgent[]>;
  /** The healthy agent with this card name, or undefined. */
  findAgent(name: string): Promise<AvailableAgent | undefined>;
  /** Reads every card and health check now. */
  refresh(): Promise<AvailableAgent[]>;
  /** Refreshes every `ttlSeconds` in the background until {@link AgentDirectory.close}. */
  start(): void;
  close(): void;
}

/**
 * Agent discovery (docs/architecture.md §5): reads the Agent Card of every URL in AGENT_URLS with
 * `discoverAgentCard` (which falls back to the legacy `agent.json`), caches it in Redis
 * (`fleet:cards:<url>`, TTL) and in memory, and drops agents whose card or `/healthz` fails,
 * logging why. Replicas — several URLs whose cards share a name — are one agent.
 *
 * @example
 * const directory = createAgentDirectory({ urls: config.agentUrls, redis, token, logger });
 * directory.start();
 * const agents = await directory.availableAgents();
 */
export function createAgentDirectory({
  urls,
  redis,
  token,
  ttlSeconds = 60,
  timeoutMs = 3000,
  keyPrefix = 'fleet:cards:',
  logger,
}: AgentDirectoryOptions): AgentDirectory {
  const prober: Prober = {
    redis,
    token,
    ttlSeconds,
    timeoutMs,
    keyPrefix,
    logger,
    lastProblem: new Map(),
    lastAvailabilityProblem: new Map(),
  };
  let agents: AvailableAgent[] = [];
  let loadedAt = 0;
  /** Configured URLs whose agent the last load could not reach. */
  let unreachable = 0;
  let inFlight: Promise<AvailableAgent[]> | undefined;
  let timer: NodeJS.Timeout | undefined;

  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  async function load(): Promise<AvailableAgent[]> {
    const found = await Promise.all(urls.map((url) => probe(prober, url)));
    unreachable = found.filter((replica) => replica === undefined).length;
    agents = groupReplicas(found);
    loadedAt = Date.now();
    // An agent that is not up yet (the fleet starting in any order) or restarting is looked for
    // again soon, in the background, not only after a whole TTL.
    if (unreachable > 0 && retryTimer === undefined && !closed) {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        void refresh().catch(() => undefined);
      }, MISSING_AGENT_RETRY_MS);
      retryTimer.unref();
    }
    return agents;
  }

  function refresh(): Promise<AvailableAgent[]> {
    inFlight ??= load().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  async function availableAgents(): Promise<AvailableAgent[]> {
    if (loadedAt === 0) return refresh();
    const age = Date.now() - loadedAt;
    if (unreachable > 0 && age > FRESH_VIEW_MS) {
      // A configured agent was missing when last looked at: look again before answering, so a
      // plan is made with every agent that is up now (a fleet started in any order, an agent
      // restarted). The wait is bounded: an agent that hangs costs at most MISSING_AGENT_WAIT_MS,
      // and the answer is then what is known.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<AvailableAgent[]>((resolve) => {
        timer = setTimeout(() => resolve(agents), MISSING_AGENT_WAIT_MS);
      });
      try {
        return await Promise.race([refresh(), waited]);
      } finally {
        clearTimeout(timer);
      }
    }
    // Stale: answer from memory and refresh in the background, so a request never waits on a
    // slow agent's time-out.
    if (age > ttlSeconds * 1000) void refresh().catch(() => undefined);
    return agents;
  }

  return {
    availableAgents,
    async findAgent(name) {
      return (await availableAgents()).find((agent) => agent.name === name);
    },
    refresh,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        void refresh().catch(() => undefined);
      }, ttlSeconds * 1000);
      timer.unref();
    },
    close() {
      closed = true;
      clearInterval(timer);
      clearTimeout(retryTimer);
      timer = undefined;
      retryTimer = undefined;
    },
  };
}

/** What reading one agent's card and health needs. */
interface Prober {
  redis: Redis | Cluster;
  token: string | undefined;
  ttlSeconds: number;
  timeoutMs: number;
  keyPrefix: string;
  logger: DiscoveryLogger;
  /** The last failure reason per URL, so a dropped agent is logged once, not every refresh. */
  lastProblem: Map<string, string | undefined>;
  /** The last problem with a URL's availability extension, logged once too. */
  lastAvailabilityProblem: Map<string, string | undefined>;
}

async function cachedCard(
  { redis, keyPrefix, logger }: Prober,
  url: string,
): Promise<AgentCard | undefined> {
  try {
    const text = await redis.get(`${keyPrefix}${url}`);
    if (text === null) return undefined;
    const parsed = safeParseJson({
      text,
      schema: agentCardSchema,
      subject: `The cached card of ${url}`,
    });
    return parsed.success ? parsed.value : undefined;
  } catch (error) {
    logger.debug({ url, err: error }, 'card cache unavailable; reading the card');
    return undefined;
  }
}

async function cacheCard(
  { redis, keyPrefix, ttlSeconds, logger }: Prober,
  { url, card }: { url: string; card: AgentCard },
): Promise<void> {
  try {
    await redis.set(`${keyPrefix}${url}`, JSON.stringify(card), 'EX', ttlSeconds);
  } catch (error) {
    logger.debug({ url, err: error }, 'cannot cache the card');
  }
}

/**
 * The agent's process answers. `/healthz` is the fleet's convention, not A2A's: an agent we did
 * not write may have none, and a 404 (or any other answer below 500, or 501) still proves its
 * server is up. Only no answer or a server error drops it.
 */
async function checkHealth(url: string, timeoutMs: number): Promise<void> {
  const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
  await response.body?.cancel();
  if (response.status >= 500 && response.status !== 501) {
    throw new Error(`GET /healthz answered ${response.status}`);
  }
}

/** One URL's card (cached, or read) and health; logs when its availability changes. */
async function probe(prober: Prober, url: string): Promise<Replica | undefined> {
  const { token, timeoutMs, logger, lastProblem } = prober;
  let problem: string | undefined;
  let card: AgentCard | undefined;
  try {
    card = await cachedCard(prober, url);
    if (card === undefined) {
      // No retries: the next refresh is the retry, and a dead agent must not slow discovery.
      card = await discoverAgentCard(url, {
        ...(token === undefined ? {} : { token }),
        timeoutMs,
        maxRetries: 0,
      });
      await cacheCard(prober, { url, card });
    }
  } catch (error) {
    problem = `its Agent Card cannot be read: ${reasonOf(error)}`;
  }
  if (problem === undefined) {
    try {
      await checkHealth(url, timeoutMs);
    } catch (error) {
      problem = `its health check failed: ${reasonOf(error)}`;
    }
  }
  if (problem !== lastProblem.get(url) || !lastProblem.has(url)) {
    if (problem === undefined) logger.info({ url, agent: card?.name }, 'agent available');
    else logger.warn({ url, reason: problem }, `agent dropped: ${problem}`);
  }
  lastProblem.set(url, problem);
  if (problem !== undefined || card === undefined) return undefined;
  return { url, card, availability: availabilityOf(prober, { url, card }) };
}

/**
 * The card's availability extension; a malformed one (a foreign agent's, say) is ignored with one
 * log line per URL and problem: discovery never fails on it.
 */
function availabilityOf(
  { logger, lastAvailabilityProblem }: Prober,
  { url, card }: { url: string; card: AgentCard },
): AgentAvailability | undefined {
  const read = readAvailability(card);
  const problem = 'problem' in read ? read.problem : undefined;
  if (problem !== undefined && problem !== lastAvailabilityProblem.get(url)) {
    logger.warn({ url, agent: card.name, reason: problem }, `agent card: ${problem}`);
  }
  lastAvailabilityProblem.set(url, problem);
  return read.availability;
}

/** Replicas — URLs whose cards share a name — as one agent each, in AGENT_URLS order. */
function groupReplicas(found: readonly (Replica | undefined)[]): AvailableAgent[] {
  const byName = new Map<string, AvailableAgent>();
  for (const replica of found) {
    if (replica === undefined) continue;
    const existing = byName.get(replica.card.name);
    if (existing !== undefined) {
      existing.replicas.push(replica);
      continue;
    }
    byName.set(replica.card.name, {
      name: replica.card.name,
      url: replica.url,
      card: replica.card,
      summary: summaryOf(replica.card, replica.availability),
      availability: replica.availability,
      replicas: [replica],
    });
  }
  return [...byName.values()];
}

/** How soon a directory with unreachable agents looks again in the background. */
const MISSING_AGENT_RETRY_MS = 2000;

/** A view this recent is used as it is, even with an agent missing. */
const FRESH_VIEW_MS = 1000;

/** The longest a request waits for a look at missing agents before using what is known. */
const MISSING_AGENT_WAIT_MS = 1500;

/** The planner's view of a card: name, description, skills and, when it says, availability. */
export const summaryOf = (card: AgentCard, availability?: AgentAvailability): AgentSummary =>
  agentSummaryOf(card, availability);

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
