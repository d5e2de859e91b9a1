/**
 * Redis that fails over: the fleet on Redis Sentinel (a primary, its replica, three sentinels) and
 * on a Redis Cluster (three masters, a replica each), every process a real redis-server on
 * loopback started by the test. On each, a whole orchestrated run goes through, then a run waits
 * for a person's approval while the Redis holding its session is killed (SIGKILL) and its replica
 * is promoted; the approval decided afterwards resumes the run, and the approved action (the mail
 * agent's send) happens exactly once — also after the orchestrator's recovery has looked again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  startRedisCluster,
  startRedisSentinel,
  startScriptedOpenAI,
  type ScriptedOpenAI,
  type TestRedisCluster,
  type TestRedisSentinel,
} from '@fleet/testing';
import { gatewayApi } from '../support/gateway-api';
import { scriptedPlan as plan } from '../support/scripted-plans';
import type { RunningFleet } from '../support/start-fleet';
import {
  approve,
  fleetClient,
  fleetReady,
  mailsSent,
  serviceLogs,
  sessionRequests,
  startFleetOnRedis,
  startRun,
  waitForSessionState,
  within,
  type LiveRun,
} from './support';

/** The orchestrator's recovery pass runs this often here: a run it would wrongly resume shows up. */
const RECOVERY_INTERVAL_MS = 1000;

const FIND_ONLY = plan([{ id: 'find', agent: 'web' }]);
const FIND_THEN_SEND = plan([
  { id: 'find', agent: 'web' },
  { id: 'send', agent: 'mail', dependsOn: ['find'] },
]);

/** The scripted model: a plan of one web step when asked to "just find", else web then mail. */
function startModel(): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI({
    respond: (_request, context) => {
      if (context.jsonSchema === undefined) return { content: 'Composed.' };
      if (context.lastUserMessage.includes('instructions')) {
        return { json: { mode: 'enhance', effectiveTask: '' } };
      }
      const chosen: Plan = context.lastUserMessage.includes('just find')
        ? FIND_ONLY
        : FIND_THEN_SEND;
      return { json: chosen };
    },
  });
}

/**
 * Writes a marker through `address` (a primary) under `key`'s hash slot and waits until a replica
 * has it (`WAIT`): the replication stream is ordered, so everything written before it — the
 * session and its pending approval — is on the replica too before the primary is killed.
 */
async function waitUntilReplicated(address: string, key: string): Promise<void> {
  const [host, port] = address.split(':');
  const redis = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.set(key, '1', 'EX', 60);
    const acknowledged = await redis.wait(1, 5000);
    expect(acknowledged).toBeGreaterThanOrEqual(1);
  } finally {
    redis.disconnect();
  }
}

/** The checks both set-ups share; `failOver` kills the Redis that holds the session's keys. */
function failOverSuite(
  startFleet: (llm: ScriptedOpenAI) => Promise<RunningFleet>,
  failOver: (sessionId: string) => Promise<string>,
): void {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startModel();
    fleet = await startFleet(llm);
    client = fleetClient(fleet);
  }, 120_000);

  beforeEach(() => fleetReady(fleet, 30_000), 40_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  it('runs an orchestrated request to its answer and lists the session for its tenant', async () => {
    const run = await startRun(client, 'just find the report');
    const end = await within(run.ended, 60_000, () => {
      run.abort();
      return `the run did not end\n${serviceLogs(fleet)}`;
    });
    expect(end.how).toBe('clean');
    expect(run.events.some((event) => event.type === 'plan-end')).toBe(true);
    // The web agent's result reached the answer (the orchestrator composes without a model here).
    expect(run.content).toContain('web handled');
    const done = await waitForSessionState(fleet, run.sessionId);
    expect(done['status']).toBe('completed');
    const listed = await gatewayApi(fleet, '/sessions');
    expect(listed.status).toBe(200);
    const ids = (listed.body['data'] as { id: string }[]).map((session) => session.id);
    expect(ids).toContain(run.sessionId);
  }, 90_000);

  it('keeps a pending approval through a fail-over; approved afterwards, the run mails once', async () => {
    const run: LiveRun = await startRun(client, 'find it and mail bob');
    const asked = await run.waitForEvent((event) => event.type === 'approval-required');
    expect(asked).toMatchObject({ kind: 'node', nodeId: 'send', action: 'send-mail' });
    const approvalId = String(asked['approvalId']);
    const before = await waitForSessionState(fleet, run.sessionId, {
      until: (session) => session['status'] === 'waiting_approval',
      timeoutMs: 15_000,
    });
    expect(before['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending' }),
    ]);

    const promoted = await failOver(run.sessionId);
    process.stdout.write(`failed over to ${promoted}\n`);
    await fleetReady(fleet, 30_000);

    // On the promoted replica: the session, its finished step and its pending approval; nothing sent.
    const after = await waitForSessionState(fleet, run.sessionId, {
      until: (session) => Array.isArray(session['approvals']),
      timeoutMs: 30_000,
    });
    expect(after['status']).toBe('waiting_approval');
    expect(after['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending' }),
    ]);
    expect(after['nodes']['find']).toMatchObject({ state: 'completed' });
    expect(mailsSent(fleet, run.sessionId)).toHaveLength(0);

    // Decided after the fail-over (a request that meets the fail-over's last moments gets a 503
    // and is sent again, as a client does with Retry-After).
    let decided = await approve(fleet, run.sessionId, approvalId);
    for (let attempt = 0; decided.status === 503 && attempt < 10; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      decided = await approve(fleet, run.sessionId, approvalId);
    }
    expect(decided.status).toBe(200);
    const done = await waitForSessionState(fleet, run.sessionId, { timeoutMs: 60_000 });
    expect(done['status']).toBe('completed');
    expect(done['nodes']['send']).toMatchObject({ state: 'completed' });

    // The client's stream ends, one way or the other, and does not hang.
    const end = await within(run.ended, 30_000, () => {
      run.abort();
      return `the client's stream did not end\n${serviceLogs(fleet)}`;
    });
    process.stdout.write(`client stream ended: ${end.how} after ${end.afterMs} ms\n`);

    // Exactly once: a few recovery passes, and a second decision, change nothing.
    await new Promise((resolve) => setTimeout(resolve, 3 * RECOVERY_INTERVAL_MS));
    const again = await approve(fleet, run.sessionId, approvalId);
    expect(again.status).not.toBe(500);
    await new Promise((resolve) => setTimeout(resolve, RECOVERY_INTERVAL_MS));
    expect(mailsSent(fleet, run.sessionId)).toHaveLength(1);
    expect(sessionRequests(fleet, 'web', run.sessionId)).toHaveLength(1);
  }, 180_000);
}

describe('the fleet on Redis Sentinel: the primary killed while a run waits for approval', () => {
  let sentinel: TestRedisSentinel;
  afterAll(() => sentinel?.stop(), 30_000);

  failOverSuite(
    async (llm) => {
      sentinel = await startRedisSentinel();
      return startFleetOnRedis({
        redisEnv: {
          REDIS_SENTINELS: sentinel.sentinels.join(','),
          REDIS_SENTINEL_NAME: sentinel.name,
        },
        llmBaseUrl: llm.baseURL,
        recoveryIntervalMs: RECOVERY_INTERVAL_MS,
      });
    },
    async (sessionId) => {
      await waitUntilReplicated(sentinel.primary, `e2e:{${sessionId}}:replicated`);
      await sentinel.killPrimary();
      return sentinel.waitForNewPrimary();
    },
  );
});

describe('the fleet on a Redis Cluster: the master of the session killed while a run waits', () => {
  let cluster: TestRedisCluster;
  afterAll(() => cluster?.stop(), 30_000);

  failOverSuite(
    async (llm) => {
      cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
      return startFleetOnRedis({
        redisEnv: { REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
        llmBaseUrl: llm.baseURL,
        recoveryIntervalMs: RECOVERY_INTERVAL_MS,
      });
    },
    async (sessionId) => {
      // The session's keys share its hash tag: this master holds the session and its approval.
      const master = await cluster.masterFor(`fleet:{${sessionId}}:session`);
      await waitUntilReplicated(master, `e2e:{${sessionId}}:replicated`);
      await cluster.kill(master);
      return cluster.waitForFailover(master);
    },
  );
});
