import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  filesAgentOf,
  runFileSchema,
  type Part,
  type RunFile,
  type RunFileStore,
  type RunFileUpload,
  type Task,
} from '@fleet/a2a';
import { A2AClient, createRunFilesClient, discoverAgentCard } from '@fleet/a2a/client';
import {
  AbortError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
  ValidationError,
} from '@fleet/errors';
import { encodePng } from '@fleet/testing';
import { errorDataSchema, filesResultDataSchema } from './agent';
import { a2aBodyLimit } from './app';
import {
  filePart,
  filesParts,
  TEST_TOKEN,
  type RunningRagAgent,
} from './test-support/boot-rag-agent';
import { bootRunFileAgent, resultOf, type RunFileAgent } from './test-support/run-file-agent';
import { keptChart, STEP_CHART_ORIGIN, text } from './test-support/run-file-fixtures';

const SLOW = 120_000;
const MIB = 1024 * 1024;
const HOUR = 3_600_000;

const png = encodePng({ width: 4, height: 4 });
const CHART: RunFileUpload = { name: 'chart.png', mediaType: 'image/png', bytes: png };

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function errorCode(task: Task): string {
  const data = task.status.message?.parts.find((part) => part.data !== undefined)?.data;
  return errorDataSchema.parse(data).error.code;
}

describe('run files on the rag-agent service', () => {
  let booted: RunFileAgent;
  let agent: RunningRagAgent;
  let clock = Date.now();
  const prefix = `test:rag-agent-files:${randomUUID()}`;
  const later = (hours: number) => new Date(clock + hours * HOUR).toISOString();
  const send = (parts: Part[]) => booted.send(parts);

  /** Keeps one file as a step's for `tenant` (in `sessionId`) through `store`, for an hour. */
  async function putOne(
    store: RunFileStore,
    { tenant, sessionId }: { tenant: string; sessionId?: string },
    file: RunFileUpload,
  ): Promise<RunFile> {
    const [kept] = await store.put({
      tenant,
      files: [file],
      ...(sessionId === undefined ? {} : { sessionId }),
      source: 'step',
      expiresAt: later(1),
    });
    if (kept === undefined) throw new Error('put kept no file');
    return kept;
  }

  beforeAll(async () => {
    booted = await bootRunFileAgent({ keyPrefix: prefix, now: () => clock });
    agent = booted.agent;
  }, SLOW);

  afterAll(() => booted?.close(), SLOW);

  describe('the files command', () => {
    it('lists the files skill on the card, which filesAgentOf finds', async () => {
      const card = await discoverAgentCard(agent.server.url);
      expect(card.skills.map((skill) => skill.id)).toEqual(['answer', 'search', 'ingest', 'files']);
      expect(card.skills[3]?.tags).toEqual(expect.arrayContaining(['files', 'run-files']));
      expect(filesAgentOf([{ url: agent.url, card }])?.url).toBe(agent.url);
    });

    it('puts, gets, describes, lists and deletes run files', async () => {
      const tenant = `t-${randomUUID()}`;
      const csv = text('city,temp\nOslo,4\n');
      const put = await send(
        filesParts({ op: 'put', tenant, ...STEP_CHART_ORIGIN, expiresAt: later(24) }, [
          filePart({
            filename: '../chart.png',
            mediaType: 'application/octet-stream',
            bytes: png,
          }),
          filePart({ filename: 'data.csv', mediaType: 'text/csv', bytes: csv }),
        ]),
      );
      expect(put.status.state).toBe('TASK_STATE_COMPLETED');
      const kept = filesResultDataSchema.parse(resultOf(put).data);
      if (!('files' in kept)) throw new Error('put answered without files');
      const [chart, data] = kept.files;
      expect(chart).toMatchObject(keptChart(png));
      expect(data).toMatchObject({ name: 'data.csv', mediaType: 'text/csv', size: csv.byteLength });
      expect(resultOf(put).text).toMatch(/^Kept chart\.png \(file-[0-9a-f]{32}, image\/png, /);

      const get = await send(filesParts({ op: 'get', tenant, id: chart?.id ?? '' }));
      expect(get.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultOf(get).data).toEqual({ file: chart });
      expect(resultOf(get).file).toEqual({
        raw: Buffer.from(png).toString('base64'),
        filename: 'chart.png',
        mediaType: 'image/png',
      });

      const info = await send(filesParts({ op: 'info', tenant, id: data?.id ?? '' }));
      expect(resultOf(info).data).toEqual({ file: data });
      expect(resultOf(info).file).toBeUndefined();

      const list = await send(filesParts({ op: 'list', tenant, sessionId: 'session-1' }));
      expect(resultOf(list).data).toEqual({ files: [chart, data] });

      const removed = await send(filesParts({ op: 'delete', tenant, id: chart?.id ?? '' }));
      expect(resultOf(removed).data).toEqual({ deleted: true });
      const again = await send(filesParts({ op: 'delete', tenant, id: chart?.id ?? '' }));
      expect(resultOf(again).data).toEqual({ deleted: false });
      const gone = await send(filesParts({ op: 'get', tenant, id: chart?.id ?? '' }));
      expect(gone.status.state).toBe('TASK_STATE_FAILED');
      expect(errorCode(gone)).toBe('NOT_FOUND');
    });

    it('fails get and info with NOT_FOUND for another tenant’s, an unknown or an expired id', async () => {
      const tenant = `t-${randomUUID()}`;
      const put = await send(
        filesParts({ op: 'put', tenant, source: 'attachment', expiresAt: later(1) }, [
          filePart({ filename: 'notes.txt', mediaType: 'text/plain', bytes: text('notes') }),
        ]),
      );
      const kept = filesResultDataSchema.parse(resultOf(put).data);
      const id = 'files' in kept ? (kept.files[0]?.id ?? '') : '';
      const unknownId = `file-${'0'.repeat(32)}`;
      const foreign = await send(filesParts({ op: 'get', tenant: 'intruder', id }));
      const foreignInfo = await send(filesParts({ op: 'info', tenant: 'intruder', id }));
      const unknown = await send(filesParts({ op: 'get', tenant, id: unknownId }));
      for (const task of [foreign, foreignInfo, unknown]) {
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        expect(errorCode(task)).toBe('NOT_FOUND');
        expect(resultOf(task).file).toBeUndefined();
      }
      expect(statusText(foreign)).toBe(statusText(unknown).replace(unknownId, id));

      clock += 2 * HOUR;
      try {
        const expired = await send(filesParts({ op: 'info', tenant, id }));
        expect(errorCode(expired)).toBe('NOT_FOUND');
      } finally {
        clock -= 2 * HOUR;
      }
      expect((await send(filesParts({ op: 'info', tenant, id }))).status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    });

    it('fails a put with a refused file, naming it, and keeps none of its files', async () => {
      const tenant = `t-${randomUUID()}`;
      const put = await send(
        filesParts(
          { op: 'put', tenant, sessionId: 'session-refused', source: 'step', expiresAt: later(1) },
          [
            filePart({ filename: 'ok.csv', mediaType: 'text/csv', bytes: text('a\n1\n') }),
            filePart({ filename: 'chart.png', mediaType: 'image/png', bytes: text('<html>') }),
          ],
        ),
      );
      expect(put.status.state).toBe('TASK_STATE_FAILED');
      expect(errorCode(put)).toBe('VALIDATION_FAILED');
      expect(statusText(put)).toMatch(/chart\.png says it is image\/png but its content is not/);
      const list = await send(filesParts({ op: 'list', tenant, sessionId: 'session-refused' }));
      expect(resultOf(list).data).toEqual({ files: [] });
    });

    it('rejects a put without file parts and a malformed command, saying what it needs', async () => {
      const empty = await send(
        filesParts({ op: 'put', tenant: 't', source: 'step', expiresAt: later(1) }),
      );
      expect(empty.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(empty)).toMatch(/at least one file part/);
      const malformed = await send(
        filesParts({ op: 'get', tenant: 't', id: 'not-an-id' } as never),
      );
      expect(malformed.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(malformed)).toMatch(/files data part/);
    });

    it('takes a 16 MiB file in one request: the body limit is its base64 plus 1 MiB', () => {
      // What main.ts sets: the larger of the upload and run file limits, as base64, plus 1 MiB.
      expect(a2aBodyLimit(Math.max(25 * MIB, 16 * MIB))).toBe(36_001_112);
      expect(a2aBodyLimit(16 * MIB)).toBe(23_418_200);
      expect(Math.ceil((16 * MIB) / 3) * 4).toBeLessThan(a2aBodyLimit(16 * MIB) - MIB + 1);
    });
  });

  describe('createRunFilesClient against the running agent', () => {
    const files = () => createRunFilesClient({ client: agent.client, agentUrl: agent.url });

    it(
      'keeps and reads back a 16 MiB file, and lists, describes and removes it',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const bytes = Buffer.alloc(16 * MIB, 'abcdefghij,0123456789\n');
        const kept = await putOne(
          files(),
          { tenant, sessionId: 'session-big' },
          { name: 'big.csv', mediaType: 'text/csv', bytes },
        );
        expect(runFileSchema.parse(kept)).toMatchObject({ name: 'big.csv', size: 16 * MIB });
        const read = await files().get({ tenant, id: kept.id });
        expect(read.file).toEqual(kept);
        expect(read.bytes.equals(bytes)).toBe(true);
        expect(await files().info({ tenant, id: kept.id })).toEqual(kept);
        expect(await files().list({ tenant, sessionId: 'session-big' })).toEqual([kept]);
        expect(await files().remove({ tenant, id: kept.id })).toBe(true);
        expect(await files().remove({ tenant, id: kept.id })).toBe(false);
        expect(await files().list({ tenant, sessionId: 'session-big' })).toEqual([]);
      },
      SLOW,
    );

    it('throws NotFoundError for another tenant’s id, an unknown id and a malformed one', async () => {
      const tenant = `t-${randomUUID()}`;
      const kept = await putOne(files(), { tenant }, CHART);
      const id = kept.id;
      await expect(files().get({ tenant: 'intruder', id })).rejects.toBeInstanceOf(NotFoundError);
      await expect(files().info({ tenant: 'intruder', id })).rejects.toBeInstanceOf(NotFoundError);
      expect(await files().remove({ tenant: 'intruder', id })).toBe(false);
      await expect(files().get({ tenant, id: `file-${'f'.repeat(32)}` })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await expect(files().get({ tenant, id: '../etc/passwd' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect((await files().get({ tenant, id })).bytes.equals(png)).toBe(true);
    });

    it(
      'throws ValidationError naming a refused file and PayloadTooLargeError over 16 MiB',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const refused = files().put({
          tenant,
          files: [{ name: 'setup.exe', mediaType: 'application/x-msdownload', bytes: text('MZ') }],
          source: 'attachment',
          expiresAt: later(1),
        });
        await expect(refused).rejects.toBeInstanceOf(ValidationError);
        await expect(refused).rejects.toThrow(/setup\.exe/);
        await expect(
          files().put({ tenant, files: [], source: 'step', expiresAt: later(1) }),
        ).rejects.toBeInstanceOf(ValidationError);
        const big = files().put({
          tenant,
          files: [
            { name: 'big.txt', mediaType: 'text/plain', bytes: Buffer.alloc(16 * MIB + 1, 'x') },
          ],
          source: 'step',
          expiresAt: later(1),
        });
        await expect(big).rejects.toBeInstanceOf(PayloadTooLargeError);
        await expect(big).rejects.toThrow(/big\.txt .*RAG_MAX_RUN_FILE_BYTES/);
      },
      SLOW,
    );

    it('throws ServiceUnavailableError when the agent cannot be reached', async () => {
      const reader = createRunFilesClient({
        client: agent.client,
        agentUrl: 'http://127.0.0.1:9',
        contentUrl: 'http://127.0.0.1:9',
        token: TEST_TOKEN,
      });
      const read = await reader
        .get({ tenant: 't', id: `file-${'a'.repeat(32)}` })
        .catch((caught: unknown) => caught);
      expect(read).toBeInstanceOf(ServiceUnavailableError);
      expect((read as Error).message).toMatch(/not reachable at http:\/\/127\.0\.0\.1:9/);
      const unreachable = createRunFilesClient({
        client: new A2AClient({
          url: 'http://127.0.0.1:9/a2a',
          token: TEST_TOKEN,
          timeoutMs: 5_000,
        }),
        agentUrl: 'http://127.0.0.1:9',
      });
      const error = await unreachable
        .list({ tenant: 't', sessionId: 's' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as Error).message).toMatch(/not reachable at http:\/\/127\.0\.0\.1:9/);
    });
  });

  describe('createRunFilesClient reading bytes from the byte route (contentUrl)', () => {
    const reader = (options: { token?: string; fetch?: typeof fetch } = {}) =>
      createRunFilesClient({
        client: agent.client,
        agentUrl: agent.url,
        contentUrl: agent.url,
        token: options.token ?? TEST_TOKEN,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });

    /** Every key of the agent's task store: one more for every A2A task it keeps. */
    async function taskKeys(): Promise<string[]> {
      return (await booted.redis.keys(`${prefix}:*`)).sort();
    }

    it(
      'reads a 16 MiB file’s bytes and RunFile without leaving a task in the agent’s task store',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const bytes = Buffer.alloc(16 * MIB, 'abcdefghij,0123456789\n');
        const kept = await putOne(
          reader(),
          { tenant },
          {
            name: 'big.csv',
            mediaType: 'text/csv',
            bytes,
          },
        );
        const before = await taskKeys();
        const read = await reader().get({ tenant, id: kept.id });
        expect(read.file).toEqual(kept);
        expect(read.bytes.equals(bytes)).toBe(true);
        const again = await reader().get({ tenant, id: kept.id });
        expect(again.bytes.byteLength).toBe(16 * MIB);
        expect(await taskKeys()).toEqual(before);
        // The A2A get command (no contentUrl) still works, and keeps its task: what the route avoids.
        const viaTask = await createRunFilesClient({
          client: agent.client,
          agentUrl: agent.url,
        }).get({ tenant, id: kept.id });
        expect(viaTask.bytes.equals(bytes)).toBe(true);
        expect((await taskKeys()).length).toBeGreaterThan(before.length);
      },
      SLOW,
    );

    it(
      'keeps files over POST /internal/files without leaving a task in the agent’s task store',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const big = Buffer.alloc(16 * MIB, 'abcdefghij,0123456789\n');
        const before = await taskKeys();
        const kept = await reader().put({
          tenant,
          files: [
            { name: '../chart.png', mediaType: 'application/octet-stream', bytes: png },
            { name: 'big.csv', mediaType: 'text/csv', bytes: big },
          ],
          sessionId: 'session-route',
          nodeId: 'chart',
          agent: 'code-agent',
          source: 'step',
          expiresAt: later(1),
        });
        expect(await taskKeys()).toEqual(before);
        const [chart, csv] = kept;
        expect(chart).toMatchObject({
          name: 'chart.png',
          mediaType: 'image/png',
          size: png.byteLength,
          sha256: createHash('sha256').update(png).digest('hex'),
          sessionId: 'session-route',
          nodeId: 'chart',
          agent: 'code-agent',
          source: 'step',
        });
        expect(csv).toMatchObject({ name: 'big.csv', mediaType: 'text/csv', size: 16 * MIB });
        const read = await reader().get({ tenant, id: csv?.id ?? '' });
        expect(read.file).toEqual(csv);
        expect(read.bytes.equals(big)).toBe(true);
        expect((await reader().get({ tenant, id: chart?.id ?? '' })).bytes.equals(png)).toBe(true);
        expect(await taskKeys()).toEqual(before);
        // Listed (over A2A) as kept; the other tenant sees none of them.
        expect(
          (await reader().list({ tenant, sessionId: 'session-route' }))
            .map((file) => file.id)
            .sort(),
        ).toEqual([chart?.id, csv?.id].sort());
        await expect(
          reader().get({ tenant: 'intruder', id: chart?.id ?? '' }),
        ).rejects.toBeInstanceOf(NotFoundError);
      },
      SLOW,
    );

    it(
      'keeps none of a put whose later file is refused, and names that file',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const before = await taskKeys();
        const put = (second: { name: string; mediaType: string; bytes: Uint8Array }) =>
          reader().put({
            tenant,
            files: [
              { name: 'ok.csv', mediaType: 'text/csv', bytes: text('a\n1\n') },
              { name: 'notes.txt', mediaType: 'text/plain', bytes: text('notes') },
              second,
              { name: 'never.txt', mediaType: 'text/plain', bytes: text('never sent') },
            ],
            sessionId: 'session-refused',
            source: 'step',
            expiresAt: later(1),
          });
        const fake = await put({
          name: 'chart.png',
          mediaType: 'image/png',
          bytes: text('<html>'),
        }).catch((caught: unknown) => caught);
        expect(fake).toBeInstanceOf(ValidationError);
        expect((fake as Error).message).toMatch(
          /chart\.png says it is image\/png but its content is not/,
        );
        const big = await put({
          name: 'big.txt',
          mediaType: 'text/plain',
          bytes: Buffer.alloc(16 * MIB + 1, 'x'),
        }).catch((caught: unknown) => caught);
        expect(big).toBeInstanceOf(PayloadTooLargeError);
        expect((big as Error).message).toMatch(/big\.txt .*RAG_MAX_RUN_FILE_BYTES/);
        const badExpiry = await reader()
          .put({
            tenant,
            files: [{ name: 'late.txt', mediaType: 'text/plain', bytes: text('late') }],
            sessionId: 'session-refused',
            source: 'step',
            expiresAt: 'next week',
          })
          .catch((caught: unknown) => caught);
        expect(badExpiry).toBeInstanceOf(ValidationError);
        expect((badExpiry as Error).message).toMatch(/^late\.txt: expiresAt \(next week\)/);
        // The puts and the deletions that undid them left no task behind; nothing is kept.
        expect(await taskKeys()).toEqual(before);
        expect(await reader().list({ tenant, sessionId: 'session-refused' })).toEqual([]);
      },
      SLOW,
    );

    it('throws ServiceUnavailableError for an unreachable agent or its 503, UpstreamError for a malformed answer', async () => {
      const file = { name: 'chart.png', mediaType: 'image/png', bytes: png };
      const input = { tenant: 't', files: [file], source: 'step' as const, expiresAt: later(1) };
      const unreachable = createRunFilesClient({
        client: agent.client,
        agentUrl: 'http://127.0.0.1:9',
        contentUrl: 'http://127.0.0.1:9',
        token: TEST_TOKEN,
      });
      const down = await unreachable.put(input).catch((caught: unknown) => caught);
      expect(down).toBeInstanceOf(ServiceUnavailableError);
      expect((down as Error).message).toMatch(/not reachable at http:\/\/127\.0\.0\.1:9/);

      const refused = await reader({ token: 'not-the-token-0123456789' })
        .put(input)
        .catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(ServiceUnavailableError);
      expect((refused as Error).message).toMatch(/FLEET_INTERNAL_TOKEN/);

      const unavailable = await reader({
        fetch: () =>
          Promise.resolve(
            new Response(
              JSON.stringify({
                error: {
                  code: 'SERVICE_UNAVAILABLE',
                  message:
                    'The RAG database cannot be reached right now; try again in a few seconds.',
                  details: { retryAfterSeconds: 5 },
                },
              }),
              { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
            ),
          ),
      })
        .put(input)
        .catch((caught: unknown) => caught);
      expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
      expect((unavailable as ServiceUnavailableError).retryAfterSeconds).toBe(5);

      for (const answer of [
        new Response('{"id":"nope"}', { status: 201 }),
        new Response('not json', { status: 201 }),
        new Response('Cannot POST', { status: 404 }),
        // The fleet's NOT_FOUND for the route itself: an agent without it, not a missing file.
        new Response(
          JSON.stringify({
            error: { code: 'NOT_FOUND', message: 'No route POST /internal/files.' },
          }),
          { status: 404, headers: { 'content-type': 'application/json' } },
        ),
      ]) {
        const error = await reader({ fetch: () => Promise.resolve(answer) })
          .put(input)
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(UpstreamError);
        expect((error as UpstreamError).status).toBe(502);
      }
    });

    it('throws UpstreamTimeoutError when the agent does not answer in time', async () => {
      const slow = createRunFilesClient({
        client: agent.client,
        agentUrl: agent.url,
        contentUrl: agent.url,
        token: TEST_TOKEN,
        timeoutMs: 50,
        fetch: (_input, init) =>
          new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      });
      await expect(
        slow.put({
          tenant: 't',
          files: [{ name: 'chart.png', mediaType: 'image/png', bytes: png }],
          source: 'step',
          expiresAt: later(1),
        }),
      ).rejects.toBeInstanceOf(UpstreamTimeoutError);
    });

    it('throws NotFoundError for another tenant’s, an unknown, an expired and a malformed id', async () => {
      const tenant = `t-${randomUUID()}`;
      const kept = await putOne(reader(), { tenant }, CHART);
      const id = kept.id;
      for (const [who, which] of [
        ['intruder', id],
        [tenant, `file-${'f'.repeat(32)}`],
        [tenant, '../etc/passwd'],
      ] as const) {
        await expect(reader().get({ tenant: who, id: which })).rejects.toBeInstanceOf(
          NotFoundError,
        );
      }
      clock += 2 * HOUR;
      try {
        await expect(reader().get({ tenant, id })).rejects.toBeInstanceOf(NotFoundError);
      } finally {
        clock -= 2 * HOUR;
      }
      expect((await reader().get({ tenant, id })).bytes.equals(png)).toBe(true);
    });

    it('throws ServiceUnavailableError when the agent refuses the token', async () => {
      const tenant = `t-${randomUUID()}`;
      const kept = await putOne(reader(), { tenant }, CHART);
      const refused = reader({ token: 'not-the-token-0123456789' }).get({
        tenant,
        id: kept.id,
      });
      await expect(refused).rejects.toBeInstanceOf(ServiceUnavailableError);
      await expect(refused).rejects.toThrow(/FLEET_INTERNAL_TOKEN/);
    });

    it('passes the agent’s 503 on with its wait, and a caller’s abort as AbortError', async () => {
      const unavailable = reader({
        fetch: () =>
          Promise.resolve(
            new Response(
              JSON.stringify({
                error: {
                  code: 'SERVICE_UNAVAILABLE',
                  message:
                    'The RAG database cannot be reached right now; try again in a few seconds.',
                  details: { retryAfterSeconds: 5 },
                },
              }),
              { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
            ),
          ),
      });
      const error = await unavailable
        .get({ tenant: 't', id: `file-${'a'.repeat(32)}` })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(5);

      const controller = new AbortController();
      controller.abort();
      await expect(
        reader().get({ tenant: 't', id: `file-${'a'.repeat(32)}`, signal: controller.signal }),
      ).rejects.toBeInstanceOf(AbortError);
    });

    it('throws UpstreamError (502) for bytes over the limit or unlike their metadata, and bad metadata', async () => {
      const tenant = `t-${randomUUID()}`;
      const kept = await putOne(
        reader(),
        { tenant },
        {
          name: 'notes.txt',
          mediaType: 'text/plain',
          bytes: text('0123456789'),
        },
      );
      const id = kept.id;
      const small = createRunFilesClient({
        client: agent.client,
        agentUrl: agent.url,
        contentUrl: agent.url,
        token: TEST_TOKEN,
        maxFileBytes: 9,
      });
      const over = await small.get({ tenant, id }).catch((caught: unknown) => caught);
      expect(over).toBeInstanceOf(UpstreamError);
      expect((over as UpstreamError).status).toBe(502);
      expect((over as Error).message).toMatch(/at most 9/);

      /** The agent's real answer, changed by `edit` on the way. */
      const tampered = (edit: (response: Response) => Response) =>
        reader({
          fetch: async (input, init) => edit(await fetch(input, init)),
        });
      const truncated = tampered(
        (response) =>
          new Response(text('01234'), {
            status: 200,
            headers: { 'x-fleet-file': response.headers.get('x-fleet-file') ?? '' },
          }),
      );
      await expect(truncated.get({ tenant, id })).rejects.toThrow(/metadata says 10/);
      for (const header of [
        '',
        'not base64 json!',
        Buffer.from('{"id":1}').toString('base64url'),
      ]) {
        const malformed = tampered(
          (response) =>
            new Response(response.body, { status: 200, headers: { 'x-fleet-file': header } }),
        );
        const error = await malformed.get({ tenant, id }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(UpstreamError);
        expect((error as Error).message).toMatch(/without valid metadata/);
      }
      // A 404 that is not the fleet's NOT_FOUND: an agent without the route, not a missing file.
      const older = reader({
        fetch: () => Promise.resolve(new Response('Cannot GET', { status: 404 })),
      });
      const missingRoute = await older.get({ tenant, id }).catch((caught: unknown) => caught);
      expect(missingRoute).toBeInstanceOf(UpstreamError);
      expect(missingRoute).not.toBeInstanceOf(NotFoundError);
    });
  });
});
