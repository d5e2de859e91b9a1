import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { rawRequest } from '../test-support/raw-http';
import { serve, type Served } from '../test-support/serve';
import { seedSession } from '../test-support/seed-session';

/**
 * Invalid items in the arrays below: enough to cost seconds and hundreds of MiB unchecked, and
 * fewer objects than a body may hold (100 000, MAX_JSON_CONTAINERS).
 */
const MANY = 90_000;

/**
 * `{"model":"m",<extra>"<field>":[<item>,<item>,…]}` with `count` items, built as text (fast);
 * `extra` is more members, each followed by a comma.
 */
function bodyWithArray(
  field: string,
  item: string,
  { count = MANY, extra = '' }: { count?: number; extra?: string } = {},
): string {
  return `{"model":"m",${extra}"${field}":[${new Array<string>(count).fill(item).join(',')}]}`;
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

describe('validation work is bounded by the first problems, not by the body', () => {
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    gateway = await buildGateway({ bodyLimit: 8 * 1024 * 1024 });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
  });

  const post = async (path: string, body: string) => {
    const answer = await rawRequest(served.url, {
      path,
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body,
    });
    return { status: answer.status, body: answer.json as ErrorBody, length: answer.text.length };
  };

  it.each([
    // Embeddings take at most 2048 inputs (see below): 2000 bad ones.
    ['/v1/embeddings', bodyWithArray('input', '{}', { count: 2000 }), 'input[0]'],
    ['/v1/chat/completions', bodyWithArray('messages', '{"role":"x"}'), 'messages[0].role'],
    ['/v1/chat/completions', bodyWithArray('messages', '[]'), 'messages[0]'],
    ['/v1/responses', bodyWithArray('input', '1'), 'input[0]'],
    [
      '/v1/chat/completions',
      bodyWithArray('tools', '{}', { extra: '"messages":[{"role":"user","content":"hi"}],' }),
      'tools[0].type',
    ],
    ['/v1/responses', bodyWithArray('tools', '7'), 'tools[0]'],
  ])(
    '%s: %#, a huge array of invalid items answers 400 naming the first ones and how many were not checked',
    async (path, body, param) => {
      const answer = await post(path, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'validation_failed',
        param,
      });
      expect(answer.body.error.message).toContain(`at '${param}'`);
      expect(answer.body.error.message).toMatch(
        /Checking stopped at the first problems; (1995|8999\d) more items were not checked\.$/,
      );
      // Bounded: the answer names a few problems, never a list as long as the body.
      expect(answer.length).toBeLessThan(2000);
    },
  );

  it('bounds an embeddings token array of invalid tokens as well', async () => {
    const tokens = `[${new Array<string>(MANY).fill('"t"').join(',')}]`;
    const answer = await post('/v1/embeddings', `{"model":"m","input":[[1,2],${tokens}]}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('input[1][0]');
    expect(answer.body.error.message).toContain('a token must be a number');
    expect(answer.body.error.message).toContain('89995 more items were not checked');
  });

  it('refuses more than 2048 embeddings inputs (as OpenAI does) before looking at them', async () => {
    const answer = await post('/v1/embeddings', bodyWithArray('input', '"x"', { count: 50_000 }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param: 'input', code: 'validation_failed' });
    expect(answer.body.error.message).toContain('at most 2048');
  });

  it.each([
    ['/v1/embeddings', bodyWithArray('input', '{}', { count: 1_600_000 })],
    ['/v1/chat/completions', bodyWithArray('messages', '{"role":"x"}', { count: 330_000 })],
    ['/v1/responses', bodyWithArray('input', '[]', { count: 1_600_000 })],
  ])(
    '%s: refuses a body of more than 100 000 objects and arrays with 413, before parsing it',
    async (path, body) => {
      const answer = await post(path, body);
      expect(answer.status).toBe(413);
      expect(answer.body.error).toMatchObject({
        type: 'invalid_request_error',
        message:
          'The request body holds more than 100000 JSON objects and arrays; send fewer items.',
      });
    },
  );

  it('still forwards a valid request with many items', async () => {
    gateway.llm?.enqueue({ content: 'ok' });
    const messages = new Array<string>(5000).fill('{"role":"user","content":"hi"}').join(',');
    const answer = await rawRequest(served.url, {
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: `{"model":"m","messages":[${messages}]}`,
    });
    expect(answer.status).toBe(200);
    const embeddings = await rawRequest(served.url, {
      path: '/v1/embeddings',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: bodyWithArray('input', '"hello"', { count: 2048 }),
    });
    expect(embeddings.status).toBe(200);
  });

  it('keeps the message short when one problem names many keys (an approval body of 5000 unknown fields)', async () => {
    const session = await seedSession(gateway.sessions.store, { approvalExpiresInMs: 60_000 });
    const fields = Array.from({ length: 5000 }, (_, index) => `"k${index}":1`).join(',');
    const answer = await post(
      `/v1/sessions/${session.id}/approvals/ap-1`,
      `{"decision":"deny",${fields}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.length).toBeLessThan(2000);
  });
});
