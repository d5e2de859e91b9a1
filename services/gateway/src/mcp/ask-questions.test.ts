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
  OTHER_KEY,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from '../test-support/build-gateway';
import {
  SECOND_QUESTION,
  secondQuestion,
  startScriptedPauseOrchestrator,
  type ScriptedPauseOrchestrator,
} from '../test-support/scripted-pause-orchestrator';
import { SEEDED_QUESTION, SEEDED_REVIEW_ANSWER, seedSession } from '../test-support/seed-session';
import { startMcpAskGateway, type McpAskGateway } from '../test-support/mcp-ask-gateway';
import { argumentsDigest, createApprovalStateCodec } from './approval-state';
import { until } from '../test-support/until';

const STATE_KEY = Buffer.from('a-test-key-for-mcp-request-state-0123456789');

interface AskContent {
  answer: string;
  session_id?: string;
  state: string;
  waiting?: string;
}

interface InputRequired {
  resultType?: string;
  inputRequests?: Record<
    string,
    { method: string; params: { message: string; requestedSchema: { properties: object } } }
  >;
  requestState?: string;
}

/** One form a client was asked to fill in. */
interface Asked {
  message: string;
  fields: string[];
}

/** A client's reply to a form. */
type Reply = { action: 'accept'; content: Record<string, string> } | { action: 'decline' };

/** The text of a tool result's blocks, joined. */
function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as { text?: string }[];
  return blocks.map((block) => block.text ?? '').join('\n');
}

/** The payload of a `requestState` (signed, not encrypted: the client can read it). */
function stateOf(wire: string): { k?: string; s: string; a: string } {
  return JSON.parse(Buffer.from(wire.split('.')[0] ?? '', 'base64url').toString()) as {
    k?: string;
    s: string;
    a: string;
  };
}

describe('ask over MCP: agents’ questions and result reviews', () => {
  let ask: McpAskGateway<ScriptedPauseOrchestrator>;
  let sessions: TestSessions;
  let orchestrator: ScriptedPauseOrchestrator;
  let gateway: TestGateway;

  beforeAll(async () => {
    ask = await startMcpAskGateway(startScriptedPauseOrchestrator, STATE_KEY);
    ({ sessions, orchestrator, gateway } = ask);
  });

  afterAll(() => ask.close());

  const url = () => ask.url();
  const headers = (key?: string) => ask.headers(key);
  const store = () => sessions.store;

  /** A 2025-11-25 client; with `replies`, it declared elicitation and answers forms in turn. */
  async function v1Client(replies?: (asked: Asked) => Promise<Reply> | Reply) {
    const client = new ClientV1(
      { name: 'v1-questions', version: '1.0.0' },
      { capabilities: replies === undefined ? {} : { elicitation: {} } },
    );
    if (replies !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        const schema =
          'requestedSchema' in req.params
            ? (req.params.requestedSchema as { properties?: object })
            : undefined;
        return replies({
          message: req.params.message,
          fields: Object.keys(schema?.properties ?? {}),
        });
      });
    }
    await client.connect(new TransportV1(url(), { requestInit: { headers: headers() } }));
    return client;
  }

  async function v2Client(options: { autoFulfill: boolean; key?: string; reply?: Reply }) {
    const client = new ClientV2(
      { name: 'v2-questions', version: '2.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: options.autoFulfill },
      },
    );
    client.setRequestHandler('elicitation/create', () =>
      Promise.resolve(options.reply ?? { action: 'decline' as const }),
    );
    await client.connect(
      new TransportV2(url(), { requestInit: { headers: headers(options.key) } }),
    );
    return client;
  }

  /** Forms answered from a list, in order; every form asked is kept. */
  function scripted(replies: Reply[]): {
    asked: Asked[];
    next: (asked: Asked) => Reply;
  } {
    const asked: Asked[] = [];
    return {
      asked,
      next: (form) => {
        asked.push(form);
        const reply = replies[asked.length - 1];
        if (reply === undefined) throw new Error(`form ${asked.length} was not expected`);
        return reply;
      },
    };
  }

  const call = (client: ClientV1, question: string) =>
    client.callTool({ name: 'ask', arguments: { question } }, undefined, { timeout: 20_000 });

  describe('questions, 2025-11-25 with elicitation', () => {
    it('asks the question as a form; the answer reaches the run, which goes on to its end', async () => {
      const forms = scripted([{ action: 'accept', content: { answer: 'The weekly one' } }]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'Q: Send the report');
        expect(result.isError).toBeFalsy();
        const content = result.structuredContent as AskContent;
        expect(content).toMatchObject({ state: 'completed', answer: 'Answered: The weekly one' });
        expect(forms.asked).toHaveLength(1);
        expect(forms.asked[0]?.message).toContain(SEEDED_QUESTION);
        expect(forms.asked[0]?.message).toMatch(/The agent mail \(step n1\) asks/);
        expect(forms.asked[0]?.fields).toEqual(['answer']);
        const sessionId = content.session_id ?? '';
        expect(orchestrator.heard.get(sessionId)).toEqual([
          { kind: 'answer', inputId: 'in-1', text: 'The weekly one' },
        ]);
        const session = await store().getForTenant(sessionId, 'acme');
        expect(session.approvals['in-1']).toMatchObject({
          status: 'answered',
          answer: 'The weekly one',
        });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('asks each question the run stops at in one call', async () => {
      const forms = scripted([
        { action: 'accept', content: { answer: 'weekly' } },
        { action: 'accept', content: { answer: 'Alice' } },
      ]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'QQ: Send the report');
        expect(result.structuredContent).toMatchObject({
          state: 'completed',
          answer: 'Answered: weekly / Alice',
        });
        expect(forms.asked.map((form) => form.message)).toEqual([
          expect.stringContaining(SEEDED_QUESTION),
          expect.stringContaining(SECOND_QUESTION),
        ]);
      } finally {
        await client.close();
      }
    }, 20_000);

    it('declined: waiting_input with how to continue; ask with session_id answers it', async () => {
      const forms = scripted([{ action: 'decline' }]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'Q: Send the report to Ann');
        const content = result.structuredContent as AskContent;
        expect(content.state).toBe('waiting_input');
        const sessionId = content.session_id ?? '';
        expect(textOf(result)).toContain(
          `Answer it by calling ask again with session_id "${sessionId}"`,
        );
        expect((await store().getForTenant(sessionId, 'acme')).approvals['in-1']?.status).toBe(
          'pending',
        );
        expect(orchestrator.heard.get(sessionId)).toBeUndefined();
        const answered = await client.callTool(
          { name: 'ask', arguments: { question: 'The monthly one', session_id: sessionId } },
          undefined,
          { timeout: 20_000 },
        );
        expect(answered.structuredContent).toMatchObject({
          state: 'completed',
          answer: 'Answered: The monthly one',
        });
        expect(forms.asked).toHaveLength(1);
      } finally {
        await client.close();
      }
    }, 20_000);

    it('a question answered elsewhere while the form is open: the run goes on, the form is dropped', async () => {
      let opened!: () => void;
      const asked = new Promise<void>((resolve) => {
        opened = resolve;
      });
      const client = await v1Client(() => {
        opened();
        return new Promise<Reply>(() => undefined);
      });
      try {
        const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
        const pending = call(client, 'Q: Send the report to Ben');
        await asked;
        const sessionId =
          (await store().list('acme', { limit: 100 })).find(
            (s) => !before.has(s.id) && s.request === 'Q: Send the report to Ben',
          )?.id ?? '';
        const posted = await request(gateway.app)
          .post(`/v1/sessions/${sessionId}/inputs/in-1`)
          .auth(TEST_KEY, { type: 'bearer' })
          .send({ text: 'From the console' });
        expect(posted.status).toBe(200);
        expect((await pending).structuredContent).toMatchObject({
          state: 'completed',
          answer: 'Answered: From the console',
          session_id: sessionId,
        });
      } finally {
        await client.close();
      }
    }, 20_000);
  });

  it('a cancel from the client while a question’s form is open cancels the session', async () => {
    let opened!: () => void;
    const asked = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const client = await v1Client(() => {
      opened();
      return new Promise<Reply>(() => undefined);
    });
    try {
      const before = new Set((await store().list('acme', { limit: 100 })).map((s) => s.id));
      const abort = new AbortController();
      const pending = client.callTool(
        { name: 'ask', arguments: { question: 'Q: Send the report to Noor' } },
        undefined,
        { signal: abort.signal, timeout: 20_000 },
      );
      await asked;
      const sessionId =
        (await store().list('acme', { limit: 100 })).find(
          (s) => !before.has(s.id) && s.request === 'Q: Send the report to Noor',
        )?.id ?? '';
      abort.abort('changed my mind');
      await expect(pending).rejects.toThrow();
      await until(async () => (await store().get(sessionId))?.status === 'canceled', 'the cancel');
      expect(orchestrator.heard.get(sessionId)).toBeUndefined();
    } finally {
      await client.close();
    }
  }, 20_000);

  it('a client that cannot elicit: waiting_input as before', async () => {
    const client = await v1Client();
    try {
      const result = await call(client, 'Q: Send the report to Cleo');
      const content = result.structuredContent as AskContent;
      expect(content.state).toBe('waiting_input');
      expect(content.waiting).toContain(SEEDED_QUESTION);
      await store().answerInput({
        sessionId: content.session_id ?? '',
        inputId: 'in-1',
        tenant: 'acme',
        text: 'done',
      });
    } finally {
      await client.close();
    }
  });

  describe('questions, 2026-07-28', () => {
    it('an input-required question with a signed state naming it; the retry answers it', async () => {
      const client = await v2Client({ autoFulfill: false });
      try {
        const args = { question: 'Q: Send the report to Dan', route: 'orchestration' };
        const first = (await client.callTool(
          { name: 'ask', arguments: args },
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        const form = first.inputRequests?.['question'];
        expect(form?.method).toBe('elicitation/create');
        expect(form?.params.message).toContain(SEEDED_QUESTION);
        expect(Object.keys(form?.params.requestedSchema.properties ?? {})).toEqual(['answer']);
        const state = stateOf(first.requestState ?? '');
        expect(state).toMatchObject({ k: 'question', a: 'in-1' });
        const retried = await client.callTool(
          {
            name: 'ask',
            arguments: args,
            inputResponses: {
              question: { action: 'accept', content: { answer: 'The monthly one' } },
            },
            requestState: first.requestState,
          } as never,
          { allowInputRequired: true },
        );
        expect(retried.structuredContent).toMatchObject({
          state: 'completed',
          answer: 'Answered: The monthly one',
          session_id: state.s,
        });
        expect(orchestrator.heard.get(state.s)).toEqual([
          { kind: 'answer', inputId: 'in-1', text: 'The monthly one' },
        ]);
      } finally {
        await client.close();
      }
    }, 20_000);

    it('with auto-fulfilment: the client answers the form and gets the answer', async () => {
      const client = await v2Client({
        autoFulfill: true,
        reply: { action: 'accept', content: { answer: 'By itself' } },
      });
      try {
        const result = await client.callTool({
          name: 'ask',
          arguments: { question: 'Q: Send the report to Eve' },
        });
        expect(result.structuredContent).toMatchObject({
          state: 'completed',
          answer: 'Answered: By itself',
        });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('declined: waiting_input, nothing answered', async () => {
      const client = await v2Client({ autoFulfill: false });
      try {
        const args = { question: 'Q: Send the report to Fay' };
        const first = (await client.callTool(
          { name: 'ask', arguments: args },
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        const retried = await client.callTool(
          {
            name: 'ask',
            arguments: args,
            inputResponses: { question: { action: 'decline' } },
            requestState: first.requestState,
          } as never,
          { allowInputRequired: true },
        );
        const sessionId = stateOf(first.requestState ?? '').s;
        expect(retried.structuredContent).toMatchObject({
          state: 'waiting_input',
          session_id: sessionId,
        });
        expect(textOf(retried)).toContain('Answer it by calling ask again');
        const session = await store().getForTenant(sessionId, 'acme');
        expect(session.approvals['in-1']?.status).toBe('pending');
        await store().answerInput({ sessionId, inputId: 'in-1', tenant: 'acme', text: 'x' });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('a question answered elsewhere meanwhile: the answer never goes to the next question', async () => {
      const client = await v2Client({ autoFulfill: false });
      try {
        const args = { question: 'QQ: Send the report to Gus' };
        const first = (await client.callTool(
          { name: 'ask', arguments: args },
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        const sessionId = stateOf(first.requestState ?? '').s;
        const posted = await request(gateway.app)
          .post(`/v1/sessions/${sessionId}/inputs/in-1`)
          .auth(TEST_KEY, { type: 'bearer' })
          .send({ text: 'weekly' });
        expect(posted.status).toBe(200);
        await until(
          async () => (await store().get(sessionId))?.approvals['in-2'] !== undefined,
          'the second question',
        );
        const retried = (await client.callTool(
          {
            name: 'ask',
            arguments: args,
            inputResponses: { question: { action: 'accept', content: { answer: 'late' } } },
            requestState: first.requestState,
          } as never,
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        // The second question is asked in its turn; the late answer answered nothing.
        expect(retried.inputRequests?.['question']?.params.message).toContain(SECOND_QUESTION);
        expect(stateOf(retried.requestState ?? '')).toMatchObject({ k: 'question', a: 'in-2' });
        const session = await store().getForTenant(sessionId, 'acme');
        expect(session.approvals['in-2']?.status).toBe('pending');
        expect(orchestrator.heard.get(sessionId)).toEqual([
          { kind: 'answer', inputId: 'in-1', text: 'weekly' },
        ]);
        await store().answerInput({ sessionId, inputId: 'in-2', tenant: 'acme', text: 'x' });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('the answer goes to the question the form asked, not to an older one still waiting', async () => {
      // Two questions wait (two steps asked at once); the form asked the newer one.
      const seeded = await seedSession(store(), { questionExpiresInMs: 3_600_000 });
      await store().addApproval(seeded.id, secondQuestion());
      const args = { question: 'Q: Send the report to Ivo', route: 'orchestration' };
      const requestState = createApprovalStateCodec(STATE_KEY).mint({
        kind: 'question',
        tenant: 'acme',
        sessionId: seeded.id,
        approvalId: 'in-2',
        expiresAt: Date.now() + 60_000,
        argumentsDigest: argumentsDigest(args),
      });
      const client = await v2Client({ autoFulfill: false });
      try {
        const result = await client.callTool(
          {
            name: 'ask',
            arguments: args,
            inputResponses: { question: { action: 'accept', content: { answer: 'Alice' } } },
            requestState,
          } as never,
          { allowInputRequired: true },
        );
        expect(result.isError).toBeFalsy();
        const session = await store().getForTenant(seeded.id, 'acme');
        expect(session.approvals['in-2']).toMatchObject({ status: 'answered', answer: 'Alice' });
        expect(session.approvals['in-1']?.status).toBe('pending');
      } finally {
        await client.close();
      }
    }, 20_000);

    describe('a question state that is not the gateway’s own is refused, nothing answered', () => {
      let client: ClientV2;
      let state: string;
      let sessionId: string;
      const args = { question: 'Q: Send the report to Hal', route: 'orchestration' as const };
      const answer = { question: { action: 'accept', content: { answer: 'forged' } } };
      const codec = createApprovalStateCodec(STATE_KEY);

      beforeAll(async () => {
        client = await v2Client({ autoFulfill: false });
        const first = (await client.callTool(
          { name: 'ask', arguments: args },
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        state = first.requestState ?? '';
        sessionId = stateOf(state).s;
      });
      afterAll(async () => {
        await store().answerInput({ sessionId, inputId: 'in-1', tenant: 'acme', text: 'x' });
        await client.close();
      });

      const retry = (requestState: string, retryArgs: object = args, as = client) =>
        as.callTool(
          { name: 'ask', arguments: retryArgs, inputResponses: answer, requestState } as never,
          { allowInputRequired: true },
        );

      const expectRefused = async (result: object, why: RegExp) => {
        expect((result as { isError?: boolean }).isError).toBe(true);
        expect(textOf(result)).toMatch(/requestState was refused/);
        expect(textOf(result)).toMatch(why);
        const session = await store().getForTenant(sessionId, 'acme');
        expect(session.approvals['in-1']?.status).toBe('pending');
        expect(orchestrator.heard.get(sessionId)).toBeUndefined();
      };

      it('tampered (an approval state made a question state, or the other way round)', async () => {
        const [body, mac] = state.split('.') as [string, string];
        const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
          k?: string;
        };
        delete payload.k;
        const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
        await expectRefused(await retry(forged), /signature/);
      });

      it('expired', async () => {
        const expired = codec.mint({
          kind: 'question',
          tenant: 'acme',
          sessionId,
          approvalId: 'in-1',
          expiresAt: Date.now() - 1000,
          argumentsDigest: argumentsDigest(args),
        });
        await expectRefused(await retry(expired), /expired/);
      });

      it('for other arguments', async () => {
        await expectRefused(await retry(state, { ...args, question: 'Q: other' }), /arguments/);
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
  });

  describe('result reviews', () => {
    it('2025-11-25: approved in the form, the reviewed answer is the answer', async () => {
      const forms = scripted([{ action: 'accept', content: { decision: 'approve' } }]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'R: Send the report to Ida');
        const content = result.structuredContent as AskContent;
        expect(content).toMatchObject({ state: 'completed', answer: SEEDED_REVIEW_ANSWER });
        expect(forms.asked[0]?.message).toMatch(/waits for your review \(round 1\)/);
        expect(forms.asked[0]?.message).toContain(SEEDED_REVIEW_ANSWER);
        expect(forms.asked[0]?.message).toMatch(/- n1 \(mail, completed\): Sent\./);
        expect(forms.asked[0]?.fields).toEqual(['decision', 'feedback', 'steps']);
        const sessionId = content.session_id ?? '';
        expect((await store().getForTenant(sessionId, 'acme')).approvals['rv-1']?.status).toBe(
          'approved',
        );
        expect(orchestrator.heard.get(sessionId)).toEqual([
          { kind: 'review', decision: 'approve', feedback: undefined },
        ]);
      } finally {
        await client.close();
      }
    }, 20_000);

    it('2025-11-25: recompose with feedback reaches the run', async () => {
      const forms = scripted([
        { action: 'accept', content: { decision: 'recompose', feedback: 'Shorter, please' } },
      ]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'R: Send the report to Jo');
        const content = result.structuredContent as AskContent;
        expect(content).toMatchObject({ state: 'completed', answer: 'recompose: Shorter, please' });
        expect(orchestrator.heard.get(content.session_id ?? '')).toEqual([
          { kind: 'review', decision: 'recompose', feedback: 'Shorter, please' },
        ]);
      } finally {
        await client.close();
      }
    }, 20_000);

    it('2025-11-25: a form that makes no decision is asked again, saying why; revise names steps', async () => {
      const forms = scripted([
        { action: 'accept', content: { decision: 'revise', feedback: 'Use the weekly one' } },
        { action: 'accept', content: { decision: 'revise', feedback: 'x', steps: 'n9' } },
        {
          action: 'accept',
          content: { decision: 'revise', feedback: 'Use the weekly one', steps: ' n1 ,' },
        },
      ]);
      const client = await v1Client(forms.next);
      try {
        const result = await call(client, 'R: Send the report to Kim');
        const content = result.structuredContent as AskContent;
        expect(content).toMatchObject({ state: 'completed', answer: 'revise: Use the weekly one' });
        expect(forms.asked).toHaveLength(3);
        expect(forms.asked[1]?.message).toMatch(
          /^The decision was not taken: .*steps to run again/,
        );
        expect(forms.asked[2]?.message).toMatch(
          /^The decision was not taken: The plan has no step "n9"/,
        );
        const session = await store().getForTenant(content.session_id ?? '', 'acme');
        expect(session.approvals['rv-1']?.review).toMatchObject({
          decision: 'revise',
          targets: ['n1'],
          feedback: 'Use the weekly one',
        });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('2025-11-25: declined, waiting_review with how to review', async () => {
      const client = await v1Client(() => ({ action: 'decline' }));
      try {
        const result = await call(client, 'R: Send the report to Lea');
        const content = result.structuredContent as AskContent;
        expect(content.state).toBe('waiting_review');
        const sessionId = content.session_id ?? '';
        expect(textOf(result)).toContain(`POST /v1/sessions/${sessionId}/review`);
        expect((await store().getForTenant(sessionId, 'acme')).approvals['rv-1']?.status).toBe(
          'pending',
        );
        await store().decideReview({
          sessionId,
          tenant: 'acme',
          decision: { decision: 'approve' },
        });
      } finally {
        await client.close();
      }
    }, 20_000);

    it('2026-07-28: an input-required review; recompose with feedback in the retry', async () => {
      const client = await v2Client({ autoFulfill: false });
      try {
        const args = { question: 'R: Send the report to Max' };
        const first = (await client.callTool(
          { name: 'ask', arguments: args },
          { allowInputRequired: true },
        )) as unknown as InputRequired;
        expect(first.inputRequests?.['review']?.params.message).toContain(SEEDED_REVIEW_ANSWER);
        const state = stateOf(first.requestState ?? '');
        expect(state).toMatchObject({ k: 'review', a: 'rv-1' });
        const retried = await client.callTool(
          {
            name: 'ask',
            arguments: args,
            inputResponses: {
              review: { action: 'accept', content: { decision: 'recompose', feedback: 'Warmer' } },
            },
            requestState: first.requestState,
          } as never,
          { allowInputRequired: true },
        );
        expect(retried.structuredContent).toMatchObject({
          state: 'completed',
          answer: 'recompose: Warmer',
          session_id: state.s,
        });
        expect(orchestrator.heard.get(state.s)).toEqual([
          { kind: 'review', decision: 'recompose', feedback: 'Warmer' },
        ]);
      } finally {
        await client.close();
      }
    }, 20_000);
  });
});
