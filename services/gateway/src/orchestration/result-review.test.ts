import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  dataPart,
  findData,
  orchestrateRequestSchema,
  RESULT_ARTIFACT_NAME,
  textPart,
  type ProgressEvent,
} from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { resumeMessage } from '../sessions';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  gate,
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { serve, type Served } from '../test-support/serve';
import {
  joinResultReview,
  parseResultReviewField,
  parseResultReviewHeader,
} from './parse-result-review';

describe('parseResultReviewHeader, parseResultReviewField and joinResultReview', () => {
  it('reads the header in any case, and nothing from an absent or blank one', () => {
    expect(parseResultReviewHeader('required')).toBe('required');
    expect(parseResultReviewHeader(' REQUIRED ')).toBe('required');
    expect(parseResultReviewHeader('None')).toBe('none');
    expect(parseResultReviewHeader(undefined)).toBeUndefined();
    expect(parseResultReviewHeader('  ')).toBeUndefined();
  });

  it('refuses any other value, naming the allowed ones', () => {
    expect(() => parseResultReviewHeader('maybe')).toThrow(
      "Unknown X-Result-Review 'maybe'. Allowed values: required, none.",
    );
    expect(() => parseResultReviewField('Required')).toThrow(
      "fleet_result_review is 'Required'. Allowed values: required, none.",
    );
    expect(() => parseResultReviewField(true)).toThrow(
      'fleet_result_review is a boolean. Allowed values: required, none.',
    );
    expect(parseResultReviewField(null)).toBeUndefined();
    expect(parseResultReviewField('none')).toBe('none');
  });

  it('joins the header and the field: either alone, the same in both; refuses a disagreement', () => {
    expect(joinResultReview(undefined, undefined)).toBeUndefined();
    expect(joinResultReview('required', undefined)).toBe('required');
    expect(joinResultReview(undefined, 'none')).toBe('none');
    expect(joinResultReview('required', 'required')).toBe('required');
    expect(() => joinResultReview('none', 'required')).toThrow(
      "X-Result-Review 'none' and fleet_result_review 'required' disagree",
    );
  });
});

const PLAN = {
  nodes: [{ id: 'n1', agent: 'mail', task: 'send it', dependsOn: [] }],
  rationale: 'r',
  confidence: 0.9,
};

const REVIEW_REQUIRED: ProgressEvent = {
  type: 'review-required',
  approvalId: 'rv-1',
  round: 1,
  answer: 'Draft answer.',
  steps: [{ id: 'n1', agent: 'mail', state: 'completed', summary: 'Sent.' }],
  expiresAt: '2099-01-01T00:00:00.000Z',
  onTimeout: 'approve',
};
const REVIEW_END: ProgressEvent = {
  type: 'review-end',
  approvalId: 'rv-1',
  round: 1,
  decision: 'revise',
  targets: ['n1'],
  feedback: 'Copy Carol.',
  rerun: ['n1', 'n2'],
};
const NODE_ADDED: ProgressEvent = {
  type: 'node-added',
  node: {
    id: 'n2',
    agent: 'rag',
    task: 'find the report',
    dependsOn: ['n1'],
    origin: { kind: 'handoff', from: 'n1' },
  },
};
const HANDOFF_REFUSED: ProgressEvent = {
  type: 'handoff-refused',
  nodeId: 'n1',
  agent: 'mail',
  target: 'web-agent',
  reason: 'web-agent is excluded',
};

describe('result review through the gateway (openai SDK)', () => {
  let orchestrator: OrchestratorDouble;
  let gateway: TestGateway;
  let served: Served;
  /** Opened by the test: the scripted run's review is decided. */
  let decided = gate();

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(async function* (_context, call) {
      await Promise.resolve();
      yield progressStatus('Run s started.', { type: 'run-start', sessionId: 'sess-r' }, 'sess-r');
      if (call.text.includes('review me')) {
        yield progressStatus('Step n2 (rag) added.', NODE_ADDED, 'sess-r');
        yield progressStatus('Hand-off refused.', HANDOFF_REFUSED, 'sess-r');
        // The run waits for the person here: the task stays WORKING, the stream goes quiet.
        yield progressStatus('The answer waits for your review.', REVIEW_REQUIRED, 'sess-r');
        await decided.promise;
        yield progressStatus('Review: steps n1, n2 run again.', REVIEW_END, 'sess-r');
      }
      const event: AgentEvent = {
        type: 'artifact',
        artifact: {
          name: RESULT_ARTIFACT_NAME,
          parts: [
            textPart('Final answer.'),
            dataPart({
              sessionId: 'sess-r',
              plan: PLAN,
              nodes: [],
              citations: [],
              failedNodes: [],
              composer: 'offline',
            }),
          ],
        },
      };
      yield event;
    });
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: { orchestratorClient: orchestrator.client },
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    decided.open();
    await served.close();
    await gateway.close();
    await orchestrator.close();
  });

  const client = (headers: Record<string, string> = {}) =>
    new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${served.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-routing-mode': 'orchestration', ...headers },
    });
  const ask = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
    client(headers).chat.completions.create({
      model: 'fleet-orchestration',
      messages: [{ role: 'user', content: 'hello' }],
      ...body,
    });

  it('sends X-Result-Review (any case) to the orchestrator as fleet.resultReview', async () => {
    const before = orchestrator.calls.length;
    await ask({ 'X-Result-Review': ' Required ' });
    await ask({ 'X-Result-Review': 'none' });
    await ask({});
    expect(orchestrator.calls.slice(before).map((call) => call.input?.resultReview)).toEqual([
      'required',
      'none',
      undefined,
    ]);
  });

  it('reads the body field on chat completions and Responses, alone or agreeing with the header', async () => {
    const before = orchestrator.calls.length;
    await ask({}, { fleet_result_review: 'required' });
    await ask({ 'X-Result-Review': 'required' }, { fleet_result_review: 'required' });
    await client().responses.create({
      model: 'fleet-orchestration',
      input: 'hello',
      // @ts-expect-error: the fleet's own field, beside OpenAI's
      fleet_result_review: 'required',
    });
    await client({ 'X-Result-Review': 'required' }).responses.create({
      model: 'fleet-orchestration',
      input: 'hello',
    });
    expect(orchestrator.calls.slice(before).map((call) => call.input?.resultReview)).toEqual([
      'required',
      'required',
      'required',
      'required',
    ]);
  });

  it('answers 400 naming the allowed values for a bad header or field, or the two disagreeing; nothing runs', async () => {
    const before = orchestrator.calls.length;
    const cases: [Record<string, string>, Record<string, unknown>, string, RegExp][] = [
      [
        { 'X-Result-Review': 'later' },
        {},
        'X-Result-Review',
        /^400 Unknown X-Result-Review 'later'\. Allowed values: required, none\.$/,
      ],
      [
        {},
        { fleet_result_review: 'yes' },
        'fleet_result_review',
        /^400 fleet_result_review is 'yes'\. Allowed values: required, none\.$/,
      ],
      [
        { 'X-Result-Review': 'none' },
        { fleet_result_review: 'required' },
        'X-Result-Review',
        /disagree/,
      ],
      // Checked on every route, as X-Plan-Approval is.
      [
        { 'X-Result-Review': 'later', 'x-routing-mode': 'passthrough' },
        {},
        'X-Result-Review',
        /later/,
      ],
    ];
    for (const [headers, body, param, message] of cases) {
      const error = await ask(headers, body).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(bad.param).toBe(param);
      expect(bad.type).toBe('invalid_request_error');
      expect(bad.message).toMatch(message);
    }
    const responsesError = await client({ 'X-Result-Review': 'always' })
      .responses.create({ model: 'fleet-orchestration', input: 'hello' })
      .catch((caught: unknown) => caught);
    expect(responsesError).toBeInstanceOf(OpenAI.BadRequestError);
    expect(orchestrator.calls.length).toBe(before);
  });

  it('streams a run paused for review: the review, added-step and refused hand-off events, then the answer after the decision', async () => {
    decided = gate();
    const stream = await client({ 'X-Result-Review': 'required' }).chat.completions.create({
      model: 'fleet-orchestration',
      messages: [{ role: 'user', content: 'review me' }],
      stream: true,
    });
    const fleet: Record<string, unknown>[] = [];
    const lines: string[] = [];
    let content = '';
    let sawReviewAt = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string; content?: string };
      if (delta?.reasoning_content !== undefined) lines.push(delta.reasoning_content);
      if (typeof delta?.content === 'string') content += delta.content;
      const event = (chunk as unknown as { fleet?: Record<string, unknown> }).fleet;
      if (event !== undefined) fleet.push(event);
      if (event?.['type'] === 'review-required') {
        sawReviewAt = Date.now();
        // Nothing more comes while the review waits; the stream stays open.
        setTimeout(() => decided.open(), 300);
      }
    }
    expect(sawReviewAt).toBeGreaterThan(0);
    expect(fleet.map((event) => event['type'])).toEqual([
      'run-start',
      'node-added',
      'handoff-refused',
      'review-required',
      'review-end',
      'run-result',
    ]);
    expect(fleet[1]).toEqual({ sessionId: 'sess-r', ...NODE_ADDED });
    expect(fleet[2]).toEqual({ sessionId: 'sess-r', ...HANDOFF_REFUSED });
    expect(fleet[3]).toEqual({ sessionId: 'sess-r', ...REVIEW_REQUIRED });
    expect(fleet[4]).toEqual({ sessionId: 'sess-r', ...REVIEW_END });
    expect(lines).toEqual(
      expect.arrayContaining([
        'Step n2 (rag) added.\n',
        'Hand-off refused.\n',
        'The answer waits for your review.\n',
        'Review: steps n1, n2 run again.\n',
      ]),
    );
    // The answer comes after the decision, as the normal result.
    expect(content).toBe('Final answer.');
  });

  it('answers a non-streamed run paused for review once it is decided, as plan approval does', async () => {
    decided = gate();
    const pending = client({ 'X-Result-Review': 'required' }).chat.completions.create({
      model: 'fleet-orchestration',
      messages: [{ role: 'user', content: 'review me' }],
    });
    await orchestrator.waitForCall(
      (call) => call.text === 'review me' && call.input?.resultReview === 'required',
    );
    setTimeout(() => decided.open(), 300);
    const completion = await pending;
    expect(completion.choices[0]?.message.content).toBe('Final answer.');
    const reasoning = (completion.choices[0]?.message as { reasoning_content?: string })
      .reasoning_content;
    expect(reasoning).toContain(
      'The answer waits for your review.\nReview: steps n1, n2 run again.',
    );
  });

  it('resumes a session started with a review with it (X-Session-ID keeps the session’s)', async () => {
    const created = await gateway.sessions.store.create({
      tenant: 'acme',
      request: 'r',
      resultReview: true,
    });
    const plain = await gateway.sessions.store.create({ tenant: 'acme', request: 'r' });
    const fleetOf = (message: ReturnType<typeof resumeMessage>) =>
      findData(message.parts, orchestrateRequestSchema)?.fleet;
    expect(fleetOf(resumeMessage(created))?.resultReview).toBe('required');
    expect(fleetOf(resumeMessage(plain))?.resultReview).toBeUndefined();
  });
});

describe('result review on passthrough', () => {
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    gateway = await buildGateway();
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
  });

  it('forwards the body without the fleet_result_review field', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${served.url}/v1`, maxRetries: 0 });
    gateway.llm?.enqueue({ content: 'hi' });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
      // @ts-expect-error: the fleet's own field, beside OpenAI's
      fleet_result_review: 'required',
    });
    const body = gateway.llm?.requests.at(-1)?.body as Record<string, unknown>;
    expect(body['fleet_result_review']).toBeUndefined();
    expect(body['messages']).toEqual([{ role: 'user', content: 'hello' }]);
  });
});
