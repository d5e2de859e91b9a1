/**
 * Hostile bodies against the gateway as a process: validation work and memory follow the first
 * problems, not the body. A 4.8 MB embeddings body of 1.6 million invalid items once cost the
 * gateway 15–34 s and 1.95 GB that it never gave back, and three at once kept another tenant
 * waiting up to 88 s. The official `openai` SDK shows what a client reads.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { BadRequestError } from 'openai';
import { startGateway, type RunningGateway } from './support/start-gateway';

const KEY_A = 'sk-hostile-a-0123456789';
const KEY_B = 'sk-hostile-b-0123456789';

/** VmRSS of a process in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const line = status.split('\n').find((each) => each.startsWith('VmRSS:')) ?? '';
  return Number(line.split(/\s+/)[1]) / 1024;
}

describe('hostile bodies at the gateway', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startGateway({ GATEWAY_API_KEYS: `${KEY_A}:a,${KEY_B}:b` });
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });

  it('refuses three 1.6-million-item bodies at once with 413, while another tenant is answered, and keeps its memory', async () => {
    const pid = gateway.process.pid;
    const before = await rssMiB(pid);
    const body = `{"model":"m","input":[${new Array<string>(1_600_000).fill('{}').join(',')}]}`;
    const hostile = [1, 2, 3].map(() =>
      fetch(`${gateway.baseURL}/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
        body,
      }),
    );
    // Another tenant's request meanwhile gets its answer, not a frozen gateway.
    const models = await sdk(KEY_B).models.list({ timeout: 5000 });
    expect(models.data.map((model) => model.id)).toContain('fleet-orchestration');
    const answers = await Promise.all(hostile);
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(await answer.json()).toMatchObject({
        error: {
          type: 'invalid_request_error',
          message:
            'The request body holds more than 100000 JSON objects and arrays; send fewer items.',
        },
      });
    }
    expect((await rssMiB(pid)) - before).toBeLessThan(100);
  });

  it('names the first problems of a huge invalid array to the SDK, and how much went unchecked', async () => {
    const messages = new Array(90_000).fill({ role: 'robot', content: 'hi' }) as never[];
    const error = await sdk(KEY_A)
      .chat.completions.create({ model: 'gpt-4o-mini', messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('messages[0].role');
    expect((error as BadRequestError).message).toMatch(
      /^400 The request body is invalid at 'messages\[0\]\.role': role must be one of .*; at 'messages\[1\]\.role': .* \(and 2 more\)\. Checking stopped at the first problems; 89995 more items were not checked\.$/,
    );
  });

  it('refuses more than 2048 embeddings inputs before looking at them, as OpenAI does', async () => {
    const error = await sdk(KEY_A)
      .embeddings.create({ model: 'text-embedding-3-small', input: new Array(3000).fill('x') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('input');
  });

  it('refuses X-Fleet-User sent twice instead of reading a third user', async () => {
    // fetch would join the two values into one header line; node:http sends two lines.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${gateway.url}/v1/memory`, {
        headers: { authorization: `Bearer ${KEY_A}`, 'x-fleet-user': ['alice', 'bob'] },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});
