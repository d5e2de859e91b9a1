import type { Redis } from 'ioredis';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  createMessage,
  dataPart,
  findData,
  partsText,
  progressEventSchema,
  runResultSchema,
  textPart,
  type Part,
  type ProgressEvent,
  type RunResult,
  type StreamResponse,
  type TaskState,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import { getFreePort } from '@fleet/testing';
import { createApp } from '../app';
import { createAgentDirectory, type AgentDirectory } from '../discovery';
import { createA2AAgentInvoker, createAgentBreakers } from '../execution';
import type { MemoryServices } from '../memory';
import { createOrchestratorHandler } from '../orchestration';
import type { PlanConfidenceSettings } from '../orchestration/plan-confidence';
import type { OrchestratorAgentOptions } from '../orchestration/orchestrator-agent-options';
import { createPlannerClient } from '../planning';
import { createRunAdmission, type RunScheduler } from '../scheduling';

/** The internal token every test service uses. */
export const TEST_TOKEN = 'test-internal-token-0123456789';

/** Options for {@link startTestOrchestrator}. */
export interface StartTestOrchestratorOptions {
  redis: Redis;
  /** Key prefix of this test file: sessions, locks, leases, cards and A2A tasks live under it. */
  prefix: string;
  /** Base URLs of the agents. */
  agentUrls: string[];
  /** The planner's base URL. @default an address where nothing listens */
  plannerUrl?: string;
  /** An OpenAI-compatible base URL (`…/v1`): the composer and the instructions classifier use it. */
  llmBaseUrl?: string;
  /** @default 120 */
  hitlTimeoutSeconds?: number;
  /** @default 15000 */
  runnerLeaseMs?: number;
  /** Long-term memory. @default none */
  memory?: MemoryServices;
  /** Fair admission of runs (with its admission at the A2A edge). @default none: no limit */
  scheduler?: RunScheduler;
  /** How often a waiting node's agent task is read. @default 5000 */
  agentTaskCheckMs?: number;
  /** Uncertain plans' handling. @default 0.5, run */
  planConfidence?: PlanConfidenceSettings;
  /** Wraps the session store the runs use (e.g. to slow its writes down). @default as it is */
  wrapSessions?: (sessions: SessionStore) => SessionStore;
  /** Where runs keep their files, and within which limits. @default none: files are refused */
  runFiles?: OrchestratorAgentOptions['runFiles'];
  /** Largest event of an agent's stream. @default the A2A client's (4 MiB) */
  maxEventBytes?: number;
  /** ORCHESTRATOR_PROGRESS_INTERVAL_MS. @default 500 */
  progressIntervalMs?: number;
  /** The most `node-progress` lines a step sends. @default 50 */
  progressMaxPerStep?: number;
  /** Result review's time-out, its decision and rounds. @default the orchestrator's */
  review?: OrchestratorAgentOptions['review'];
  /** ORCHESTRATOR_MAX_HANDOFFS. @default 3 */
  maxHandoffs?: number;
  /** ORCHESTRATOR_REPLAN_AFTER_FAILURE. @default true */
  replanAfterFailure?: boolean;
}

/** A running orchestrator for a test: a real HTTP server over real Redis. */
export interface TestOrchestrator {
  url: string;
  client: A2AClient;
  handler: A2AHandler;
  sessions: SessionStore;
  /** Hands its runs over (as on SIGTERM) and stops. */
  close(): Promise<void>;
}

/**
 * Starts one orchestrator (a replica) for a test, built like `main.ts` does but with the test's
 * key prefix. Several may share one prefix: they are replicas over the same Redis.
 */
export async function startTestOrchestrator({
  redis,
  prefix,
  agentUrls,
  plannerUrl = 'http://127.0.0.1:9',
  llmBaseUrl,
  hitlTimeoutSeconds = 120,
  runnerLeaseMs = 15_000,
  memory,
  scheduler,
  agentTaskCheckMs,
  wrapSessions = (store) => store,
  planConfidence,
  runFiles,
  maxEventBytes,
  progressIntervalMs,
  progressMaxPerStep,
  review,
  maxHandoffs,
  replanAfterFailure,
}: StartTestOrchestratorOptions): Promise<TestOrchestrator> {
  const directory: AgentDirectory = createAgentDirectory({
    urls: agentUrls,
    redis,
    token: TEST_TOKEN,
    keyPrefix: `${prefix}cards:`,
    timeoutMs: 1000,
    logger: silentLogger,
  });
  const sessions = createSessionStore({
    redis,
    keyPrefix: `${prefix}session`,
  });
  const planner = createPlannerClient({ url: plannerUrl, token: TEST_TOKEN, cardTimeoutMs: 500 });
  const invokeAgent = createA2AAgentInvoker({
    findAgent: (name) => directory.findAgent(name),
    token: TEST_TOKEN,
    logger: silentLogger,
    maxEventBytes,
  });
  const port = await getFreePort();
  const taskStore = new RedisTaskStore({ redis, keyPrefix: `${prefix}a2a` });
  const handler = createOrchestratorHandler({
    url: `http://127.0.0.1:${port}`,
    store: taskStore,
    agent: {
      sessions: wrapSessions(sessions),
      availableAgents: () => directory.availableAgents(),
      askPlanner: planner.askPlanner,
      invokeAgent,
      cancelAgentTask: invokeAgent.cancelTask,
      agentTaskState: invokeAgent.taskState,
      agentTaskCheckMs,
      progressIntervalMs,
      progressMaxPerStep,
      maxHandoffs,
      replanAfterFailure,
      breakers: createAgentBreakers(),
      llm:
        llmBaseUrl === undefined
          ? undefined
          : {
              client: new OpenAI({ baseURL: llmBaseUrl, apiKey: 'test-key', maxRetries: 0 }),
              model: 'scripted-model',
            },
      logger: silentLogger,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      hitlTimeoutSeconds,
      planConfidence,
      runnerLeaseMs,
      memory,
      scheduler,
      admission: scheduler === undefined ? undefined : createRunAdmission(scheduler),
      runFiles,
      review,
    },
  });
  const app = createApp({
    handler,
    internalToken: TEST_TOKEN,
    availableAgents: () => directory.availableAgents(),
    redis,
    plannerReady: planner.checkReady,
    logger: silentLogger,
    metrics: false,
  });
  const server: RunningServer = await startServer({
    app,
    port,
    signals: [],
    shutdownTimeoutMs: 100,
  });
  const client = new A2AClient({ card: await discoverAgentCard(server.url), token: TEST_TOKEN });
  let closed = false;
  return {
    url: server.url,
    client,
    handler,
    sessions,
    async close() {
      if (closed) return;
      closed = true;
      await handler.close();
      await server.shutdown();
      directory.close();
      await taskStore.close();
      await sessions.close();
    },
  };
}

/** The data part beside each progress line. */
const progressEnvelope = z.object({ progress: progressEventSchema });

/** A stream read to its end, or until a condition, with what tests look at. */
export interface ReadStream {
  events: StreamResponse[];
  /** The structured progress events, in order. */
  progress: ProgressEvent[];
  /** The readable status lines, in order (progress lines and the others). */
  lines: string[];
}

/** The progress events and lines of a stream so far. */
export function readStream(events: StreamResponse[]): ReadStream {
  const progress: ProgressEvent[] = [];
  const lines: string[] = [];
  for (const event of events) {
    if (!('statusUpdate' in event)) continue;
    const parts = event.statusUpdate.status.message?.parts ?? [];
    const data = findData(parts, progressEnvelope);
    if (data !== undefined) progress.push(data.progress);
    const text = partsText(parts);
    if (text !== '') lines.push(text);
  }
  return { events, progress, lines };
}

/** The final state, answer text and run result of a finished stream. */
export function outcomeOf(events: StreamResponse[]): {
  state: TaskState | undefined;
  message: string;
  answer: string | undefined;
  result: RunResult | undefined;
} {
  const last = events.at(-1);
  const status =
    last !== undefined && 'statusUpdate' in last ? last.statusUpdate.status : undefined;
  // The result artifact as a reader ends up with it: chunks appended, a non-appended one replacing.
  let parts: Part[] | undefined;
  for (const event of events) {
    if (!('artifactUpdate' in event)) continue;
    const { artifact, append } = event.artifactUpdate;
    parts = append === true ? [...(parts ?? []), ...artifact.parts] : artifact.parts;
  }
  return {
    state: status?.state,
    message: status?.message === undefined ? '' : partsText(status.message.parts),
    answer:
      parts === undefined
        ? undefined
        : parts.flatMap((part) => (part.text === undefined ? [] : [part.text])).join(''),
    result: parts === undefined ? undefined : findData(parts, runResultSchema),
  };
}

/** An orchestrate request's stream, read in the background. */
export interface Streaming {
  events: StreamResponse[];
  /** Resolves with every event once the stream ended. */
  done: Promise<StreamResponse[]>;
  /** Resolves with the first progress event that matches. */
  waitFor<T extends ProgressEvent>(match: (event: ProgressEvent) => event is T): Promise<T>;
  waitFor(match: (event: ProgressEvent) => boolean): Promise<ProgressEvent>;
  /** Stops reading (the run goes on). */
  stop(): void;
}

/** Sends an orchestrate request (or a resume) and reads its stream in the background. */
export function orchestrate(
  client: A2AClient,
  { text, fleet }: { text: string; fleet: Record<string, unknown> },
): Streaming {
  const controller = new AbortController();
  const events: StreamResponse[] = [];
  const watchers: (() => void)[] = [];
  let ended = false;
  const done = (async () => {
    try {
      for await (const event of client.sendStreamingMessage(
        { message: createMessage({ parts: [textPart(text), dataPart({ fleet })] }) },
        { signal: controller.signal },
      )) {
        events.push(event);
        for (const watcher of [...watchers]) watcher();
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      ended = true;
      for (const watcher of [...watchers]) watcher();
    }
    return events;
  })();
  const waitFor = (match: (event: ProgressEvent) => boolean): Promise<ProgressEvent> =>
    new Promise<ProgressEvent>((resolve, reject) => {
      const check = (): void => {
        const found = readStream(events).progress.find(match);
        if (found !== undefined) {
          watchers.splice(watchers.indexOf(check), 1);
          resolve(found);
        } else if (ended) {
          watchers.splice(watchers.indexOf(check), 1);
          reject(new Error('the stream ended without the expected progress event'));
        }
      };
      watchers.push(check);
      check();
    });
  return {
    events,
    done,
    waitFor,
    stop: () => controller.abort(),
  };
}

/** Polls `read` until it answers something (Redis state that another process changes). */
export async function eventually<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}
