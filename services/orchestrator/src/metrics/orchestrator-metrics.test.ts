import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Express } from 'express';
import { InMemoryTaskStore } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { getFreePort } from '@fleet/testing';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import { createApp } from '../app';
import { createAgentBreakers, type AgentBreakers } from '../execution';
import { createOrchestratorHandler } from '../orchestration';
import { RunScheduler } from '../scheduling';

const TOKEN = 'test-internal-token-0123456789';
const prefix = `test:orchestrator-metrics:${randomUUID()}:`;

/** The value of the sample `name` with (at least) `labels`, whatever their order. */
async function metricValue(
  server: RunningServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = (await response.text())
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) &&
        wanted.every((label) => candidate.includes(label)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const servers: RunningServer[] = [];

async function serve(app: Express): Promise<RunningServer> {
  const server = await startServer({
    app,
    port: await getFreePort(),
    signals: [],
    shutdownTimeoutMs: 100,
  });
  servers.push(server);
  return server;
}

/** A failure the breakers count: the agent did not answer in time. */
function timeout(): Error {
  return Object.assign(new Error('no answer in time'), { name: 'TimeoutError' });
}

describe('orchestrator /metrics', () => {
  let redis: Redis;
  let sessions: SessionStore;
  let breakers: AgentBreakers;
  let app: RunningServer;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    sessions = createSessionStore({
      redis,
      keyPrefix: `${prefix}session`,
    });
    breakers = createAgentBreakers({ threshold: 2, halfOpenAfterMs: 60_000 });
    const handler = createOrchestratorHandler({
      url: 'http://orchestrator.test',
      store: new InMemoryTaskStore(),
      agent: {
        sessions,
        availableAgents: () => Promise.resolve([]),
        askPlanner: () => Promise.reject(new Error('no planner here')),
        invokeAgent: () => Promise.reject(new Error('no agents here')),
        breakers,
        logger: silentLogger,
      },
    });
    app = await serve(
      createApp({
        handler,
        internalToken: TOKEN,
        redis,
        plannerReady: () => Promise.resolve(),
        logger: silentLogger,
        breakers,
        sessions,
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown()));
    await sessions.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('serves the A2A task metrics of the orchestrator agent', async () => {
    expect(await metricValue(app, 'a2a_tasks_in_flight', { agent: 'orchestrator' })).toBe(0);
  });

  it("reports each agent's circuit breaker state as it changes", async () => {
    expect(await metricValue(app, 'orchestrator_agent_circuit_state')).toBeUndefined();
    const web = breakers.forAgent('web-agent');
    await web.execute(() => 'fine');
    expect(
      await metricValue(app, 'orchestrator_agent_circuit_state', {
        agent: 'web-agent',
        state: 'closed',
      }),
    ).toBe(1);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      await expect(web.execute(() => Promise.reject(timeout()))).rejects.toThrow();
    }
    const state = (name: string) =>
      metricValue(app, 'orchestrator_agent_circuit_state', { agent: 'web-agent', state: name });
    expect(await state('open')).toBe(1);
    expect(await state('closed')).toBe(0);
    expect(await state('half-open')).toBe(0);
  });

  it('counts the sessions awaiting approval, up when one is asked and down when decided', async () => {
    const pending = () => metricValue(app, 'orchestrator_sessions_awaiting_approval');
    expect(await pending()).toBe(0);
    const { id } = await sessions.create({ tenant: 'acme', request: 'Mail the report' });
    await sessions.addApproval(id, {
      id: 'a1',
      kind: 'node',
      nodeId: 'n1',
      agent: 'mail-agent',
      action: 'send-mail',
      summary: 'Send the report to bob@example.com',
      preview: 'To: bob@example.com',
      risk: 'high',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await pending()).toBe(1);
    await sessions.decideApproval({
      sessionId: id,
      approvalId: 'a1',
      tenant: 'acme',
      decision: 'approve',
    });
    expect(await pending()).toBe(0);
  });

  it('keeps serving /metrics when Redis does not answer, counting the failure', async () => {
    const stalled = await serve(
      createApp({
        handler: createOrchestratorHandler({
          url: 'http://orchestrator.test',
          store: new InMemoryTaskStore(),
          agent: {
            sessions,
            availableAgents: () => Promise.resolve([]),
            askPlanner: () => Promise.reject(new Error('no planner here')),
            invokeAgent: () => Promise.reject(new Error('no agents here')),
            breakers,
            logger: silentLogger,
          },
        }),
        internalToken: TOKEN,
        redis,
        plannerReady: () => Promise.resolve(),
        logger: silentLogger,
        sessions: { countAwaitingApproval: () => Promise.reject(new Error('connection lost')) },
      }),
    );
    expect(await metricValue(stalled, 'orchestrator_sessions_awaiting_approval')).toBe(0);
    // Metrics are collected concurrently: the failure shows from the next scrape on.
    expect(await metricValue(stalled, 'orchestrator_metrics_redis_errors_total')).toBeGreaterThan(
      0,
    );
  });

  it('reports runs executing, runs queued per tenant, and how long runs waited', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 10 });
    const scheduled = await serve(
      createApp({
        handler: createOrchestratorHandler({
          url: 'http://orchestrator.test',
          store: new InMemoryTaskStore(),
          agent: {
            sessions,
            availableAgents: () => Promise.resolve([]),
            askPlanner: () => Promise.reject(new Error('no planner here')),
            invokeAgent: () => Promise.reject(new Error('no agents here')),
            breakers,
            logger: silentLogger,
          },
        }),
        internalToken: TOKEN,
        redis,
        plannerReady: () => Promise.resolve(),
        logger: silentLogger,
        scheduler,
      }),
    );
    const running = scheduler.reserve('acme').enqueue();
    scheduler.reserve('acme').enqueue();
    scheduler.reserve('globex').enqueue();
    expect(await metricValue(scheduled, 'orchestrator_active_runs')).toBe(1);
    expect(await metricValue(scheduled, 'orchestrator_queued_runs', { tenant: 'acme' })).toBe(1);
    expect(await metricValue(scheduled, 'orchestrator_queued_runs', { tenant: 'globex' })).toBe(1);
    running.release();
    expect(await metricValue(scheduled, 'orchestrator_queued_runs', { tenant: 'acme' })).toBe(
      undefined,
    );
    expect(
      await metricValue(scheduled, 'orchestrator_run_wait_seconds_count', { tenant: 'acme' }),
    ).toBe(2);
  });
});
