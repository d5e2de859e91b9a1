/**
 * Helpers for the fault-injection tests: a streamed run read in the background (so a test can kill
 * a service while the client is attached and then see how the client's stream ends), bounded waits
 * that fail with the services' logs, and a scripted agent as its own process (to SIGKILL).
 */
import path from 'node:path';
import OpenAI from 'openai';
import { startProcess, type RunningProcess } from '@fleet/testing';
import { gatewayApi, type FleetEvent, type Json } from '../support/gateway-api';
import { webThenMailAgents } from '../support/scripted-plans';
import { startFleet, type RunningFleet } from '../support/start-fleet';
import { REPO_ROOT } from '../support/start-gateway';

/** How a client's stream ended. */
export interface StreamEnd {
  /** `clean`: `[DONE]` (or the body ended); `error`: the SDK threw (an error event, a cut connection). */
  how: 'clean' | 'error';
  error?: Error;
  /** Milliseconds from the start of the request. */
  afterMs: number;
}

/** A streamed orchestrated run, read in the background. */
export interface LiveRun {
  sessionId: string;
  events: FleetEvent[];
  content: string;
  reasoning: string;
  /** Settles once the stream ended; never rejects. */
  ended: Promise<StreamEnd>;
  /** Resolves with the first event (seen or to come) that matches; rejects after `timeoutMs`. */
  waitForEvent(match: (event: FleetEvent) => boolean, timeoutMs?: number): Promise<FleetEvent>;
  /** Lets go of the request (the run goes on without a client). */
  abort(): void;
}

/**
 * Starts a streamed orchestrated run with the official openai SDK and reads it in the background.
 * `headers` are added to `X-Routing-Mode: orchestration` (e.g. `X-Plan-Approval`).
 */
export async function startRun(
  client: OpenAI,
  message: string,
  headers: Record<string, string> = {},
): Promise<LiveRun> {
  const abort = new AbortController();
  const begin = Date.now();
  const { data: stream, response } = await client.chat.completions
    .create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: message }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration', ...headers }, signal: abort.signal },
    )
    .withResponse();
  const listeners = new Set<() => void>();
  const run = {
    ended: Promise.resolve({ how: 'clean', afterMs: 0 }),
    sessionId: response.headers.get('x-session-id') ?? '',
    events: [],
    content: '',
    reasoning: '',
    waitForEvent: (match, timeoutMs = 30_000) => {
      const seen = run.events.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<FleetEvent>((resolve, reject) => {
        const check = (): void => {
          const found = run.events.find(match);
          if (found === undefined) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `no such event within ${timeoutMs} ms; events: ${JSON.stringify(run.events).slice(0, 1500)}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
      });
    },
    abort: () => abort.abort(),
  } as LiveRun;
  run.ended = (async (): Promise<StreamEnd> => {
    try {
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as
          { content?: string | null; reasoning_content?: string } | undefined;
        run.content += delta?.content ?? '';
        run.reasoning += delta?.reasoning_content ?? '';
        const event = (chunk as unknown as { fleet?: FleetEvent }).fleet;
        if (event === undefined) continue;
        run.events.push(event);
        for (const listener of [...listeners]) listener();
      }
      return { how: 'clean', afterMs: Date.now() - begin };
    } catch (error) {
      return {
        how: 'error',
        error: error instanceof Error ? error : new Error(String(error)),
        afterMs: Date.now() - begin,
      };
    }
  })();
  return run;
}

/** The tail of each service's log, for failure messages. */
export function serviceLogs(fleet: RunningFleet, chars = 2500): string {
  return Object.entries(fleet.services)
    .map(([name, service]) => {
      const output = service?.process.output() ?? '';
      return `--- ${name} ---\n${output.length > chars ? `…${output.slice(-chars)}` : output}`;
    })
    .join('\n');
}

/**
 * Resolves as `promise` does, or rejects after `ms` with `what` (a function is called then: to add
 * the services' logs, to let go of a request).
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string | (() => string),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`not within ${ms} ms: ${typeof what === 'string' ? what : what()}`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Session statuses after which nothing runs it again. */
const ENDED = new Set(['completed', 'failed', 'canceled']);

/**
 * Polls `GET /v1/sessions/{id}` until `until` holds (by default: the session ended). Non-200
 * answers are tolerated (a service may be coming back); throws with the last state and the
 * services' logs after `timeoutMs`.
 */
export async function waitForSessionState(
  fleet: RunningFleet,
  sessionId: string,
  {
    until: done = (session) => ENDED.has(session['status'] as string),
    timeoutMs = 45_000,
  }: { until?: (session: Json) => boolean; timeoutMs?: number } = {},
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = undefined;
  while (Date.now() < deadline) {
    try {
      const { status, body } = await gatewayApi(fleet, `/sessions/${sessionId}`);
      last = { status, body };
      if (status === 200 && done(body)) return body;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `session ${sessionId} never got there within ${timeoutMs} ms: ${JSON.stringify(last).slice(0, 1500)}\n${serviceLogs(fleet)}`,
  );
}

/** Approves an approval through the gateway. */
export function approve(
  fleet: RunningFleet,
  sessionId: string,
  approvalId: string,
): Promise<{ status: number; body: Json }> {
  return gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
    method: 'POST',
    body: JSON.stringify({ decision: 'approve' }),
  });
}

/** A scripted A2A agent running as its own process (`packages/testing`'s CLI), to SIGKILL. */
export interface AgentProcess {
  name: string;
  url: string;
  port: number;
  process: RunningProcess;
  /** SIGKILL: no goodbye, its in-memory tasks are gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty task store, as a real restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the scripted agent CLI (`--latency-ms`: how long each task takes). */
export async function startAgentProcess(options: {
  name: string;
  tags: string[];
  latencyMs: number;
  token: string;
}): Promise<AgentProcess> {
  const bin = path.join(REPO_ROOT, 'packages/testing/dist/bin/scripted-agent.js');
  const launch = (port: number): Promise<RunningProcess> =>
    startProcess({
      name: options.name,
      args: [
        bin,
        '--name',
        options.name,
        '--tags',
        options.tags.join(','),
        '--latency-ms',
        String(options.latencyMs),
        '--token',
        options.token,
        '--port',
        String(port),
      ],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: undefined },
      readyLine: /^READY (\S+)/,
    });
  let current = await launch(0);
  const url = current.match![1]!;
  const port = Number(new URL(url).port);
  const agent: AgentProcess = {
    name: options.name,
    url,
    port,
    get process() {
      return current;
    },
    kill: async () => {
      await current.stop('SIGKILL');
    },
    restart: async () => {
      await current.stop('SIGKILL');
      current = await launch(port);
    },
    stop: async () => {
      await current.stop('SIGTERM', 5000);
    },
  };
  return agent;
}

/** An openai client of the fleet that never retries on its own (a retry would hide a fault). */
export function fleetClient(fleet: RunningFleet, timeoutMs = 120_000): OpenAI {
  return new OpenAI({
    apiKey: fleet.apiKey,
    baseURL: fleet.baseURL,
    maxRetries: 0,
    timeout: timeoutMs,
  });
}

/**
 * Waits until every service process of the fleet answers `/readyz` with 200 (Redis reachable, the
 * planner's card readable, …); throws with the services' logs after `timeoutMs`.
 */
export async function fleetReady(fleet: RunningFleet, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const notReady = async (): Promise<string[]> => {
    const states = await Promise.all(
      Object.entries(fleet.services).map(async ([name, service]) => {
        try {
          const response = await fetch(`${service?.url}/readyz`);
          await response.arrayBuffer();
          return response.status === 200 ? undefined : `${name}: ${response.status}`;
        } catch (error) {
          return `${name}: ${String(error)}`;
        }
      }),
    );
    return states.filter((state): state is string => state !== undefined);
  };
  let waiting = await notReady();
  while (waiting.length > 0) {
    if (Date.now() > deadline) {
      throw new Error(
        `not ready within ${timeoutMs} ms: ${waiting.join(', ')}\n${serviceLogs(fleet)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    waiting = await notReady();
  }
}

/** The requests an agent of the fleet got for one session's tasks. */
export function sessionRequests(fleet: RunningFleet, agent: string, sessionId: string) {
  return fleet.agents[agent]!.requests.filter(
    (request) => request.nodeInput?.sessionId === sessionId,
  );
}

/** The mail agent's approved sends for one session's tasks. */
export function mailsSent(fleet: RunningFleet, sessionId: string) {
  const tasks = new Set(sessionRequests(fleet, 'mail', sessionId).map((request) => request.taskId));
  return fleet.agents['mail']!.sideEffects.filter(
    (effect) => tasks.has(effect.taskId) && effect.action === 'send-mail',
  );
}

/**
 * The fleet of the Redis fault tests, on Redis of the test's own (the shared one on 6379 is never
 * touched): a redis-server (`redisUrl`), or Sentinel or a Cluster (`redisEnv`: `REDIS_SENTINELS`
 * and `REDIS_SENTINEL_NAME`, or `REDIS_CLUSTER_NODES`). A web agent, then a mail agent whose sends
 * wait for approval (300 s), the planner on the scripted model, memory off, and the recovery pass
 * every `recoveryIntervalMs`.
 */
export function startFleetOnRedis({
  redisUrl,
  redisEnv = {},
  llmBaseUrl,
  recoveryIntervalMs,
  agentUrls,
}: {
  redisUrl?: string;
  redisEnv?: Record<string, string>;
  llmBaseUrl: string;
  recoveryIntervalMs: number;
  /** Agents of the test's own beside the web and mail agents (an `@a2a-js/sdk` agent). */
  agentUrls?: string[];
}): Promise<RunningFleet> {
  return startFleet({
    env: { ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }), ...redisEnv },
    serviceEnv: {
      planner: { OPENAI_BASE_URL: llmBaseUrl, OPENAI_API_KEY: 'sk-e2e-upstream' },
      orchestrator: {
        HITL_TIMEOUT_SECONDS: '300',
        SESSION_RECOVERY_INTERVAL_MS: String(recoveryIntervalMs),
        MEMORY_ENABLED: 'false',
      },
    },
    agents: webThenMailAgents(),
    ...(agentUrls === undefined ? {} : { agentUrls }),
  });
}
