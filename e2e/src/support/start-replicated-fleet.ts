import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getFreePort, startService, type RunningService } from '@fleet/testing';
import { haproxyServerStatus, startHaproxy, type RunningHaproxy } from './haproxy';
import { E2E_INTERNAL_TOKEN } from './start-fleet';
import { E2E_KEY, REPO_ROOT } from './start-gateway';

/** The services that run as several replicas behind HAProxy. */
export type ReplicatedKind = 'gateway' | 'orchestrator' | 'rag-agent' | 'code-agent';

/** Options for {@link startReplicatedFleet}. */
export interface StartReplicatedFleetOptions {
  /** How many replicas of each kind. @default gateway 2, orchestrator 2, rag-agent 3, code-agent 2 */
  replicas?: Partial<Record<ReplicatedKind, number>>;
  /** Variables for every service (the upstream LLM, …). */
  env?: Record<string, string | undefined>;
  /**
   * The Redis every service uses. @default `REDIS_URL` (or the local Redis) with database 9: other
   * e2e files run their own fleets on the same Redis in parallel, and an orchestrator's recovery
   * sweep resumes any session whose runner died, whoever started it, so a SIGKILLed replica's runs
   * must be swept up by this fleet's orchestrators only.
   */
  redisUrl?: string;
  /** Per-kind variables (and the planner's), on top of `env`. */
  serviceEnv?: Partial<Record<ReplicatedKind | 'planner', Record<string, string | undefined>>>;
  /** Agents running elsewhere (base URLs) that the orchestrators use too, e.g. SDK agents. */
  agentUrls?: string[];
}

/** A fleet whose services run as replicas behind one HAProxy, each kind on a frontend of its own. */
export interface ReplicatedFleet {
  haproxy: RunningHaproxy;
  /** The Redis (and database) the fleet uses. */
  redisUrl: string;
  /** The HAProxy frontend of each kind: what clients and the other services call. */
  frontends: Record<ReplicatedKind, string>;
  /** The replicas of each kind, in order (`<kind>-1`, `<kind>-2`, … in HAProxy). */
  replicas: Record<ReplicatedKind, RunningService[]>;
  planner: RunningService;
  /** The gateway frontend + `/v1`, for `new OpenAI({ baseURL })`. */
  baseURL: string;
  apiKey: string;
  /** SIGKILLs one replica (no graceful shutdown); HAProxy's health check then takes it out. */
  kill(kind: ReplicatedKind, index: number): Promise<void>;
  /** Starts a killed replica again, on its port and with its settings, and waits until it is UP. */
  restart(kind: ReplicatedKind, index: number): Promise<void>;
  /**
   * Stops one replica gracefully (SIGTERM: it finishes or hands over its work), starts it again
   * and waits until HAProxy sees every replica of the kind UP: one step of a rolling restart.
   */
  restartGracefully(kind: ReplicatedKind, index: number): Promise<void>;
  /** Resolves once HAProxy sees `count` servers of the kind UP (after a start, after a kill). */
  waitForUp(kind: ReplicatedKind, count: number): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_REPLICAS: Record<ReplicatedKind, number> = {
  gateway: 2,
  orchestrator: 2,
  'rag-agent': 3,
  'code-agent': 2,
};

/** `REDIS_URL` (or the local Redis) with another database. */
function isolatedRedisUrl(database = 9): string {
  // The test process's environment names the Redis the suite uses, as in the other e2e files.
  const url = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${database}`;
  return url.toString();
}

const STOP_STAGE: Record<ReplicatedKind, number> = {
  gateway: 0,
  orchestrator: 1,
  'rag-agent': 2,
  'code-agent': 2,
};

const KINDS: ReplicatedKind[] = ['gateway', 'orchestrator', 'rag-agent', 'code-agent'];

/**
 * Boots the orchestration path with replicas behind a real load balancer, every service its own
 * process: clients → HAProxy → gateways → HAProxy → orchestrators → HAProxy → RAG and code agents.
 * Each replica's Agent Card announces the HAProxy frontend (`<PREFIX>_PUBLIC_URL`), so the
 * orchestrator's calls, which go to card URLs, are balanced too. One planner, the real Redis; each
 * RAG replica has its own embedded PostgreSQL (the tests ask nothing of its documents).
 *
 * The ports are chosen first and HAProxy starts before the services (its health checks mark a
 * replica UP once `/readyz` answers); the orchestrators start once HAProxy sees the agents UP.
 */
export async function startReplicatedFleet({
  replicas: counts = {},
  env = {},
  serviceEnv = {},
  redisUrl = isolatedRedisUrl(),
  agentUrls = [],
}: StartReplicatedFleetOptions = {}): Promise<ReplicatedFleet> {
  const replicaCount = { ...DEFAULT_REPLICAS, ...counts };
  const ports = {} as Record<ReplicatedKind, number[]>;
  for (const kind of KINDS) {
    ports[kind] = [];
    for (let index = 0; index < replicaCount[kind]; index += 1)
      ports[kind].push(await getFreePort());
  }
  const haproxy = await startHaproxy(
    KINDS.map((kind) => ({
      name: kind,
      servers: ports[kind].map((port, index) => ({ name: `${kind}-${index + 1}`, port })),
    })),
  );
  const frontends = haproxy.urls as Record<ReplicatedKind, string>;
  /** What to stop, by stage: `0` the gateways … `4` HAProxy (see `stopAll`). */
  const cleanups: { name: string; stage: number; stop: () => Promise<unknown> }[] = [
    { name: 'haproxy', stage: 4, stop: () => haproxy.stop() },
  ];
  // Front to back (gateways, orchestrators, the planner and the agents, data, HAProxy), the
  // processes of a stage in parallel, each gracefully; a slow one shows in the output.
  const stopAll = async (): Promise<void> => {
    for (let stage = 0; stage <= 4; stage += 1) {
      await Promise.all(
        cleanups
          .filter((each) => each.stage === stage)
          .map(async (each) => {
            const begin = Date.now();
            await each.stop().catch(() => undefined);
            const took = Date.now() - begin;
            if (took > 3000) process.stderr.write(`e2e: stopping ${each.name} took ${took} ms\n`);
          }),
      );
    }
  };
  const replicas = Object.fromEntries(KINDS.map((kind) => [kind, []])) as unknown as Record<
    ReplicatedKind,
    RunningService[]
  >;
  const shared = { FLEET_INTERNAL_TOKEN: E2E_INTERNAL_TOKEN, REDIS_URL: redisUrl, ...env };

  const waitForUp = async (kind: ReplicatedKind, count: number): Promise<void> => {
    const deadline = Date.now() + 20_000;
    let status: Record<string, string> = {};
    while (Date.now() < deadline) {
      status = await haproxyServerStatus(haproxy, kind);
      if (Object.values(status).filter((each) => each.startsWith('UP')).length === count) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`HAProxy never saw ${count} ${kind} replicas UP: ${JSON.stringify(status)}`);
  };

  /** How each replica was started, so a killed one can be started again. */
  const starters = Object.fromEntries(KINDS.map((kind) => [kind, []])) as unknown as Record<
    ReplicatedKind,
    (() => Promise<RunningService>)[]
  >;

  const startKind = async (
    kind: ReplicatedKind,
    variables: Record<string, string | undefined>,
  ): Promise<void> => {
    const starts = await Promise.allSettled(
      ports[kind].map(async (port, index) => {
        const dataDir =
          kind === 'rag-agent'
            ? await mkdtemp(path.join(os.tmpdir(), `e2e-rag-agent-${index + 1}-`))
            : undefined;
        if (dataDir !== undefined)
          cleanups.push({
            name: `rag-agent-${index + 1} data`,
            stage: 3,
            stop: () => rm(dataDir, { recursive: true, force: true }),
          });
        const start = async (): Promise<RunningService> => {
          const service = await startService({
            root: REPO_ROOT,
            name: kind,
            port,
            // Up to a dozen processes start at once (three RAG agents booting an embedded
            // PostgreSQL each): on a busy two-core machine that takes a while.
            timeoutMs: 120_000,
            env: {
              ...shared,
              ...variables,
              ...(dataDir === undefined ? {} : { RAG_DATA_DIR: dataDir }),
              ...serviceEnv[kind],
            },
          });
          cleanups.push({
            name: `${kind}-${index + 1}`,
            stage: STOP_STAGE[kind],
            stop: () => service.stop(),
          });
          return service;
        };
        starters[kind][index] = start;
        return start();
      }),
    );
    const failed = starts.find((start) => start.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const started = starts.map((start) => (start as PromiseFulfilledResult<RunningService>).value);
    replicas[kind].push(...started);
    await waitForUp(kind, started.length);
  };

  try {
    // The agents, the planner and the gateways (whose readiness needs Redis only) start together;
    // the orchestrators once HAProxy sees every agent UP, so their first directory holds them all.
    let planner: RunningService | undefined;
    // Settled, not raced: a start that fails is reported once every other has finished starting,
    // so the clean-up stops them all.
    const firstTier = await Promise.allSettled([
      startKind('rag-agent', {
        // Offline: extractive answers, local embeddings, no LLM.
        OPENAI_BASE_URL: undefined,
        OPENAI_API_KEY: undefined,
        DATABASE_URL: undefined,
        EMBEDDING_MODEL: undefined,
        EMBEDDING_DIMENSIONS: undefined,
        RAG_AGENT_PUBLIC_URL: frontends['rag-agent'],
      }),
      startKind('code-agent', { CODE_AGENT_PUBLIC_URL: frontends['code-agent'] }),
      startService({
        root: REPO_ROOT,
        name: 'planner',
        env: { ...shared, ...serviceEnv.planner },
        timeoutMs: 120_000,
      }).then((service) => {
        planner = service;
        cleanups.push({ name: 'planner', stage: 2, stop: () => service.stop() });
      }),
      startKind('gateway', {
        GATEWAY_API_KEYS: `${E2E_KEY}:e2e`,
        GATEWAY_LIMITS: 'false',
        ORCHESTRATOR_URL: frontends.orchestrator,
        RAG_AGENT_URL: frontends['rag-agent'],
      }),
    ]);
    const failed = firstTier.find((start) => start.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    await startKind('orchestrator', {
      PLANNER_URL: planner!.url,
      AGENT_URLS: [frontends['rag-agent'], frontends['code-agent'], ...agentUrls].join(','),
      ORCHESTRATOR_PUBLIC_URL: frontends.orchestrator,
    });
    return {
      haproxy,
      redisUrl,
      frontends,
      replicas,
      planner: planner!,
      baseURL: `${frontends.gateway}/v1`,
      apiKey: E2E_KEY,
      waitForUp,
      kill: async (kind, index) => {
        await replicas[kind][index]!.process.stop('SIGKILL');
      },
      restart: async (kind, index) => {
        replicas[kind][index] = await starters[kind][index]!();
        await waitForUp(kind, replicas[kind].length);
      },
      restartGracefully: async (kind, index) => {
        await replicas[kind][index]!.stop();
        replicas[kind][index] = await starters[kind][index]!();
        await waitForUp(kind, replicas[kind].length);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
