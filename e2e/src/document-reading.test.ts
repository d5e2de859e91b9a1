/**
 * Reading uploads end to end, on the built services as processes (gateway and RAG agent, offline):
 * the RAG agent reads documents on its parse pool (the worker entry in `dist/`), so a document that
 * takes long to read is stopped at RAG_PARSE_TIMEOUT_MS with a 413 naming it while another tenant
 * is answered, a tenant whose share of the parse queue is full gets 503 with `Retry-After`, tables
 * are cut to their limits, and a zip bomb's 413 names the limit that refused it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { wideSheet } from './fuzz/arbitraries/documents';
import { zipBomb } from './fuzz/arbitraries/zip-bomb';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';

/** A second tenant's key. */
const OTHER_KEY = 'sk-e2e-reading-other-0123456789';

/** About 4 MB of prose in sentences: far more than 3 s of parsing and chunking. */
const MONSTER = (() => {
  const words = ['ledger', 'sensor', 'quarter', 'gateway', 'warranty', 'humidity', 'renewal'];
  const sentences: string[] = [];
  for (let index = 0, length = 0; length < 4_000_000; index++) {
    const sentence = `${words[index % 7]} ${words[(index * 3) % 7]} ${index} reported ${words[(index * 5) % 7]} figures for the region.`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return sentences.join('\n');
})();

interface ErrorEnvelope {
  error: { message: string; type: string; code: string | null };
}

describe('reading uploads on a running fleet', () => {
  let fleet: RunningFleet;

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [],
      ragAgent: true,
      serviceEnv: {
        gateway: { GATEWAY_API_KEYS: `${E2E_KEY}:e2e,${OTHER_KEY}:other` },
        'rag-agent': {
          RAG_PARSE_WORKERS: '1',
          RAG_PARSE_TIMEOUT_MS: '3000',
          RAG_PARSE_QUEUE_LENGTH: '2',
        },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  function upload(
    key: string,
    { name, bytes, type }: { name: string; bytes: string | Buffer; type: string },
  ) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    return fetch(`${fleet.baseURL}/documents`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${key}` },
    });
  }

  const monster = (name: string) => upload(E2E_KEY, { name, bytes: MONSTER, type: 'text/plain' });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('names the limit in the 413 of a zip bomb', async () => {
    const response = await upload(E2E_KEY, {
      name: 'bomb.docx',
      bytes: zipBomb('docx', 200 * 1024 * 1024),
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    expect(response.status).toBe(413);
    const { error } = (await response.json()) as ErrorEnvelope;
    expect(error.message).toContain('RAG_MAX_COMPRESSION_RATIO');
  });

  it('stores a sheet 16,384 columns wide cut to RAG_MAX_COLUMNS, saying so', async () => {
    const wide = wideSheet({ columns: 16_384, rows: 2000 });
    const response = await upload(OTHER_KEY, {
      name: wide.filename,
      bytes: wide.bytes,
      type: wide.mediaType,
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      truncated: true,
      warnings: expect.arrayContaining([
        expect.stringContaining(
          'of 16384 columns of sheet "Sheet1" were indexed (RAG_MAX_COLUMNS)',
        ),
      ]),
    });
  });

  it('answers another tenant while a document is read, stops it at RAG_PARSE_TIMEOUT_MS, and answers 503 with Retry-After when the tenant’s share of the queue is full', async () => {
    // The one reading worker started (and loaded) before the monsters come.
    expect(
      (
        await upload(OTHER_KEY, {
          name: 'warm.md',
          bytes: '# Warm\n\nA note.',
          type: 'text/markdown',
        })
      ).status,
    ).toBeLessThan(300);
    let firstSettled = false;
    const first = monster('first.txt').finally(() => {
      firstSettled = true;
    });
    await pause(1500);
    const second = monster('second.txt');
    await pause(500);
    const refused = await monster('third.txt');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as ErrorEnvelope).error.message).toContain(
      'RAG_PARSE_QUEUE_LENGTH',
    );

    // Another tenant is answered while the first monster is read.
    const listed = await fetch(`${fleet.baseURL}/documents`, {
      headers: { authorization: `Bearer ${OTHER_KEY}` },
    });
    expect(listed.status).toBe(200);
    expect(firstSettled).toBe(false);

    const stopped = await first;
    expect(stopped.status).toBe(413);
    expect(((await stopped.json()) as ErrorEnvelope).error.message).toContain(
      'RAG_PARSE_TIMEOUT_MS',
    );
    expect((await second).status).toBe(413);
  }, 120_000);
});
