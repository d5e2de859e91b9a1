/**
 * Redis that fails over: the fleet on Redis Sentinel (a primary, its replica, three sentinels) and
 * on a Redis Cluster (three masters, a replica each), every process a real redis-server on
 * loopback started by the test. On each, a whole orchestrated run goes through, then a run waits
 * for a person's approval while the Redis holding its session is killed (SIGKILL) and its replica
 * is promoted; the approval decided afterwards resumes the run, and the approved action (the mail
 * agent's send) happens exactly once — also after the orchestrator's recovery has looked again.
 * Beside it waits a run whose step is an `@a2a-js/sdk` agent of the test's own (it pays invoices
 * once per approval it receives, so a decision delivered twice would pay twice): approved after
 * the fail-over, it pays once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  createInvoiceExecutor,
  INVOICE_AGENT_CARD,
  startRedisCluster,
  startRedisSentinel,
  startScriptedOpenAI,
  startSdkAgent,
  type InvoiceExecutor,
  type ScriptedOpenAI,
  type SdkAgent,
  type TestRedisCluster,
  type TestRedisSentinel,
} from '@fleet/testing';
import { gatewayApi } from '../support/gateway-api';
import { scriptedPlan as plan } from '../support/scripted-plans';
import { E2E_INTERNAL_TOKEN, type RunningFleet } from '../support/start-fleet';
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
const PAY = plan([{ id: 'pay', agent: INVOICE_AGENT_CARD.name }]);

/**
 * The scripted model: a plan of one web step when asked to "just find", the invoice agent's step
 * for an invoice, else web then mail.
 */
function startModel(): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI({
    respond: (_request, context) => {
      if (context.jsonSchema === undefined) return { content: 'Composed.' };
      if (context.lastUserMessage.includes('instructions')) {
        return { json: { mode: 'enhance', effectiveTask: '' } };
      }
      const message = context.lastUserMessage;
      let chosen: Plan = FIND_THEN_SEND;
      if (message.includes('just find')) chosen = FIND_ONLY;
      else if (message.includes('invoice')) chosen = PAY;
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
  startFleet: (llm: ScriptedOpenAI, agentUrls: string[]) => Promise<RunningFleet>,
  failOver: (sessionIds: string[]) => Promise<string>,
): void {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;
  let invoices: SdkAgent;
  const executor: InvoiceExecutor = createInvoiceExecutor();

  /** The payments the invoice agent made for one session's tasks. */
  const paymentsFor = (sessionId: string) => {
    const tasks = new Set(
      invoices.requests
        .filter((request) => request.fleet?.['sessionId'] === sessionId)
        .map((request) => request.taskId),
    );
    return executor.payments.filter((payment) => tasks.has(payment.taskId));
  };

  beforeAll(async () => {
    llm = await startModel();
    invoices = await startSdkAgent({ ...INVOICE_AGENT_CARD, executor, token: E2E_INTERNAL_TOKEN });
    fleet = await startFleet(llm, [invoices.url]);
    client = fleetClient(fleet);
  }, 120_000);

  beforeEach(() => fleetReady(fleet, 30_000), 40_000);

  afterAll(async () => {
    await fleet?.stop();
    await invoices?.stop();
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

  it('keeps pending approvals through a fail-over; approved afterwards, the mail and the SDK agent’s payment happen once', async () => {
    const run: LiveRun = await startRun(client, 'find it and mail bob');
    const paying: LiveRun = await startRun(client, 'pay invoice INV-1001 (€950) to our supplier');
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

    const payAsked = await paying.waitForEvent((event) => event.type === 'approval-required');
    expect(payAsked).toMatchObject({ kind: 'node', agent: 'invoices', action: 'pay-invoice' });
    await waitForSessionState(fleet, paying.sessionId, {
      until: (session) => session['status'] === 'waiting_approval',
      timeoutMs: 15_000,
    });

    const promoted = await failOver([run.sessionId, paying.sessionId]);
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

    // The foreign agent's approval, decided after the same fail-over: paid once.
    expect(paymentsFor(paying.sessionId)).toHaveLength(0);
    const payApproval = String(payAsked['approvalId']);
    let payDecided = await approve(fleet, paying.sessionId, payApproval);
    for (let attempt = 0; payDecided.status === 503 && attempt < 10; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      payDecided = await approve(fleet, paying.sessionId, payApproval);
    }
    expect(payDecided.status).toBe(200);
    const paid = await waitForSessionState(fleet, paying.sessionId, { timeoutMs: 60_000 });
    expect(paid['status']).toBe('completed');
    await within(paying.ended, 30_000, () => {
      paying.abort();
      return `the paying client's stream did not end\n${serviceLogs(fleet)}`;
    });
    await new Promise((resolve) => setTimeout(resolve, 3 * RECOVERY_INTERVAL_MS));
    expect((await approve(fleet, paying.sessionId, payApproval)).status).not.toBe(500);
    await new Promise((resolve) => setTimeout(resolve, RECOVERY_INTERVAL_MS));
    expect(paymentsFor(paying.sessionId)).toHaveLength(1);
  }, 240_000);
}

describe('the fleet on Redis Sentinel: the primary killed while a run waits for approval', () => {
  let sentinel: TestRedisSentinel;
  afterAll(() => sentinel?.stop(), 30_000);

  failOverSuite(
    async (llm, agentUrls) => {
      sentinel = await startRedisSentinel();
      return startFleetOnRedis({
        agentUrls,
        redisEnv: {
          REDIS_SENTINELS: sentinel.sentinels.join(','),
          REDIS_SENTINEL_NAME: sentinel.name,
        },
        llmBaseUrl: llm.baseURL,
        recoveryIntervalMs: RECOVERY_INTERVAL_MS,
      });
    },
    async ([sessionId]) => {
      // One primary holds every session: one marker replicated covers them all.
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
    async (llm, agentUrls) => {
      cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
      return startFleetOnRedis({
        agentUrls,
        redisEnv: { REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
        llmBaseUrl: llm.baseURL,
        recoveryIntervalMs: RECOVERY_INTERVAL_MS,
      });
    },
    async ([sessionId, ...others]) => {
      // The session's keys share its hash tag: this master holds the session and its approval.
      const master = await cluster.masterFor(`fleet:{${sessionId}}:session`);
      for (const id of [sessionId, ...others]) {
        const holder = await cluster.masterFor(`fleet:{${id}}:session`);
        await waitUntilReplicated(holder, `e2e:{${id}}:replicated`);
      }
      await cluster.kill(master);
      return cluster.waitForFailover(master);
    },
  );
});
