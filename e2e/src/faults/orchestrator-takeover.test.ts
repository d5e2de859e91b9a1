/**
 * A run waiting for people survives an orchestrator that dies, however long it stays down, and a
 * client gets the rest of the run whenever it reconnects: before, during or after another
 * orchestrator takes the session over. The run has two steps waiting for approval at once: an
 * invoice agent built only on `@a2a-js/sdk` (it pays once per approval it receives, so a payment
 * count is a count of delivered decisions) and the fleet's scripted mail agent (it claims each
 * send once). The orchestrator's own A2A task is never failed for its lost turn: a take-over
 * carries that very task on (docs/a2a.md §3, "Lost turns").
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  createInvoiceExecutor,
  INVOICE_AGENT_CARD,
  startScriptedOpenAI,
  startSdkAgent,
  type InvoiceExecutor,
  type ScriptedOpenAI,
  type SdkAgent,
} from '@fleet/testing';
import { eventsOf, streamChat, type FleetEvent } from '../support/gateway-api';
import { webThenMailAgents } from '../support/scripted-plans';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from '../support/start-fleet';
import {
  approve,
  fleetClient,
  mailsSent,
  serviceLogs,
  startRun,
  waitForSessionState,
  within,
  type LiveRun,
} from './support';

/** Longer than the runner lease (15 s) and the turn lease (10 s) of a dead orchestrator. */
const LONGER_THAN_THE_LEASES_MS = 17_000;

/** The local Redis with a database of this file's own: no other file's orchestrator sweeps it. */
function ownRedisUrl(): string {
  const url = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  url.pathname = '/10';
  return url.toString();
}

let invoiceNumber = 3000;

describe('an orchestrator that dies while a run waits for approval', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;
  let invoiceAgent: SdkAgent;
  const invoices: InvoiceExecutor = createInvoiceExecutor();
  /** The plan the scripted planner answers next. */
  let nextPlan: Plan | undefined;

  /** The invoice agent's payments for a session's tasks. */
  const paymentsFor = (sessionId: string) => {
    const tasks = new Set(
      invoiceAgent.requests
        .filter((request) => request.fleet?.['sessionId'] === sessionId)
        .map((request) => request.taskId),
    );
    return invoices.payments.filter((payment) => tasks.has(payment.taskId));
  };

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: () => (nextPlan === undefined ? {} : { json: nextPlan }),
    });
    invoiceAgent = await startSdkAgent({
      ...INVOICE_AGENT_CARD,
      executor: invoices,
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      agents: webThenMailAgents().filter((agent) => agent.name === 'mail'),
      agentUrls: [invoiceAgent.url],
      env: { REDIS_URL: ownRedisUrl() },
      serviceEnv: {
        // Only the planner has a model: plans are scripted, the answer is composed offline from
        // what the agents said.
        planner: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', MEMORY_ENABLED: 'false' },
      },
    });
    client = fleetClient(fleet);
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await invoiceAgent?.stop();
    await llm?.close();
  }, 60_000);

  /**
   * Starts a run whose two steps wait for approval (the invoice and the mail) and returns it with
   * both approvals asked; the client stays attached.
   */
  async function runWaitingForApprovals(): Promise<{
    run: LiveRun;
    invoice: string;
    approvals: string[];
  }> {
    invoiceNumber += 1;
    const invoice = `INV-${invoiceNumber}`;
    nextPlan = {
      nodes: [
        {
          id: 'pay',
          agent: 'invoices',
          skill: 'pay-invoice',
          task: `Pay invoice ${invoice} (€950) to our supplier.`,
          dependsOn: [],
        },
        { id: 'send', agent: 'mail', task: 'Mail bob that it is paid.', dependsOn: [] },
      ],
      rationale: 'scripted plan',
      confidence: 0.9,
    };
    const run = await startRun(client, `Pay invoice ${invoice} and mail bob`);
    let asked: FleetEvent[] = [];
    await within(
      run.waitForEvent(() => {
        asked = eventsOf(run.events, 'approval-required');
        return asked.length === 2;
      }),
      30_000,
      () => `both approvals were not asked: ${JSON.stringify(run.events).slice(-1500)}`,
    );
    return { run, invoice, approvals: asked.map((event) => String(event['approvalId'])) };
  }

  async function approveAll(sessionId: string, approvals: string[]): Promise<void> {
    for (const approvalId of approvals) {
      const decided = await approve(fleet, sessionId, approvalId);
      expect(decided.status).toBe(200);
    }
  }

  /** The run completed, each approved action happened exactly once, the answer says so. */
  async function expectDoneOnce(sessionId: string, invoice: string, content: string) {
    const session = await waitForSessionState(fleet, sessionId);
    expect(session['status']).toBe('completed');
    expect(session['nodes']['pay']).toMatchObject({ state: 'completed' });
    expect(session['nodes']['send']).toMatchObject({ state: 'completed' });
    expect(content).toContain(`Paid invoice ${invoice}`);
    expect(paymentsFor(sessionId)).toHaveLength(1);
    expect(mailsSent(fleet, sessionId)).toHaveLength(1);
  }

  it('the gateway and the orchestrator killed and started again at once: a client reconnecting at once gets the rest', async () => {
    const { run, invoice, approvals } = await runWaitingForApprovals();
    run.abort();
    await fleet.crashAndRestart('orchestrator');
    await fleet.crashAndRestart('gateway');
    await approveAll(run.sessionId, approvals);
    // At once: the dead orchestrator's leases have not lapsed yet.
    const rest = await within(
      streamChat(client, { message: 'resume', sessionId: run.sessionId }),
      60_000,
      () => `the reconnected stream did not end\n${serviceLogs(fleet)}`,
    );
    expect(rest.error).toBeUndefined();
    expect(eventsOf(rest.events, 'run-result')).toHaveLength(1);
    await expectDoneOnce(run.sessionId, invoice, rest.content);
  }, 120_000);

  it('the orchestrator down for longer than its leases: a client reconnecting while it is down gets the rest once it is back', async () => {
    const { run, invoice, approvals } = await runWaitingForApprovals();
    run.abort();
    await fleet.crash('orchestrator');
    await delay(LONGER_THAN_THE_LEASES_MS);
    // No orchestrator answers now: the gateway waits for one rather than failing the client.
    const rest = streamChat(client, { message: 'resume', sessionId: run.sessionId });
    await delay(1000);
    await fleet.restart('orchestrator');
    await approveAll(run.sessionId, approvals);
    const reconnected = await within(
      rest,
      60_000,
      () => `the reconnected stream did not end\n${serviceLogs(fleet)}`,
    );
    expect(reconnected.error).toBeUndefined();
    await expectDoneOnce(run.sessionId, invoice, reconnected.content);
  }, 120_000);

  it('a client attached through the kill is not cut off: its stream carries the rest once approved', async () => {
    const { run, invoice, approvals } = await runWaitingForApprovals();
    await fleet.crashAndRestart('orchestrator');
    await approveAll(run.sessionId, approvals);
    const end = await within(run.ended, 60_000, () => {
      run.abort();
      return `the attached stream did not end: ${JSON.stringify(run.events).slice(-1500)}\n${serviceLogs(fleet)}`;
    });
    expect(end).toMatchObject({ how: 'clean' });
    expect(eventsOf(run.events, 'run-result')).toHaveLength(1);
    await expectDoneOnce(run.sessionId, invoice, run.content);
  }, 120_000);

  it('a client that reconnects before the take-over waits for it, and the approval it then gives finishes the run', async () => {
    const { run, invoice, approvals } = await runWaitingForApprovals();
    run.abort();
    await fleet.crashAndRestart('orchestrator');
    await fleet.crashAndRestart('gateway');
    const rest = streamChat(client, { message: 'resume', sessionId: run.sessionId });
    // Nobody has taken the session over yet: the dead orchestrator's runner lease still holds.
    await delay(2000);
    await approveAll(run.sessionId, approvals);
    const reconnected = await within(
      rest,
      60_000,
      () => `the reconnected stream did not end\n${serviceLogs(fleet)}`,
    );
    expect(reconnected.error).toBeUndefined();
    await expectDoneOnce(run.sessionId, invoice, reconnected.content);
  }, 120_000);
});
