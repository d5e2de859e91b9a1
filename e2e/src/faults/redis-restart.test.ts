/**
 * Redis that keeps its data: the fleet's Redis runs as compose and Kubernetes run it — an
 * append-only file flushed every second (`appendonly yes`, `appendfsync everysec`), here a
 * redis-server of this test's own on a spare port with its data in a temporary directory. While a
 * run waits for a person, that Redis is restarted on the same port and data: gracefully (SIGTERM,
 * as `docker stop` or a rollout of the StatefulSet) and by a crash (SIGKILL, more than a second
 * after the approval was written, so `everysec` has flushed it). After each, the approval is still
 * pending, approving it through the gateway's sessions API finishes the run, and the approved
 * action (the mail agent's send) happens exactly once — also after the orchestrator's recovery has
 * had time to look at the session again.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type OpenAI from 'openai';
import {
  startRedisServer,
  startScriptedOpenAI,
  type RedisStop,
  type ScriptedOpenAI,
  type TestRedisServer,
} from '@fleet/testing';
import { gatewayApi } from '../support/gateway-api';
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
import { scriptedPlan as plan } from '../support/scripted-plans';

/** The orchestrator's recovery pass runs this often here: a run it would wrongly resume shows up. */
const RECOVERY_INTERVAL_MS = 1000;

describe('Redis with an append-only file (everysec) restarted while a run waits for approval', () => {
  let redisServer: TestRedisServer;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  const webRuns = (sessionId: string) => sessionRequests(fleet, 'web', sessionId);

  beforeAll(async () => {
    redisServer = await startRedisServer({ appendfsync: 'everysec' });
    llm = await startScriptedOpenAI({
      respond: () => ({
        json: plan([
          { id: 'find', agent: 'web' },
          { id: 'send', agent: 'mail', dependsOn: ['find'] },
        ]),
      }),
    });
    fleet = await startFleetOnRedis({
      redisUrl: redisServer.url,
      llmBaseUrl: llm.baseURL,
      recoveryIntervalMs: RECOVERY_INTERVAL_MS,
    });
    client = fleetClient(fleet);
  }, 90_000);

  // A test that failed half-way may leave Redis just restarted: each starts from a ready fleet.
  beforeEach(() => fleetReady(fleet), 30_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await redisServer?.stop();
  }, 60_000);

  it('runs the way compose and Kubernetes run it: AOF on, fsync every second', async () => {
    const redis = new Redis(redisServer.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await redis.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
    } finally {
      redis.disconnect();
    }
    // Redis 7 keeps its append-only files in a directory of the data dir.
    const aofDir = path.join(redisServer.dir, 'appendonlydir');
    expect(existsSync(aofDir)).toBe(true);
    expect(readdirSync(aofDir).some((file) => file.endsWith('.aof'))).toBe(true);
  });

  /**
   * Starts a run that waits for the mail agent's approval, restarts Redis (`stop`) while it waits,
   * and checks that the approval is still pending afterwards; returns the run and the approval.
   */
  async function restartRedisWhileWaiting(
    stop: RedisStop,
    message: string,
  ): Promise<{ run: LiveRun; approvalId: string }> {
    const run = await startRun(client, message);
    const asked = await run.waitForEvent((event) => event.type === 'approval-required');
    expect(asked).toMatchObject({ kind: 'node', nodeId: 'send', action: 'send-mail' });
    const approvalId = String(asked['approvalId']);
    const before = await waitForSessionState(fleet, run.sessionId, {
      until: (session) => Array.isArray(session['approvals']),
      timeoutMs: 10_000,
    });
    expect(before['status']).toBe('waiting_approval');
    // everysec: what was written more than a second ago is on disk, even for a SIGKILL.
    if (stop === 'SIGKILL') await new Promise((resolve) => setTimeout(resolve, 2000));

    const began = Date.now();
    await redisServer.restart(stop);
    const restartMs = Date.now() - began;
    expect(redisServer.output()).toMatch(/DB loaded from (append only file|disk)/);

    // Back: the session, its plan and its pending approval are there (the services reconnected by
    // themselves), and nothing was sent meanwhile.
    const after = await waitForSessionState(fleet, run.sessionId, {
      until: (session) => Array.isArray(session['approvals']),
      timeoutMs: 20_000,
    });
    expect(after['status']).toBe('waiting_approval');
    expect(after['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending' }),
    ]);
    expect(after['nodes']['find']).toMatchObject({ state: 'completed' });
    expect(mailsSent(fleet, run.sessionId)).toHaveLength(0);
    process.stdout.write(`redis ${stop} restart took ${restartMs} ms\n`);
    return { run, approvalId };
  }

  /** Approves through the sessions API; checks the run finished and the mail went out once. */
  async function approveAndCheckOnce(run: LiveRun, approvalId: string): Promise<void> {
    await fleetReady(fleet, 15_000);
    const decided = await approve(fleet, run.sessionId, approvalId);
    expect(decided.status).toBe(200);
    const done = await waitForSessionState(fleet, run.sessionId, { timeoutMs: 45_000 });
    expect(done['status']).toBe('completed');
    expect(done['nodes']['send']).toMatchObject({ state: 'completed' });
    expect(done['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'approved' }),
    ]);

    // The client's stream ended (with the answer if it outlived the restart, else with an error):
    // either way it does not hang.
    const end = await within(run.ended, 30_000, () => {
      run.abort();
      return `the client's stream did not end\n${serviceLogs(fleet)}`;
    });
    if (end.how === 'clean') expect(run.content).toContain('mail handled');
    process.stdout.write(`client stream ended: ${end.how} after ${end.afterMs} ms\n`);

    // Exactly once: let a few recovery passes go by, and decide again (a second decision changes
    // nothing).
    await new Promise((resolve) => setTimeout(resolve, 3 * RECOVERY_INTERVAL_MS));
    const again = await approve(fleet, run.sessionId, approvalId);
    expect(again.status).not.toBe(500);
    process.stdout.write(`second decision: ${again.status}\n`);
    await new Promise((resolve) => setTimeout(resolve, RECOVERY_INTERVAL_MS));
    expect(mailsSent(fleet, run.sessionId)).toHaveLength(1);
    expect(webRuns(run.sessionId)).toHaveLength(1);
    const final = await gatewayApi(fleet, `/sessions/${run.sessionId}`);
    expect(final.body['status']).toBe('completed');
  }

  it('graceful restart (SIGTERM): the approval is still pending; approved, the run completes and mails once', async () => {
    const { run, approvalId } = await restartRedisWhileWaiting('SIGTERM', 'find it and mail bob');
    await approveAndCheckOnce(run, approvalId);
  }, 150_000);

  it('crash (SIGKILL) more than a second after the approval was asked: nothing lost, mails once', async () => {
    const { run, approvalId } = await restartRedisWhileWaiting('SIGKILL', 'find it, mail alice');
    await approveAndCheckOnce(run, approvalId);
  }, 150_000);
});
