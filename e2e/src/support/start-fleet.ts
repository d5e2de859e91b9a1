import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  startScriptedAgent,
  startService,
  type RunningService,
  type ScriptedAgent,
  type ScriptedAgentOptions,
} from '@fleet/testing';
import { Redis } from 'ioredis';
import { E2E_KEY, REPO_ROOT } from './start-gateway';

/** The token fleet services share in e2e runs. */
export const E2E_INTERNAL_TOKEN = 'e2e-internal-token-0123456789';

/** Options for {@link startFleet}. */
export interface StartFleetOptions {
  /** Scripted agents, started in this process (their requests are recorded). */
  agents: Omit<ScriptedAgentOptions, 'internalToken'>[];
  /** Agents already running elsewhere (base URLs), e.g. agent processes exporting traces. */
  agentUrls?: string[];
  /** Variables for every service: the upstream LLM, trace export, … */
  env?: Record<string, string | undefined>;
  /** Per-service variables. */
  serviceEnv?: Partial<Record<FleetServiceName, Record<string, string>>>;
  /**
   * Also start the real RAG agent (`services/rag-agent`) as a process: its embedded PostgreSQL in
   * a temporary `RAG_DATA_DIR` (removed by `stop()`), local embeddings unless `env` names an
   * upstream. Its URL joins AGENT_URLS and is the gateway's RAG_AGENT_URL. @default false
   */
  ragAgent?: boolean;
  /**
   * Real agent services (`services/<name>`) to start as processes, each with its own variables on
   * top of `env`; their URLs join AGENT_URLS (the reasoning agent's is the gateway's
   * REASONING_AGENT_URL instead). E.g. `{ 'code-agent': { CODE_AGENT_ALLOW_UNAPPROVED: 'false' } }`,
   * or `{ 'tools-agent': { MCP_SERVERS: '{"mcpServers": {…}}' } }` (its MCP servers start with it).
   */
  agentServices?: Partial<Record<AgentServiceName, Record<string, string | undefined>>>;
}

/**
 * Forgets the Agent Cards cached for these URLs (`fleet:cards:<url>`, kept 60 s). The suites'
 * agents listen on ports the system hands out, so a port an earlier fleet's agent used may come
 * back for another agent within the minute: its cached card would make this fleet's orchestrator
 * plan with the wrong agent.
 */
async function forgetCachedCards(redisUrl: string, urls: readonly string[]): Promise<void> {
  if (urls.length === 0) return;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.del(...urls.map((url) => `fleet:cards:${url}`));
  } finally {
    redis.disconnect();
  }
}

/** Agent services `startFleet` can run as processes besides the RAG agent. */
export type AgentServiceName =
  'web-agent' | 'mail-agent' | 'code-agent' | 'reasoning-agent' | 'tools-agent';

/** The fleet services `startFleet` runs as processes. */
export type FleetServiceName =
  'gateway' | 'orchestrator' | 'planner' | 'rag-agent' | AgentServiceName;

/**
 * A running fleet: gateway, orchestrator, planner (and optionally the RAG agent) as processes,
 * scripted agents in-process.
 */
export interface RunningFleet {
  gateway: RunningService;
  orchestrator: RunningService;
  planner: RunningService;
  /** The real RAG agent, when `ragAgent` was set. */
  ragAgent: RunningService | undefined;
  /** Every service process by name (gateway, orchestrator, planner, and the agents started). */
  services: Partial<Record<FleetServiceName, RunningService>>;
  agents: Record<string, ScriptedAgent>;
  /** `gateway.url + '/v1'` */
  baseURL: string;
  apiKey: string;
  /**
   * Kills a service (SIGKILL: no graceful shutdown, nothing flushed) and starts it again with the
   * same configuration on the same port, so the rest of the fleet reaches it where it was.
   */
  crashAndRestart(name: FleetServiceName): Promise<RunningService>;
  /** Kills a service (SIGKILL) and leaves it down, until {@link RunningFleet.restart}. */
  crash(name: FleetServiceName): Promise<void>;
  /** Starts a crashed service again with the same configuration on the same port. */
  restart(name: FleetServiceName): Promise<RunningService>;
  stop(): Promise<void>;
}

/**
 * Boots the orchestration path the way `pnpm fleet up` does, each service its own process built
 * from `services/*`: scripted agents, the planner, the orchestrator (reading the agents' cards from
 * AGENT_URLS) and the gateway, sharing one internal token and the real Redis.
 */
export async function startFleet({
  agents: agentOptions,
  agentUrls = [],
  env = {},
  serviceEnv = {},
  ragAgent: withRagAgent = false,
  agentServices = {},
}: StartFleetOptions): Promise<RunningFleet> {
  const started: { name: string; stop: () => Promise<unknown> }[] = [];
  const envs: Record<string, Record<string, string | undefined>> = {};
  const services: Record<string, RunningService> = {};
  const start = async (
    name: FleetServiceName,
    env: Record<string, string | undefined>,
    port?: number,
  ): Promise<RunningService> => {
    envs[name] = env;
    const service = await startService({
      root: REPO_ROOT,
      name,
      env,
      // The RAG agent boots an embedded PostgreSQL and migrates it first.
      timeoutMs: name === 'rag-agent' ? 90_000 : 30_000,
      ...(port === undefined ? {} : { port }),
    });
    services[name] = service;
    return service;
  };
  try {
    const agents: Record<string, ScriptedAgent> = {};
    for (const options of agentOptions) {
      const agent = await startScriptedAgent({ ...options, internalToken: E2E_INTERNAL_TOKEN });
      agents[options.name] = agent;
      started.push({ name: options.name, stop: () => agent.close() });
    }
    const shared = { FLEET_INTERNAL_TOKEN: E2E_INTERNAL_TOKEN, ...env };
    let ragAgent: RunningService | undefined;
    if (withRagAgent) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'e2e-rag-agent-'));
      started.push({
        name: 'rag-agent data',
        stop: () => rm(dataDir, { recursive: true, force: true }),
      });
      ragAgent = await start('rag-agent', {
        ...shared,
        RAG_DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        EMBEDDING_MODEL: undefined,
        EMBEDDING_DIMENSIONS: undefined,
        ...serviceEnv['rag-agent'],
      });
      started.push({ name: 'rag-agent', stop: () => services['rag-agent']!.stop() });
    }
    const agentServiceUrls: string[] = [];
    for (const [name, variables] of Object.entries(agentServices) as [
      AgentServiceName,
      Record<string, string | undefined>,
    ][]) {
      const service = await start(name, { ...shared, ...variables });
      // The reasoning agent is the baseline orchestration is compared with: the gateway calls it
      // (`X-Routing-Mode: reasoning`), the orchestrator does not plan with it.
      if (name !== 'reasoning-agent') agentServiceUrls.push(service.url);
      started.push({ name, stop: () => services[name]!.stop() });
    }
    const allAgentUrls = [
      ...Object.values(agents).map((agent) => agent.url),
      ...agentUrls,
      ...(ragAgent === undefined ? [] : [ragAgent.url]),
      ...agentServiceUrls,
    ];
    // A Redis of the test's own (Sentinel, a Cluster) starts empty: nothing cached to forget.
    if (env['REDIS_SENTINELS'] === undefined && env['REDIS_CLUSTER_NODES'] === undefined) {
      await forgetCachedCards(
        env['REDIS_URL'] ?? process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
        allAgentUrls,
      );
    }
    const planner = await start('planner', { ...shared, ...serviceEnv.planner });
    started.push({ name: 'planner', stop: () => services['planner']!.stop() });
    const orchestrator = await start('orchestrator', {
      ...shared,
      PLANNER_URL: planner.url,
      AGENT_URLS: allAgentUrls.join(','),
      ...serviceEnv.orchestrator,
    });
    started.push({ name: 'orchestrator', stop: () => services['orchestrator']!.stop() });
    const gateway = await start('gateway', {
      ...shared,
      GATEWAY_API_KEYS: `${E2E_KEY}:e2e`,
      // Suites share tenant e2e (and its limits) in one Redis: limits are the subject of
      // rate-limits.test.ts and the gateway's own tests, which turn them on.
      GATEWAY_LIMITS: 'false',
      ORCHESTRATOR_URL: orchestrator.url,
      ...(ragAgent === undefined ? {} : { RAG_AGENT_URL: ragAgent.url }),
      // `X-Routing-Mode: reasoning` goes to the reasoning agent when it was started.
      ...(services['reasoning-agent'] === undefined
        ? {}
        : { REASONING_AGENT_URL: services['reasoning-agent'].url }),
      ...serviceEnv.gateway,
    });
    started.push({ name: 'gateway', stop: () => services['gateway']!.stop() });
    return {
      get gateway() {
        return services['gateway']!;
      },
      get orchestrator() {
        return services['orchestrator']!;
      },
      get planner() {
        return services['planner']!;
      },
      get ragAgent() {
        return services['rag-agent'];
      },
      services,
      agents,
      baseURL: `${gateway.url}/v1`,
      apiKey: E2E_KEY,
      crashAndRestart: async (name) => {
        const old = services[name]!;
        await old.process.stop('SIGKILL');
        return start(name, envs[name] ?? {}, old.port);
      },
      crash: async (name) => {
        await services[name]!.process.stop('SIGKILL');
      },
      restart: (name) => start(name, envs[name] ?? {}, services[name]!.port),
      stop: async () => {
        // Front to back, each stopping gracefully; timed so a slow shutdown shows in the output.
        for (const each of started.reverse()) {
          const begin = Date.now();
          await each.stop();
          const took = Date.now() - begin;
          if (took > 3000) process.stderr.write(`e2e: stopping ${each.name} took ${took} ms\n`);
        }
      },
    };
  } catch (error) {
    for (const each of started.reverse()) await each.stop().catch(() => undefined);
    throw error;
  }
}
