/**
 * Pages are read on the page-reading pool's worker threads: a page nested thousands deep is
 * refused before any DOM is built, a page that takes long to read is stopped at its time budget,
 * each as a normal failed step naming the limit, and another tenant's page is read meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMessage, type Part, type Task } from '@fleet/a2a';
import { errorDataSchema } from './agent';
import { createPageReader, type PageReader } from './fetching';
import { bootWebAgent, nodeParts, type RunningWebAgent } from './test-support/boot-web-agent';
import { startFakeWeb, type FakeWeb } from './test-support/start-fake-web';

const REDIS_URL = 'redis://127.0.0.1:6379';
const SLOW = 120_000;

/** 2,000 nested `<div>`s (22 KB): about a minute of Readability before. */
const DEEP = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(2000)}<p>${'Deep text. '.repeat(30)}</p>${'</div>'.repeat(2000)}</body></html>`;

/**
 * 600 blocks of 100 nested `<div>`s each (680 KB): under the nesting limit, but seconds of parsing
 * and reading (about 3.5 s on an idle 2-core machine), several times the test's 1 s budget.
 */
const SLOW_PAGE = `<!doctype html><html><head><title>Blocks</title></head><body>${`${'<div>'.repeat(100)}<p>Some words of text in a block.</p>${'</div>'.repeat(100)}`.repeat(600)}</body></html>`;

function statusError(task: Task) {
  return errorDataSchema.parse(
    task.status.message?.parts.find((part) => part.data !== undefined)?.data,
  ).error;
}

describe('reading pages on the page-reading pool', () => {
  let redis: Redis;
  let web: FakeWeb;
  let agent: RunningWebAgent;
  let pageReader: PageReader;
  const prefix = `test:web-page-reading:${randomUUID()}`;

  const send = async (parts: Part[]): Promise<Task> =>
    (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    web = await startFakeWeb();
    web.pages.set('plain', {
      title: 'Plain page',
      paragraphs: ['The plain page says that the museum opens at nine every morning.'],
    });
    const html = (body: string) => (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(body);
    };
    web.raw.set('deep', html(DEEP));
    web.raw.set('slow', html(SLOW_PAGE));
    pageReader = createPageReader({ workers: 2, timeoutMs: 1000, idleTimeoutMs: 600_000 });
    agent = await bootWebAgent({
      redis,
      keyPrefix: prefix,
      provider: undefined,
      pageReader,
    });
    // Start both workers (they load linkedom and Readability once) before the tests.
    await Promise.all(
      ['warm-a', 'warm-b'].map((tenant) =>
        send(nodeParts({ question: `Read ${web.pageUrl('plain')}`, tenant })),
      ),
    );
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    await pageReader?.close();
    await web?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  it(
    'says a page nested 2,000 deep could not be read, naming WEB_READ_MAX_NESTING_DEPTH',
    async () => {
      const task = await send(
        nodeParts({ question: `Read this page: ${web.url}/raw/deep`, tenant: 'acme' }),
      );
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusError(task)).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringContaining('WEB_READ_MAX_NESTING_DEPTH'),
        details: { limit: 'WEB_READ_MAX_NESTING_DEPTH', max: 150 },
      });
    },
    SLOW,
  );

  it(
    'stops a page at its time budget, and reads another tenant’s page meanwhile',
    async () => {
      let slowSettled = false;
      const slow = send(nodeParts({ question: `Read ${web.url}/raw/slow`, tenant: 'slow-a' }));
      void slow.finally(() => {
        slowSettled = true;
      });
      const plain = await send(
        nodeParts({ question: `Read ${web.pageUrl('plain')}`, tenant: 'plain-b' }),
      );
      expect(plain.status.state).toBe('TASK_STATE_COMPLETED');
      // Read while the slow page was still being read.
      expect(slowSettled).toBe(false);
      const failed = await slow;
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusError(failed)).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringContaining('WEB_READ_TIMEOUT_MS'),
        details: { limit: 'WEB_READ_TIMEOUT_MS', max: 1000 },
      });
    },
    SLOW,
  );
});
