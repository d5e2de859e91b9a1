/**
 * Faults: each fleet service SIGKILLed while an orchestrated run is under way, with the client
 * attached. The client's stream ends (an error, or the finished answer) within a bound — never
 * hangs; an orchestrator's death does not even cut it (the gateway follows the session); the
 * session survives; an approval posted after the restart finishes the run; the
 * approved action happens exactly once. The planner plans through a scripted upstream (so a plan
 * can be slow); the orchestrator composes offline (the answer lists failed steps itself).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { eventsOf, gatewayApi, type FleetEvent, type Json } from '../support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from '../support/start-fleet';
import {
  approve,
  fleetClient,
  mailsSent,
  serviceLogs,
  startAgentProcess,
  startRun,
  waitForSessionState,
  within,
  type AgentProcess,
  type LiveRun,
} from './support';
import { scriptedPlan as plan, webThenMailAgents } from '../support/scripted-plans';

let nextPlan: Plan | undefined;
/** Delay of the planner's LLM call (the plan), to kill the planner while it plans. */
let planLatencyMs = 0;

const isApprovalAsked = (event: FleetEvent): boolean => event.type === 'approval-required';

describe('SIGKILL of a fleet service mid-run', () => {
  let llm: ScriptedOpenAI;
  let slow: AgentProcess;
  let fleet: RunningFleet;
  let client: OpenAI;

  const webRequests = (sessionId: string) =>
    fleet.agents['web']!.requests.filter((request) => request.nodeInput?.sessionId === sessionId);

  /** Waits for the client's stream to end; a hang fails with every service's log. */
  const streamEnd = (run: LiveRun, ms: number, what: string) =>
    within(run.ended, ms, () => {
      run.abort();
      return `${what}: the client's stream did not end; events: ${JSON.stringify(run.events).slice(-1500)}\n${serviceLogs(fleet)}`;
    });

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: () => ({
        ...(nextPlan === undefined ? {} : { json: nextPlan }),
        ...(planLatencyMs > 0 ? { latencyMs: planLatencyMs } : {}),
      }),
    });
    slow = await startAgentProcess({
      name: 'slow',
      tags: ['slow'],
      latencyMs: 8000,
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      agentUrls: [slow.url],
      serviceEnv: {
        // Only the planner has an upstream: plans are scripted, the answer composed offline.
        planner: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
        orchestrator: {
          HITL_TIMEOUT_SECONDS: '300',
          SESSION_RECOVERY_INTERVAL_MS: '1000',
          MEMORY_ENABLED: 'false',
        },
      },
      agents: webThenMailAgents(),
    });
    client = fleetClient(fleet);
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await slow?.stop();
    await llm?.close();
  }, 60_000);

  /**
   * After a crash: the session is there with its approval pending; approving it finishes the run
   * (within `ms`), the mail goes out exactly once and the web step ran once.
   */
  async function approveAfterRestart(sessionId: string, approvalId: string, ms: number) {
    const pending = await gatewayApi(fleet, `/sessions/${sessionId}`);
    expect(pending.status).toBe(200);
    expect(pending.body['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending', nodeId: 'send' }),
    ]);
    const decided = await approve(fleet, sessionId, approvalId);
    expect(decided.status).toBe(200);
    const done = await waitForSessionState(fleet, sessionId, { timeoutMs: ms });
    expect(done['status']).toBe('completed');
    expect(done['nodes']['find']).toMatchObject({ state: 'completed' });
    expect(done['nodes']['send']).toMatchObject({ state: 'completed' });
    expect(done['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'approved' }),
    ]);
    expect(String(done['result']?.['text'])).toContain('mail handled');
    expect(mailsSent(fleet, sessionId)).toHaveLength(1);
    expect(webRequests(sessionId)).toHaveLength(1);
  }

  it('gateway: the stream is cut with an error, the approval after the restart finishes the run once', async () => {
    nextPlan = plan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const run = await startRun(client, 'find it then mail bob');
    const asked = await run.waitForEvent(isApprovalAsked);
    expect(asked).toMatchObject({ kind: 'node', nodeId: 'send', action: 'send-mail' });

    await fleet.crashAndRestart('gateway');

    // The gateway is gone: the connection drops, which the SDK raises (never a clean end).
    const end = await streamEnd(run, 10_000, 'gateway killed');
    expect(end.how).toBe('error');
    expect(run.content).not.toContain('mail handled');

    await approveAfterRestart(run.sessionId, String(asked['approvalId']), 30_000);
  }, 90_000);

  it('orchestrator: the client stays attached through the restart, and its stream ends with the answer once approved', async () => {
    nextPlan = plan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const run = await startRun(client, 'find it and mail it to bob');
    const asked = await run.waitForEvent(isApprovalAsked);

    await fleet.crashAndRestart('orchestrator');

    // The gateway is alive and the run is durable: the stream is not cut. The dead runner's
    // lease (15 s) lapses, another orchestrator takes the session over, and the approval given
    // meanwhile finishes the run on the client's own stream.
    await approveAfterRestart(run.sessionId, String(asked['approvalId']), 45_000);
    const end = await streamEnd(run, 30_000, 'orchestrator killed');
    expect(end).toMatchObject({ how: 'clean' });
    expect(eventsOf(run.events, 'run-result')).toHaveLength(1);
    expect(run.content).toContain('mail handled');
  }, 120_000);

  it('planner: killed while it plans, the run ends honestly (a clear failure, or the finished answer)', async () => {
    nextPlan = plan([{ id: 'look', agent: 'web' }]);
    planLatencyMs = 6000;
    const before = llm.requests.length;
    // Headers may only come once the plan is there: the request is not awaited before the kill.
    const started = startRun(client, 'look up the planner crash').then(
      (run) => ({ run }),
      (error: unknown) => ({ error: error as Error }),
    );
    await within(
      (async () => {
        while (llm.requests.length === before) await new Promise((r) => setTimeout(r, 50));
      })(),
      20_000,
      () => `the planner never asked its upstream for a plan\n${serviceLogs(fleet)}`,
    );
    planLatencyMs = 0;
    await fleet.crashAndRestart('planner');

    const outcome = await within(
      started,
      60_000,
      () => `planner killed: no answer\n${serviceLogs(fleet)}`,
    );
    if ('error' in outcome) {
      // Refused before the stream began: an HTTP error that names the planner.
      expect(outcome.error).toBeInstanceOf(OpenAI.APIError);
      expect(outcome.error.message).toMatch(/planner/i);
      return;
    }
    const { run } = outcome;
    const end = await streamEnd(run, 60_000, 'planner killed');
    const session = await waitForSessionState(fleet, run.sessionId, { timeoutMs: 15_000 });
    if (end.how === 'error') {
      // A clear failure: the error and the session both name the planner.
      expect(end.error?.message).toMatch(/planner/i);
      expect(eventsOf(run.events, 'run-end')).toEqual([
        expect.objectContaining({ state: 'failed' }),
      ]);
      expect(session['status']).toBe('failed');
      expect(String(session['error'])).toMatch(/planner/i);
      expect(webRequests(run.sessionId)).toHaveLength(0);
    } else {
      // Or it planned after all (after the restart): then it really finished.
      expect(session['status']).toBe('completed');
      expect(session['nodes']['look']).toMatchObject({ state: 'completed' });
      expect(run.content).toContain('web handled');
      expect(webRequests(run.sessionId)).toHaveLength(1);
    }
  }, 120_000);

  it('agent: killed mid-step, the node fails with a clear reason, is not sent again, and the answer says so', async () => {
    nextPlan = plan([
      { id: 'look', agent: 'web' },
      { id: 'work', agent: 'slow' },
    ]);
    const run = await startRun(client, 'look it up and do the slow work');
    // The agent has the task and works on it for 8 s (the web step is done by then).
    await run.waitForEvent((event) => event.type === 'node-start' && event['nodeId'] === 'work');
    await run.waitForEvent((event) => event.type === 'node-end' && event['nodeId'] === 'look');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Killed, and back at once: a re-send of the task would reach it (and do the work twice).
    await slow.restart();

    const end = await streamEnd(run, 60_000, 'agent killed');
    const session = await waitForSessionState(fleet, run.sessionId, { timeoutMs: 15_000 });
    const work = session['nodes']['work'] as Json;
    expect(work['state']).toBe('failed');
    expect(String(work['error'] ?? '')).not.toBe('');
    // It was sent once: the agent may have done it, so it is not sent again.
    expect(
      eventsOf(run.events, 'node-start').filter((event) => event['nodeId'] === 'work'),
    ).toHaveLength(1);
    expect(work['attempts']).toBe(1);
    // The other step is unaffected, and the answer names the failed step.
    expect(session['nodes']['look']).toMatchObject({ state: 'completed' });
    expect(run.content).toContain('web handled');
    expect(run.content).toContain('Steps that failed: Work: the slow part (by the slow agent)');
    // Part of the run succeeded: the stream ends normally, its answer carrying the failure.
    expect(end.how).toBe('clean');
    expect(session['status']).toBe('completed');
  }, 120_000);
});
