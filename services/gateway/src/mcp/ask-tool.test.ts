import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  buildGateway,
  OTHER_KEY,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from '../test-support/build-gateway';
import {
  SCRIPTED_ANSWER,
  startScriptedSessionOrchestrator,
  type ScriptedSessionOrchestrator,
} from '../test-support/scripted-session-orchestrator';
import { seedSession } from '../test-support/seed-session';
import { serve } from '../test-support/serve';
import { startMcpAskGateway, type McpAskGateway } from '../test-support/mcp-ask-gateway';
import { createToolPermissions } from '../tool-permissions';
import { argumentsDigest, createApprovalStateCodec } from './approval-state';
import { until } from '../test-support/until';

const STATE_KEY = Buffer.from('a-test-key-for-mcp-request-state-0123456789');

interface AskContent {
  answer: string;
  citations: { title: string; url?: string }[];
  steps: { id: string; agent: string; state: string }[];
  session_id?: string;
  state: string;
  progress: string[];
  console?: string;
  approval?: { id: string; summary: string; preview: string; decide: { path: string } };
}

interface InputRequired {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: { message: string } }>;
  requestState?: string;
}

/** The text of a tool result's blocks, joined. */
function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as { text?: string }[];
  return blocks.map((block) => block.text ?? '').join('\n');
}

describe('ask over MCP', () => {
  let ask: McpAskGateway<ScriptedSessionOrchestrator>;
  let sessions: TestSessions;
  let orchestrator: ScriptedSessionOrchestrator;
  let gateway: TestGateway;

  beforeAll(async () => {
    ask = await startMcpAskGateway(startScriptedSessionOrchestrator, STATE_KEY);
    ({ sessions, orchestrator, gateway } = ask);
  });

  afterAll(() => ask.close());

  const url = () => ask.url();
  const headers = (key?: string) => ask.headers(key);
  const store = () => sessions.store;

  async function v1Client(
    elicitation: boolean,
    onElicit?: (message: string) => void,
    hold?: Promise<void>,
  ) {
    const client = new ClientV1(
      { name: 'v1-ask', version: '1.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        onElicit?.(req.params.message);
        await hold;
        return { action: 'accept', content: { decision: 'approve' } };
      });
    }
    await client.connect(new TransportV1(url(), { requestInit: { headers: headers() } }));
    return client;
  }

  async function v2Client(options: { autoFulfill: boolean; key?: string }) {
    const client = new ClientV2(
      { name: 'v2-ask', version: '2.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: options.autoFulfill },
      },
    );
    client.setRequestHandler('elicitation/create', () =>
      Promise.resolve({ action: 'accept', content: { decision: 'approve' } }),
    );
    await client.connect(
      new TransportV2(url(), { requestInit: { headers: headers(options.key) } }),
    );
    return client;
  }

  it('lists ask with honest annotations and an output schema', async () => {
    const client = await v1Client(false);
    try {
      const { tools } = await client.listTools();
      const ask = tools.find((tool) => tool.name === 'ask');
      expect(ask?.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(ask?.outputSchema).toMatchObject({ type: 'object' });
    } finally {
      await client.close();
    }
  });

  it('2025-11-25 with elicitation: asks for the approval, decides it once, completes with progress', async () => {
    const elicited: string[] = [];
    const client = await v1Client(true, (message) => elicited.push(message));
    try {
      const progress: { progress: number; message?: string | undefined }[] = [];
      const result = await client.callTool(
        { name: 'ask', arguments: { question: 'Send the report to Bob' } },
        undefined,
        { onprogress: (update) => progress.push(update), timeout: 20_000 },
      );
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as AskContent;
      expect(content.state).toBe('completed');
      expect(content.answer).toBe(SCRIPTED_ANSWER);
      expect(content.citations).toEqual([{ title: 'Report', url: 'https://example.com/report' }]);
      expect(content.steps).toEqual([
        expect.objectContaining({ id: 'n1', agent: 'mail', state: 'completed' }),
      ]);
      expect(content.console).toBe(`/console/sessions/${content.session_id}`);
      // The form showed what is at stake.
      expect(elicited).toHaveLength(1);
      expect(elicited[0]).toMatch(/send-mail/);
      expect(elicited[0]).toMatch(/To: bob@example.com/);
      expect(elicited[0]).toMatch(/Risk: high/);
      // Progress rose, each with its readable line.
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.map((update) => update.progress)).toEqual(
        [...progress.map((update) => update.progress)].sort((a, b) => a - b),
      );
      expect(progress.map((update) => update.message)).toContain(
        'Waiting for approval: Send the report to bob@example.com',
      );
      const sessionId = content.session_id ?? '';
      const session = await store().getForTenant(sessionId, 'acme');
      expect(session.approvals['ap-1']?.status).toBe('approved');
      expect(orchestrator.finished.get(sessionId)).toBe(1);
    } finally {
      await client.close();
    }
  }, 20_000);

  it('2025-11-25: an approval decided elsewhere while the form is open lets the run go on', async () => {
    let asked!: () => void;
    const elicited = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The person never answers the form: someone approves in the console meanwhile.
    const client = await v1Client(true, () => asked(), new Promise<void>(() => undefined));
    try {
      const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
      const call = client.callTool(
        { name: 'ask', arguments: { question: 'Send the report to Grace' } },
        undefined,
        { timeout: 20_000 },
      );
      await elicited;
      const sessionId =
        (await store().list('acme', { limit: 100 })).find(
          (s) => !before.has(s.id) && s.request === 'Send the report to Grace',
        )?.id ?? '';
      const decided = await request(gateway.app)
        .post(`/v1/sessions/${sessionId}/approvals/ap-1`)
        .auth(TEST_KEY, { type: 'bearer' })
        .send({ decision: 'approve' });
      expect(decided.status).toBe(200);
      const result = await call;
      expect(result.structuredContent).toMatchObject({
        state: 'completed',
        answer: SCRIPTED_ANSWER,
        session_id: sessionId,
      });
      expect(orchestrator.finished.get(sessionId)).toBe(1);
    } finally {
      await client.close();
    }
  }, 20_000);

  it('2026-07-28: an input-required result with a signed state; the retry completes the run', async () => {
    const client = await v2Client({ autoFulfill: false });
    try {
      const args = { question: 'Send the report to Bob', route: 'orchestration' };
      const first = (await client.callTool(
        { name: 'ask', arguments: args },
        { allowInputRequired: true },
      )) as unknown as InputRequired;
      expect(first.inputRequests?.['approval']?.method).toBe('elicitation/create');
      expect(first.inputRequests?.['approval']?.params.message).toMatch(/To: bob@example.com/);
      expect(first.requestState).toMatch(/^[\w-]+\.[\w-]+$/);
      const retried = await client.callTool(
        {
          name: 'ask',
          arguments: args,
          inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
          requestState: first.requestState,
        } as never,
        { allowInputRequired: true },
      );
      const content = retried.structuredContent as AskContent;
      expect(content).toMatchObject({ state: 'completed', answer: SCRIPTED_ANSWER });
      const sessionId = content.session_id ?? '';
      expect((await store().getForTenant(sessionId, 'acme')).approvals['ap-1']?.status).toBe(
        'approved',
      );
      expect(orchestrator.finished.get(sessionId)).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28 with auto-fulfilment: the client answers the form and gets the answer', async () => {
    const client = await v2Client({ autoFulfill: true });
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'Send the report to Bob' },
      });
      expect(result.structuredContent).toMatchObject({
        state: 'completed',
        answer: SCRIPTED_ANSWER,
      });
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: a retry for a session no orchestrator runs any more resumes it to its end', async () => {
    // As after an orchestrator restart: the session waits for ap-1 and nothing runs it.
    const seeded = await seedSession(store(), { approvalExpiresInMs: 3_600_000 });
    const args = { question: 'Send the report to Bob', route: 'orchestration' };
    const requestState = createApprovalStateCodec(STATE_KEY).mint({
      tenant: 'acme',
      sessionId: seeded.id,
      approvalId: 'ap-1',
      expiresAt: Date.now() + 60_000,
      argumentsDigest: argumentsDigest(args),
    });
    const client = await v2Client({ autoFulfill: false });
    try {
      const result = await client.callTool(
        {
          name: 'ask',
          arguments: args,
          inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
          requestState,
        } as never,
        { allowInputRequired: true },
      );
      expect(result.structuredContent).toMatchObject({
        state: 'completed',
        answer: SCRIPTED_ANSWER,
        session_id: seeded.id,
      });
      expect(
        orchestrator.double.calls.some((call) => call.input?.resumeSessionId === seeded.id),
      ).toBe(true);
      expect((await store().getForTenant(seeded.id, 'acme')).approvals['ap-1']?.status).toBe(
        'approved',
      );
      expect(orchestrator.finished.get(seeded.id)).toBe(1);
    } finally {
      await client.close();
    }
  });

  describe('a requestState that is not the gateway’s own is refused, never a decision', () => {
    let client: ClientV2;
    let state: string;
    let sessionId: string;
    const args = { question: 'Send the report to Alice', route: 'orchestration' as const };
    const approve = { approval: { action: 'accept', content: { decision: 'approve' } } };
    const codec = createApprovalStateCodec(STATE_KEY);

    beforeAll(async () => {
      client = await v2Client({ autoFulfill: false });
      const first = (await client.callTool(
        { name: 'ask', arguments: args },
        { allowInputRequired: true },
      )) as unknown as InputRequired;
      state = first.requestState ?? '';
      sessionId = (
        JSON.parse(Buffer.from(state.split('.')[0] ?? '', 'base64url').toString()) as {
          s: string;
        }
      ).s;
    });
    afterAll(async () => {
      await store().decideApproval({
        sessionId,
        approvalId: 'ap-1',
        tenant: 'acme',
        decision: 'deny',
      });
      await client.close();
    });

    const retry = (requestState: string, retryArgs: object = args, as = client) =>
      as.callTool(
        { name: 'ask', arguments: retryArgs, inputResponses: approve, requestState } as never,
        { allowInputRequired: true },
      );

    const expectRefused = async (result: object, why: RegExp) => {
      expect((result as { isError?: boolean }).isError).toBe(true);
      expect(textOf(result)).toMatch(/requestState was refused/);
      expect(textOf(result)).toMatch(why);
      expect((await store().getForTenant(sessionId, 'acme')).approvals['ap-1']?.status).toBe(
        'pending',
      );
    };

    it('tampered', async () => {
      const [body, mac] = state.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { e: number };
      payload.e += 1000;
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      await expectRefused(await retry(forged), /signature/);
      await expectRefused(await retry(`${state}x`), /signature|malformed/);
    });

    it('expired', async () => {
      const expired = codec.mint({
        tenant: 'acme',
        sessionId,
        approvalId: 'ap-1',
        expiresAt: Date.now() - 1000,
        argumentsDigest: argumentsDigest(args),
      });
      await expectRefused(await retry(expired), /expired/);
    });

    it('for other arguments', async () => {
      await expectRefused(await retry(state, { ...args, question: 'Something else' }), /arguments/);
    });

    it('another tenant’s', async () => {
      const globex = await v2Client({ autoFulfill: false, key: OTHER_KEY });
      try {
        await expectRefused(await retry(state, args, globex), /another tenant/);
      } finally {
        await globex.close();
      }
    });
  });

  it('a client that cannot elicit: waiting_approval with the session, the link and how to decide', async () => {
    const client = await v1Client(false);
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'Send the report to Carol' },
      });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as AskContent;
      expect(content.state).toBe('waiting_approval');
      const sessionId = content.session_id ?? '';
      expect(sessionId).not.toBe('');
      expect(content.console).toBe(`/console/sessions/${sessionId}`);
      expect(content.approval).toMatchObject({
        id: 'ap-1',
        summary: 'Send the report to bob@example.com',
        preview: 'To: bob@example.com\nSubject: Report',
        decide: { path: `/v1/sessions/${sessionId}/approvals/ap-1` },
      });
      expect(textOf(result)).toMatch(/POST \/v1\/sessions\/.+\/approvals\/ap-1/);
      // Decided elsewhere, then followed with session_id to its end.
      const decided = await request(gateway.app)
        .post(`/v1/sessions/${sessionId}/approvals/ap-1`)
        .auth(TEST_KEY, { type: 'bearer' })
        .send({ decision: 'approve' });
      expect(decided.status).toBe(200);
      const followed = await client.callTool({
        name: 'ask',
        arguments: { question: 'go on', session_id: sessionId },
      });
      expect(followed.structuredContent).toMatchObject({
        state: 'completed',
        answer: SCRIPTED_ANSWER,
        session_id: sessionId,
      });
      expect(orchestrator.finished.get(sessionId)).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('a cancel from the client cancels the session (2025-11-25)', async () => {
    // The person never answers the form; the client cancels the call instead.
    const client = await v1Client(true, undefined, new Promise<void>(() => undefined));
    try {
      const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
      const abort = new AbortController();
      const call = client.callTool(
        { name: 'ask', arguments: { question: 'Send the report to Dave' } },
        undefined,
        { signal: abort.signal, timeout: 20_000, onprogress: () => undefined },
      );
      let sessionId: string | undefined;
      await until(async () => {
        const list = await store().list('acme', { limit: 100 });
        sessionId = list.find(
          (s) => !before.has(s.id) && s.request === 'Send the report to Dave',
        )?.id;
        return sessionId !== undefined;
      }, 'the session');
      // Cancel once the run is under way (its approval asked for): the call itself is pending.
      await until(
        async () => (await store().get(sessionId ?? ''))?.approvals['ap-1']?.status === 'pending',
        'the approval',
      );
      abort.abort('changed my mind');
      await expect(call).rejects.toThrow();
      await until(
        async () => (await store().get(sessionId ?? ''))?.status === 'canceled',
        'the cancel',
      );
      expect(orchestrator.finished.get(sessionId ?? '')).toBeUndefined();
    } finally {
      await client.close();
    }
  }, 20_000);

  it('a cancel from a 2026-07-28 client (its call aborted) cancels the session', async () => {
    const client = await v2Client({ autoFulfill: false });
    const release = orchestrator.hold('new:Send the report to Erin');
    try {
      const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
      const abort = new AbortController();
      // Progress asked for: the answer streams, so the call is open while the run goes on.
      const call = client.callTool(
        { name: 'ask', arguments: { question: 'Send the report to Erin' } },
        { signal: abort.signal, onprogress: () => undefined, allowInputRequired: true },
      );
      call.catch(() => undefined);
      let sessionId: string | undefined;
      await until(async () => {
        const list = await store().list('acme', { limit: 100 });
        sessionId = list.find(
          (s) => !before.has(s.id) && s.request === 'Send the report to Erin',
        )?.id;
        return sessionId !== undefined;
      }, 'the session');
      abort.abort('changed my mind');
      await expect(call).rejects.toThrow();
      await until(
        async () => (await store().get(sessionId ?? ''))?.status === 'canceled',
        'the cancel',
      );
      expect(orchestrator.finished.get(sessionId ?? '')).toBeUndefined();
    } finally {
      release();
      await client.close();
    }
  }, 20_000);

  it('a 2025-11-25 client that goes away without cancelling leaves the run going, recorded', async () => {
    let asked!: () => void;
    const elicited = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const client = await v1Client(true, () => asked(), new Promise<void>(() => undefined));
    const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
    const call = client.callTool(
      { name: 'ask', arguments: { question: 'Send the report to Frank' } },
      undefined,
      { timeout: 20_000 },
    );
    call.catch(() => undefined);
    await elicited;
    await client.close();
    const sessionId = (await store().list('acme', { limit: 100 })).find(
      (s) => !before.has(s.id) && s.request === 'Send the report to Frank',
    )?.id;
    expect(sessionId).toBeDefined();
    // Still waiting for the person, not canceled; decided elsewhere, it runs to its end.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await store().get(sessionId ?? ''))?.status).toBe('waiting_approval');
    const decided = await request(gateway.app)
      .post(`/v1/sessions/${sessionId}/approvals/ap-1`)
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ decision: 'approve' });
    expect(decided.status).toBe(200);
    await until(
      async () => (await store().get(sessionId ?? ''))?.status === 'completed',
      'the run to complete',
    );
    expect(orchestrator.finished.get(sessionId ?? '')).toBe(1);
  }, 20_000);

  it('runs with the tenant’s tool permissions, as the chat route does', async () => {
    const restricted = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: {
        orchestratorClient: orchestrator.client,
        toolPermissions: createToolPermissions({
          inline: { tenants: { acme: { deny: ['memory/delete_*'] } } },
        }),
      },
    });
    // The store is this file's: only the server is closed here.
    const restrictedServed = await serve(restricted.app);
    const client = new ClientV1({ name: 'v1-restricted', version: '1.0.0' });
    await client.connect(
      new TransportV1(new URL(`${restrictedServed.url}/mcp`), {
        requestInit: { headers: headers() },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'Send the report to Heidi' },
      });
      const content = result.structuredContent as AskContent;
      expect(content.state).toBe('waiting_approval');
      const call = orchestrator.double.calls.find(
        (made) => made.text === 'Send the report to Heidi',
      );
      expect(call?.input?.toolPolicy).toEqual({ deny: ['memory/delete_*'] });
      expect(call?.input?.tenant).toBe('acme');
      await store().decideApproval({
        sessionId: content.session_id ?? '',
        approvalId: 'ap-1',
        tenant: 'acme',
        decision: 'deny',
      });
    } finally {
      await client.close();
      await restrictedServed.close();
    }
  });

  it('sends a new run the steering, plan approval and result review it asks for', async () => {
    const client = await v1Client(false);
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: {
          question: 'Send the report to Dora',
          agents: { prefer: ['mail-agent'], exclude: ['web-agent'] },
          plan_approval: true,
          result_review: true,
        },
      });
      const content = result.structuredContent as AskContent;
      expect(content.state).toBe('waiting_approval');
      const call = orchestrator.double.calls.find(
        (made) => made.text === 'Send the report to Dora',
      );
      expect(call?.input?.steering).toEqual({ prefer: ['mail-agent'], exclude: ['web-agent'] });
      expect(call?.input?.planApproval).toBe('required');
      expect(call?.input?.resultReview).toBe('required');
      await store().decideApproval({
        sessionId: content.session_id ?? '',
        approvalId: 'ap-1',
        tenant: 'acme',
        decision: 'deny',
      });
      // Without the options a run gets the defaults: no steering, no review, no plan approval.
      const plain = await client.callTool({
        name: 'ask',
        arguments: { question: 'Send the report to Emil' },
      });
      const made = orchestrator.double.calls.find((one) => one.text === 'Send the report to Emil');
      expect(made?.input?.steering).toBeUndefined();
      expect(made?.input?.planApproval).toBe('none');
      expect(made?.input?.resultReview).toBeUndefined();
      await store().decideApproval({
        sessionId: (plain.structuredContent as AskContent).session_id ?? '',
        approvalId: 'ap-1',
        tenant: 'acme',
        decision: 'deny',
      });
    } finally {
      await client.close();
    }
  });

  it('answers a wrong steering or review option as a tool error naming it', async () => {
    const client = await v1Client(false);
    try {
      const wrongReview = await client.callTool({
        name: 'ask',
        arguments: { question: 'Hello', result_review: 'yes' },
      });
      expect(wrongReview.isError).toBe(true);
      expect(JSON.stringify(wrongReview.content)).toContain('result_review');
      const wrongAgents = await client.callTool({
        name: 'ask',
        arguments: { question: 'Hello', agents: { prefer: ['two words'] } },
      });
      expect(wrongAgents.isError).toBe(true);
      expect(JSON.stringify(wrongAgents.content)).toContain('no spaces');
    } finally {
      await client.close();
    }
  });

  it('reasoning without an upstream model is a tool error naming what is missing', async () => {
    const client = await v1Client(false);
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'Think about it', route: 'reasoning' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^SERVICE_UNAVAILABLE: .*reasoning needs an upstream LLM/);
    } finally {
      await client.close();
    }
  });

  it('answers another tenant’s session as a tool error, not found', async () => {
    const globex = await store().create({ tenant: 'globex', request: 'Globex only' });
    const client = await v1Client(false);
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'go on', session_id: globex.id },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^NOT_FOUND: /);
    } finally {
      await client.close();
    }
  });

  it('answers wrong argument types as a tool error', async () => {
    const client = await v1Client(false);
    try {
      for (const args of [{ question: 42 }, { question: 'x', route: 'fast' }, { question: '' }]) {
        const result = await client.callTool({ name: 'ask', arguments: args });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/question|route/);
      }
    } finally {
      await client.close();
    }
  });

  it('auto: a question the classifier passes through is answered by the upstream model', async () => {
    const direct = await buildGateway({
      overrides: {
        orchestratorClient: orchestrator.client,
        autoRouting: {
          classifier: {
            classify: () =>
              Promise.resolve({
                route: 'passthrough' as const,
                reason: 'general question',
                source: 'heuristic' as const,
                cached: false,
              }),
          },
          passthroughModel: 'upstream-model',
        },
      },
    });
    const directServed = await serve(direct.app);
    direct.llm?.enqueue({ content: 'Lisbon is the capital of Portugal.' });
    const client = new ClientV1({ name: 'v1-auto', version: '1.0.0' });
    await client.connect(
      new TransportV1(new URL(`${directServed.url}/mcp`), { requestInit: { headers: headers() } }),
    );
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'What is the capital of Portugal?', route: 'auto' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        answer: 'Lisbon is the capital of Portugal.',
        state: 'completed',
        steps: [],
      });
      const forwarded = direct.llm?.requests.at(-1)?.body as { model: string; stream: boolean };
      expect(forwarded).toMatchObject({ model: 'upstream-model', stream: false });
    } finally {
      await client.close();
      await directServed.close();
      await direct.close();
    }
  });
});
