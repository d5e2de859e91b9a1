/**
 * Replicas behind a real load balancer: HAProxy (started here on loopback, round robin per request,
 * health checks on /readyz) in front of 2 gateways, 2 orchestrators, 3 RAG agents (offline,
 * extractive) and 2 code agents, each its own process, sharing the real Redis; a scripted LLM plans,
 * writes the programs and composes. Clients call the gateway frontend; the gateways call the
 * orchestrator frontend; the orchestrators call the agents' frontends (the URLs their cards
 * announce). Skipped, with a message, when haproxy is not installed
 * (`infra/scripts/ensure-test-tools.sh` installs it).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import {
  createMessage,
  dataPart,
  textPart,
  type Plan,
  type StreamResponse,
  type Task,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import { A2A_ENDPOINT_PATH } from '@fleet/a2a/server';
import {
  createInvoiceExecutor,
  INVOICE_AGENT_CARD,
  startOtlpCapture,
  startScriptedOpenAI,
  startSdkAgent,
  type InvoiceExecutor,
  type OtlpCapture,
  type RunningService,
  type ScriptedOpenAI,
  type SdkAgent,
} from '@fleet/testing';
import { startRun } from './faults/support';
import { eventsOf, streamChat, type FleetEvent, type Json } from './support/gateway-api';
import { findHaproxy } from './support/haproxy';
import { E2E_INTERNAL_TOKEN } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';
import {
  startReplicatedFleet,
  type ReplicatedFleet,
  type ReplicatedKind,
} from './support/start-replicated-fleet';

const COMPOSED = 'Composed from the replicas.';

/** How long the scripted LLM takes to compose an answer (the SIGKILL test kills mid-composition). */
let composeLatencyMs = 0;

/** `CODE[<token>]` in a question: the plan is one code-agent step printing `ran <token>`. */
const CODE_MARK = /CODE\[(\w+)\]/;

function codePlan(token: string, afterSeconds?: string): Plan {
  return {
    nodes: [
      {
        id: 'calc',
        agent: 'code-agent',
        skill: 'run-python',
        task: `Print the marker CODE[${token}]${afterSeconds === undefined ? '' : ` after ${afterSeconds} s`}.`,
        dependsOn: [],
      },
    ],
    rationale: 'a program for the code agent',
    confidence: 0.9,
  };
}

/** `INVOICE[<number>]` in a question: the plan is one step of the `@a2a-js/sdk` invoice agent. */
const INVOICE_MARK = /INVOICE\[(INV-\d+)\]/;

function invoicePlan(invoice: string): Plan {
  return {
    nodes: [
      {
        id: 'pay',
        agent: 'invoices',
        skill: 'pay-invoice',
        task: `Pay invoice ${invoice} (€950) to our supplier.`,
        dependsOn: [],
      },
    ],
    rationale: 'an invoice for the invoice agent',
    confidence: 0.9,
  };
}

const RAG_PLAN: Plan = {
  nodes: [
    {
      id: 'docs',
      agent: 'rag-agent',
      skill: 'answer',
      task: 'What does the travel policy say about trains?',
      dependsOn: [],
    },
  ],
  rationale: 'a question for the documents',
  confidence: 0.9,
};

/** The A2A calls (POSTs on `route`) a replica has served, from its `/metrics`; 0 when it is gone. */
async function postsServed(service: RunningService, route: RegExp): Promise<number> {
  try {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    let total = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith('http_requests_total{') || !line.includes('method="POST"')) continue;
      const routeLabel = /route="([^"]*)"/.exec(line)?.[1] ?? '';
      if (route.test(routeLabel)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return total;
  } catch {
    return 0;
  }
}

/** The route each kind's counted requests come in on. */
const COUNTED_ROUTE: Record<ReplicatedKind, RegExp> = {
  gateway: /^\/v1\/chat\/completions$/,
  orchestrator: /^\/a2a$/,
  'rag-agent': /^\/a2a$/,
  'code-agent': /^\/a2a$/,
};

async function countsPerReplica(fleet: ReplicatedFleet, kind: ReplicatedKind): Promise<number[]> {
  return Promise.all(
    fleet.replicas[kind].map((service) => postsServed(service, COUNTED_ROUTE[kind])),
  );
}

/** The A2A turns a replica runs now, from its `/metrics`; 0 when it does not answer. */
async function turnsInFlight(service: RunningService): Promise<number> {
  try {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('a2a_tasks_in_flight{'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  } catch {
    return 0;
  }
}

function a2a(url: string): A2AClient {
  return new A2AClient({
    url: `${url}${A2A_ENDPOINT_PATH}`,
    token: E2E_INTERNAL_TOKEN,
    maxRetries: 0,
    timeoutMs: 30_000,
  });
}

/** An OpenAI client on one gateway replica, or on the gateway frontend. */
function openai(fleet: ReplicatedFleet, baseUrl: string): OpenAI {
  return new OpenAI({ apiKey: fleet.apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
}

/** Calls the sessions API on a gateway (a replica or the frontend). */
async function sessionsApi(
  baseUrl: string,
  route: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${baseUrl}/v1/sessions${route}`, {
    ...init,
    headers: { authorization: `Bearer ${E2E_KEY}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** Polls a session through the gateway frontend until `done` holds (up to 60 s). */
async function waitForSession(
  fleet: ReplicatedFleet,
  sessionId: string,
  done: (session: Json) => boolean,
): Promise<Json> {
  const timeoutMs = 60_000;
  let last: Json = {};
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { status, body } = await sessionsApi(fleet.frontends.gateway, `/${sessionId}`);
    if (status === 200) {
      last = body;
      if (done(body)) return body;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`session ${sessionId} never got there: ${JSON.stringify(last).slice(0, 1500)}`);
}

/** Reads an A2A stream to its end (terminal or interrupted state), collecting the events. */
async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function lastState(events: StreamResponse[]): string | undefined {
  const states = events.map((event) =>
    'task' in event
      ? event.task.status.state
      : 'statusUpdate' in event
        ? event.statusUpdate.status.state
        : undefined,
  );
  return states.filter((state) => state !== undefined).at(-1);
}

const haproxy = findHaproxy();
if (haproxy === undefined) {
  process.stderr.write(
    'replicas-haproxy: skipped, haproxy is not installed (bash infra/scripts/ensure-test-tools.sh installs it)\n',
  );
}
const suite = haproxy === undefined ? describe.skip : describe;

suite('replicas behind HAProxy', () => {
  let llm: ScriptedOpenAI;
  let otlp: OtlpCapture;
  let fleet: ReplicatedFleet;
  let redis: Redis;
  /** An agent built only on `@a2a-js/sdk`: it pays once per approval it receives. */
  let invoiceAgent: SdkAgent;
  const invoices: InvoiceExecutor = createInvoiceExecutor();

  /** The code agents' runs of the program printing `ran <token>` (TOOL spans), across replicas. */
  const runsOf = (token: string) =>
    otlp.spans.filter(
      (span) =>
        span.name === 'code_agent.run_code' &&
        String(span.attributes['input.value']).includes(`ran ${token}`),
    );

  beforeAll(async () => {
    otlp = await startOtlpCapture();
    llm = await startScriptedOpenAI({
      respond: (recorded, context) => {
        const body = recorded.body as { messages?: { role: string; content: string }[] };
        const text = JSON.stringify(body.messages ?? []);
        const token = CODE_MARK.exec(text)?.[1];
        if (body.messages?.[0]?.content.includes('self-contained Python')) {
          // `… after N s`: the program sleeps first, so a test can follow it while it runs.
          const seconds = /after (\d+) s/.exec(text)?.[1] ?? '0';
          const program = `import time\ntime.sleep(${seconds})\nprint("ran ${token ?? 'nothing'}")`;
          return { content: `\`\`\`python\n${program}\n\`\`\`` };
        }
        if (context.jsonSchema !== undefined) {
          if (context.lastUserMessage.includes('instructions'))
            return { json: { mode: 'enhance', effectiveTask: '' } };
          const after = /CODE\[\w+\] after (\d+) s/.exec(text)?.[1];
          const invoice = INVOICE_MARK.exec(text)?.[1];
          if (invoice !== undefined) return { json: invoicePlan(invoice) };
          return { json: token === undefined ? RAG_PLAN : codePlan(token, after) };
        }
        return { content: COMPOSED, latencyMs: composeLatencyMs };
      },
    });
    invoiceAgent = await startSdkAgent({
      ...INVOICE_AGENT_CARD,
      executor: invoices,
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startReplicatedFleet({
      agentUrls: [invoiceAgent.url],
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: {
          HITL_TIMEOUT_SECONDS: '300',
          SESSION_RECOVERY_INTERVAL_MS: '1000',
          // Longer than a lost agent turn takes to be noticed (its 10 s lease, then a look every
          // 5 s), so the test below sees the lease end the step, not the node's time-out.
          NODE_TIMEOUT_MS: '40000',
        },
        'code-agent': {
          CODE_AGENT_TIMEOUT_MS: '10000',
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
    });
    redis = new Redis(fleet.redisUrl);
  }, 240_000);

  afterAll(async () => {
    await fleet?.stop();
    await invoiceAgent?.stop();
    await llm?.close();
    await otlp?.close();
    redis?.disconnect();
  }, 60_000);

  it('spreads round-robin runs over every replica of every kind, and every run completes', async () => {
    const kinds: ReplicatedKind[] = ['gateway', 'orchestrator', 'rag-agent'];
    const before = await Promise.all(kinds.map((kind) => countsPerReplica(fleet, kind)));
    const client = openai(fleet, fleet.frontends.gateway);
    const runs: Awaited<ReturnType<typeof streamChat>>[] = [];
    // Two at a time, six in all: each gateway, orchestrator and RAG replica gets some.
    for (let round = 0; round < 3; round += 1) {
      runs.push(
        ...(await Promise.all(
          [0, 1].map(() =>
            streamChat(client, { message: 'What does the travel policy say about trains?' }),
          ),
        )),
      );
    }
    for (const run of runs) {
      expect(run.error).toBeUndefined();
      expect(run.content).toContain(COMPOSED);
      const result = eventsOf(run.events, 'run-result')[0];
      expect(result?.['nodes']).toEqual([
        expect.objectContaining({ agent: 'rag-agent', state: 'completed' }),
      ]);
    }
    const after = await Promise.all(kinds.map((kind) => countsPerReplica(fleet, kind)));
    const served = Object.fromEntries(
      kinds.map((kind, at) => [
        kind,
        after[at]!.map((count, replica) => count - (before[at]![replica] ?? 0)),
      ]),
    );
    process.stderr.write(`replicas-haproxy: calls served per replica ${JSON.stringify(served)}\n`);
    // Six chats over two gateways; six runs' A2A calls over two orchestrators; six RAG steps over
    // three RAG agents. Round robin per request: nobody is left out.
    expect(served['gateway']).toEqual([3, 3]);
    for (const kind of kinds) {
      for (const count of served[kind] as number[]) expect(count).toBeGreaterThan(0);
    }
  }, 60_000);

  it('answers GetTask and SubscribeToTask for a task on any replica', async () => {
    // A RAG task through the frontend: every replica reads the same finished task.
    const ragTask = (await a2a(fleet.frontends['rag-agent']).sendMessage({
      message: createMessage({
        parts: [
          textPart('What does the travel policy say about trains?'),
          dataPart({ fleet: { sessionId: randomUUID(), nodeId: 'docs', tenant: 'e2e' } }),
        ],
      }),
    })) as Task;
    expect(ragTask.status.state).toBe('TASK_STATE_COMPLETED');
    for (const replica of fleet.replicas['rag-agent']) {
      const read = await a2a(replica.url).getTask({ id: ragTask.id });
      expect(read.status).toEqual(ragTask.status);
      expect(read.artifacts).toEqual(ragTask.artifacts);
    }

    // A code task waiting for approval, started on replica 1 …
    const token = randomUUID().slice(0, 8);
    const [first, second] = fleet.replicas['code-agent'] as [RunningService, RunningService];
    const waiting = (await a2a(first.url).sendMessage({
      message: createMessage({ parts: `Print the marker CODE[${token}] after 2 s.` }),
    })) as Task;
    expect(waiting.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    // … read on replica 2 and, four times, through the frontend (both replicas answer).
    expect((await a2a(second.url).getTask({ id: waiting.id })).status.state).toBe(
      'TASK_STATE_AUTH_REQUIRED',
    );
    for (let read = 0; read < 4; read += 1) {
      const task = await a2a(fleet.frontends['code-agent']).getTask({ id: waiting.id });
      expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    }
    // Replica 1 takes the approval and runs the program (it sleeps 2 s first); replica 2 follows
    // the task while it runs, from its first WORKING status to the end.
    const continuation = a2a(first.url).sendStreamingMessage({
      message: createMessage({
        taskId: waiting.id,
        parts: [dataPart({ approvalDecision: { decision: 'approve' } })],
      }),
    });
    const continued: StreamResponse[] = [];
    // Read by hand: leaving a `for await` would abort the request, and with it the run.
    while (lastState(continued) !== 'TASK_STATE_WORKING') {
      const next = await continuation.next();
      if (next.done === true) break;
      continued.push(next.value);
    }
    const followed = collect(a2a(second.url).subscribeToTask({ id: waiting.id }));
    continued.push(...(await collect(continuation)));
    expect(lastState(continued)).toBe('TASK_STATE_COMPLETED');
    const seenOnSecond = await followed;
    expect(lastState(seenOnSecond)).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(seenOnSecond)).toContain(`ran ${token}`);
    // Both replicas read the finished task; the program ran once.
    for (const replica of [first, second]) {
      expect((await a2a(replica.url).getTask({ id: waiting.id })).status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    }
    await otlp.waitForSpans(() => runsOf(token).length > 0);
    expect(runsOf(token)).toHaveLength(1);
  }, 60_000);

  it('releases a run streamed by gateway A when the approval is decided through gateway B', async () => {
    const token = randomUUID().slice(0, 8);
    const [gatewayA, gatewayB] = fleet.replicas.gateway as [RunningService, RunningService];
    let decided: number | undefined;
    const chat = await streamChat(openai(fleet, gatewayA.url), {
      message: `Run the program CODE[${token}]`,
      onEvent: async (event, seen) => {
        if (event.type !== 'approval-required') return;
        const path = `/${seen.sessionId}/approvals/${String(event['approvalId'])}`;
        decided = (
          await sessionsApi(gatewayB.url, path, {
            method: 'POST',
            body: JSON.stringify({ decision: 'approve' }),
          })
        ).status;
      },
    });
    expect(decided).toBe(200);
    expect(chat.error).toBeUndefined();
    expect(chat.stopped).toBe(false);
    expect(chat.content).toContain(COMPOSED);
    const result = eventsOf(chat.events, 'run-result')[0];
    expect(result?.['nodes']).toEqual([
      expect.objectContaining({ agent: 'code-agent', state: 'completed' }),
    ]);
    const session = await waitForSession(fleet, chat.sessionId, (s) => s['status'] === 'completed');
    expect(session['nodes']['calc']['data']).toMatchObject({ stdout: `ran ${token}\n` });
    await otlp.waitForSpans(() => runsOf(token).length > 0);
    expect(runsOf(token)).toHaveLength(1);
  }, 60_000);

  it('resumes a session with X-Session-ID through any gateway replica', async () => {
    const token = randomUUID().slice(0, 8);
    const [gateway1, gateway2] = fleet.replicas.gateway as [RunningService, RunningService];
    // Started through the frontend; let go once it waits for approval.
    const started = await streamChat(openai(fleet, fleet.frontends.gateway), {
      message: `Run the program CODE[${token}]`,
      onEvent: (event) => (event.type === 'approval-required' ? 'stop' : undefined),
    });
    const asked = eventsOf(started.events, 'approval-required')[0]!;
    const { sessionId } = started;
    // Attached through gateway 2 while it waits; decided through gateway 1: the attached stream
    // goes on to the answer.
    let decided: number | undefined;
    const attached = await streamChat(openai(fleet, gateway2.url), {
      message: 'resume',
      sessionId,
      onEvent: async (event: FleetEvent) => {
        if (decided !== undefined || event.type !== 'approval-required') return;
        decided = (
          await sessionsApi(
            gateway1.url,
            `/${sessionId}/approvals/${String(asked['approvalId'])}`,
            {
              method: 'POST',
              body: JSON.stringify({ decision: 'approve' }),
            },
          )
        ).status;
      },
    });
    expect(decided).toBe(200);
    expect(attached.error).toBeUndefined();
    expect(attached.content).toContain(COMPOSED);
    // The finished session answers the same through each replica and through the frontend.
    for (const baseUrl of [gateway1.url, gateway2.url, fleet.frontends.gateway]) {
      const again = await streamChat(openai(fleet, baseUrl), { message: 'resume', sessionId });
      expect(again.error).toBeUndefined();
      expect(again.content).toContain(COMPOSED);
    }
    const session = await waitForSession(fleet, sessionId, (s) => s['status'] === 'completed');
    expect(session['nodes']['calc']['data']).toMatchObject({ stdout: `ran ${token}\n` });
    expect(runsOf(token).length).toBeLessThanOrEqual(1);
    await otlp.waitForSpans(() => runsOf(token).length > 0);
    expect(runsOf(token)).toHaveLength(1);
  }, 60_000);

  // Last: it leaves one replica of each kind dead.
  it('ends a code step whose agent replica dies mid-turn as failed, saying why, and runs it nowhere else', async () => {
    const token = randomUUID().slice(0, 8);
    const client = openai(fleet, fleet.frontends.gateway);
    const asked = await streamChat(client, {
      message: `Run the program CODE[${token}] after 8 s`,
      onEvent: (event) => (event.type === 'approval-required' ? 'stop' : undefined),
    });
    const approvalId = String(eventsOf(asked.events, 'approval-required')[0]?.['approvalId']);
    const approved = await sessionsApi(
      fleet.frontends.gateway,
      `/${asked.sessionId}/approvals/${approvalId}`,
      { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
    );
    expect(approved.status).toBe(200);
    // The approved program sleeps 8 s on one code replica: find it, and kill it mid-turn.
    const codeReplicas = fleet.replicas['code-agent'];
    let running = -1;
    const deadline = Date.now() + 20_000;
    while (running < 0 && Date.now() < deadline) {
      const counts = await Promise.all(codeReplicas.map((replica) => turnsInFlight(replica)));
      running = counts.findIndex((count) => count > 0);
      if (running < 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(running).toBeGreaterThanOrEqual(0);
    await fleet.kill('code-agent', running);
    const killedAt = Date.now();
    try {
      const session = await waitForSession(fleet, asked.sessionId, (each) =>
        ['completed', 'failed'].includes(String(each['status'])),
      );
      const endedAfterMs = Date.now() - killedAt;
      const node = session['nodes']['calc'];
      // The other replica's reader saw the turn's lease lapse and ended the task: no time-out.
      expect(node['state']).toBe('failed');
      expect(JSON.stringify(node)).toContain('stopped before it finished');
      expect(endedAfterMs).toBeLessThan(35_000);
      // The step is not sent again (the agent may have acted): the program ran nowhere.
      expect(runsOf(token)).toHaveLength(0);
      process.stderr.write(
        `replicas-haproxy: a code turn lost with its replica ended the step after ${endedAfterMs} ms\n`,
      );
    } finally {
      await fleet.restart('code-agent', running);
    }
  }, 120_000);

  it('keeps every run through a rolling restart of both orchestrators, with approvals pending on each, its own agents and an @a2a-js/sdk agent alike', async () => {
    const client = openai(fleet, fleet.frontends.gateway);
    const tokens = [0, 1].map(() => randomUUID().slice(0, 8));
    const numbers = [0, 1].map(() => `INV-${Math.floor(Math.random() * 9e5) + 1e5}`);
    // Four runs (two programs, two invoices), clients attached, each waiting for its approval.
    const questions = [
      ...tokens.map((token) => `Run the program CODE[${token}]`),
      ...numbers.map((invoice) => `Pay invoice INVOICE[${invoice}]`),
    ];
    const runs = [];
    for (const question of questions) runs.push(await startRun(client, question));
    const approvalIds = await Promise.all(
      runs.map(async (run) =>
        String(
          (await run.waitForEvent((event) => event.type === 'approval-required'))['approvalId'],
        ),
      ),
    );
    // Both orchestrators run some of them (runner lease owners are `<host>:<pid>:…`).
    const owners = await Promise.all(
      runs.map((run) => redis.get(`fleet:{${run.sessionId}}:lease:runner`)),
    );
    const pids = fleet.replicas.orchestrator.map((service) => String(service.process.pid));
    for (const pid of pids) {
      expect(owners.filter((owner) => owner?.split(':')[1] === pid).length).toBeGreaterThan(0);
    }

    // A rolling restart: each orchestrator in turn stops gracefully and starts again.
    await fleet.restartGracefully('orchestrator', 0);
    await fleet.restartGracefully('orchestrator', 1);

    for (const [index, run] of runs.entries()) {
      const pending = await sessionsApi(fleet.frontends.gateway, `/${run.sessionId}/approvals`);
      expect(pending.body['data']).toEqual([
        expect.objectContaining({ id: approvalIds[index], status: 'pending' }),
      ]);
      const decided = await sessionsApi(
        fleet.frontends.gateway,
        `/${run.sessionId}/approvals/${approvalIds[index]}`,
        { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
      );
      expect(decided.status).toBe(200);
    }
    // Every attached client gets its answer on the stream it opened, none cut off.
    for (const run of runs) {
      const end = await run.ended;
      expect(end).toMatchObject({ how: 'clean' });
      expect(run.content).toContain(COMPOSED);
      expect(eventsOf(run.events, 'run-result')).toHaveLength(1);
    }
    for (const run of runs) {
      const done = await waitForSession(
        fleet,
        run.sessionId,
        (session) => session['status'] === 'completed',
      );
      for (const node of Object.values(done['nodes'] as Record<string, Json>)) {
        expect(node).toMatchObject({ state: 'completed' });
      }
    }
    // Each approved action happened exactly once.
    await otlp.waitForSpans(() => tokens.every((token) => runsOf(token).length > 0));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const token of tokens) expect(runsOf(token)).toHaveLength(1);
    for (const invoice of numbers) {
      expect(invoices.payments.filter((payment) => payment.invoice === invoice)).toHaveLength(1);
    }
  }, 120_000);

  it('loses no task and no approval, and runs no program twice, when one replica of each kind is SIGKILLed mid-run', async () => {
    const client = openai(fleet, fleet.frontends.gateway);
    const tokens = [0, 1, 2, 3].map(() => randomUUID().slice(0, 8));
    // Four code runs wait for approval (their streams let go) …
    const waiting = await Promise.all(
      tokens.map((token) =>
        streamChat(client, {
          message: `Run the program CODE[${token}]`,
          onEvent: (event) => (event.type === 'approval-required' ? 'stop' : undefined),
        }),
      ),
    );
    const approvalIds = waiting.map((run) =>
      String(eventsOf(run.events, 'approval-required')[0]?.['approvalId']),
    );
    // … clients attach to them again (over both gateways and both orchestrators), and four RAG
    // runs start: all of them are in flight when the replicas die.
    const attached = waiting.map((run) =>
      streamChat(client, { message: 'resume', sessionId: run.sessionId }),
    );
    // The RAG runs' session ids as their responses start (a stream cut before its first chunk
    // leaves no other trace of it on the client).
    const ragSessions: string[] = [];
    const recording = new OpenAI({
      apiKey: E2E_KEY,
      baseURL: fleet.baseURL,
      maxRetries: 0,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const id = response.headers.get('x-session-id');
        if (id !== null) ragSessions.push(id);
        return response;
      },
    });
    // Their answers take 2 s to compose: the replicas die once every RAG step has ended (no agent
    // turn is running then; see docs/architecture.md on a turn whose replica dies) and while
    // every run is still composing on its orchestrator and streaming through its gateway.
    composeLatencyMs = 2000;
    let ragStepsEnded = 0;
    const ragRuns = [0, 1, 2, 3].map(() =>
      streamChat(recording, {
        message: 'What does the travel policy say about trains?',
        onEvent: (event) => {
          if (event.type === 'node-end' && event['nodeId'] === 'docs') ragStepsEnded += 1;
        },
      }),
    );
    const deadline = Date.now() + 30_000;
    while (ragStepsEnded < 4) {
      if (Date.now() > deadline) throw new Error(`only ${ragStepsEnded} of 4 RAG steps ended`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The orchestrator about to die runs some of the waiting sessions: it holds their runner
    // leases (owner `<host>:<pid>:…`).
    const owners = await Promise.all(
      waiting.map((run) => redis.get(`fleet:{${run.sessionId}}:lease:runner`)),
    );
    const doomed = String(fleet.replicas.orchestrator[0]!.process.pid);
    expect(owners.filter((owner) => owner?.split(':')[1] === doomed).length).toBeGreaterThan(0);
    await Promise.all(
      (['gateway', 'orchestrator', 'rag-agent', 'code-agent'] as const).map((kind) =>
        fleet.kill(kind, 0),
      ),
    );
    await fleet.waitForUp('gateway', 1);
    await fleet.waitForUp('orchestrator', 1);
    await fleet.waitForUp('rag-agent', 2);
    await fleet.waitForUp('code-agent', 1);

    // No approval lost: each session still waits for its own, and takes the decision.
    for (const [index, run] of waiting.entries()) {
      const pending = await sessionsApi(fleet.frontends.gateway, `/${run.sessionId}/approvals`);
      expect(pending.status).toBe(200);
      expect(pending.body['data']).toEqual([
        expect.objectContaining({ id: approvalIds[index], status: 'pending', action: 'run-code' }),
      ]);
      const decided = await sessionsApi(
        fleet.frontends.gateway,
        `/${run.sessionId}/approvals/${approvalIds[index]}`,
        { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
      );
      expect(decided.status).toBe(200);
    }

    const ended = await Promise.allSettled([...attached, ...ragRuns]);

    // No task lost: every run completes (a dead orchestrator's runs once its lease lapses).
    const sessions = [...waiting.map((run) => run.sessionId), ...ragSessions];
    expect(ragSessions).toHaveLength(4);
    const done = await Promise.all(
      sessions.map((id) =>
        waitForSession(fleet, id, (session) => session['status'] === 'completed'),
      ),
    );
    for (const [index, token] of tokens.entries()) {
      expect(done[index]!['nodes']['calc']).toMatchObject({
        state: 'completed',
        data: expect.objectContaining({ stdout: `ran ${token}\n` }),
      });
    }
    for (const session of done.slice(tokens.length)) {
      expect(session['nodes']['docs']).toMatchObject({ state: 'completed' });
    }
    // Every client that was cut off gets the answer with X-Session-ID, through what is left.
    for (const id of sessions) {
      const rest = await streamChat(client, { message: 'resume', sessionId: id });
      expect(rest.error).toBeUndefined();
      expect(rest.content).toContain(COMPOSED);
    }
    // No side effect twice: each approved program ran exactly once, across the code replicas.
    await otlp.waitForSpans(() => tokens.every((token) => runsOf(token).length > 0));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const token of tokens) expect(runsOf(token)).toHaveLength(1);
    process.stderr.write(
      `replicas-haproxy: streams at the kill: ${ended.filter((each) => each.status === 'fulfilled' && each.value.error === undefined).length} ended cleanly, ${ended.filter((each) => each.status === 'rejected' || each.value.error !== undefined).length} were cut\n`,
    );
  }, 90_000);
});
