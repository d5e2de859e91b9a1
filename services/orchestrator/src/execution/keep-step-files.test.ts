import { describe, expect, it } from '@jest/globals';
import type { PlanNode, RunFile, RunFileStore } from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import { createMemoryRunFileStore, encodePng } from '@fleet/testing';
import {
  createRunFileKeeper,
  DEFAULT_RUN_FILE_LIMITS,
  MAX_REFUSALS_PER_STEP,
  type RunFileRefusal,
} from './keep-step-files';
import type { StepFilePart } from './node-outcome';

const node: PlanNode = { id: 'chart', agent: 'code-agent', task: 'Draw it', dependsOn: [] };

function part(filename: string | undefined, mediaType: string, bytes: Buffer): StepFilePart {
  return {
    ...(filename === undefined ? {} : { filename }),
    mediaType,
    raw: bytes.toString('base64'),
  };
}

function keeperWith(
  store: RunFileStore | undefined,
  limits = DEFAULT_RUN_FILE_LIMITS,
  kept: RunFile[] = [],
) {
  const ready: RunFile[] = [];
  const refused: RunFileRefusal[] = [];
  const keeper = createRunFileKeeper({
    store,
    tenant: 'acme',
    sessionId: 'session-1',
    limits,
    kept,
    onReady: (file) => ready.push(file),
    onRefused: (refusal) => refused.push(refusal),
    now: () => Date.parse('2026-01-01T00:00:00.000Z'),
  });
  return { keeper, ready, refused };
}

describe('createRunFileKeeper', () => {
  it('keeps a step’s PNG in the store with its session, step, agent and expiry', async () => {
    const store = createMemoryRunFileStore({ now: () => Date.parse('2026-01-01T00:00:00Z') });
    const { keeper, ready, refused } = keeperWith(store, {
      ...DEFAULT_RUN_FILE_LIMITS,
      ttlSeconds: 3600,
    });
    const png = encodePng({ width: 4, height: 4 });
    const kept = await keeper.keepStepFiles({
      node,
      files: [part('chart.png', 'image/png', png)],
      signal: undefined,
    });
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      name: 'chart.png',
      mediaType: 'image/png',
      size: png.byteLength,
      source: 'step',
      sessionId: 'session-1',
      nodeId: 'chart',
      agent: 'code-agent',
      expiresAt: '2026-01-01T01:00:00.000Z',
    });
    expect(store.stored[0]?.bytes.equals(png)).toBe(true);
    expect(store.stored[0]?.tenant).toBe('acme');
    expect(ready).toEqual(kept);
    expect(refused).toEqual([]);
    expect(keeper.files()).toEqual(kept);
  });

  it('cleans names, keeps HTML as an active type, refuses a fake PNG, an executable and a URL', async () => {
    const store = createMemoryRunFileStore();
    const { keeper, refused } = keeperWith(store);
    const kept = await keeper.keepStepFiles({
      node,
      files: [
        part('../../etc/passwd.txt', 'text/plain', Buffer.from('root:x:0:0')),
        part('fake.png', 'image/png', Buffer.from('<script>alert(1)</script>')),
        part(
          'page.html',
          'text/html',
          Buffer.from('<html><script>alert(1)</script></html>', 'utf8'),
        ),
        part('setup.exe', 'application/x-msdownload', Buffer.from('MZ\x90\x00')),
        { filename: 'remote.png', mediaType: 'image/png', url: 'https://example.com/x.png' },
      ],
      signal: undefined,
    });
    expect(kept.map((file) => [file.name, file.mediaType])).toEqual([
      ['passwd.txt', 'text/plain'],
      ['page.html', 'text/html'],
    ]);
    expect(refused.map((refusal) => refusal.name)).toEqual(['fake.png', 'setup.exe', 'remote.png']);
    expect(refused[0]?.reason).toMatch(/not/);
    expect(refused[1]?.reason).toMatch(/not a kind of file the fleet keeps/);
    expect(refused[2]?.reason).toMatch(/URL/);
    expect(refused.every((refusal) => refusal.nodeId === 'chart')).toBe(true);
  });

  it('gives an unnamed file a name with its type’s extension', async () => {
    const { keeper } = keeperWith(createMemoryRunFileStore());
    const kept = await keeper.keepStepFiles({
      node,
      files: [part(undefined, 'image/png', encodePng({ width: 2, height: 2 }))],
      signal: undefined,
    });
    expect(kept[0]?.name).toBe('file-1.png');
  });

  it('keeps 32 of 10,000 tiny files and says so in one event', async () => {
    const store = createMemoryRunFileStore();
    const { keeper, ready, refused } = keeperWith(store);
    const files = Array.from({ length: 10_000 }, (_, index) =>
      part(`n${index}.txt`, 'text/plain', Buffer.from(`${index}`)),
    );
    const kept = await keeper.keepStepFiles({ node, files, signal: undefined });
    expect(kept).toHaveLength(32);
    expect(store.stored).toHaveLength(32);
    expect(ready).toHaveLength(32);
    expect(refused).toEqual([
      {
        nodeId: 'chart',
        agent: 'code-agent',
        name: '9,968 more files',
        reason: 'a run keeps at most 32 files',
      },
    ]);
    // The run's limit holds across steps.
    const later = await keeper.keepStepFiles({
      node: { ...node, id: 'later' },
      files: [part('one.txt', 'text/plain', Buffer.from('1'))],
      signal: undefined,
    });
    expect(later).toEqual([]);
    expect(refused.at(-1)?.name).toBe('1 more file');
  });

  it('refuses a file over the per-file limit and files past the run’s bytes, without decoding them', async () => {
    const { keeper, refused } = keeperWith(createMemoryRunFileStore(), {
      ...DEFAULT_RUN_FILE_LIMITS,
      maxFileBytes: 1000,
      maxRunBytes: 1500,
    });
    const kept = await keeper.keepStepFiles({
      node,
      files: [
        part('big.txt', 'text/plain', Buffer.alloc(1001, 0x61)),
        part('a.txt', 'text/plain', Buffer.alloc(800, 0x61)),
        part('b.txt', 'text/plain', Buffer.alloc(800, 0x61)),
      ],
      signal: undefined,
    });
    expect(kept.map((file) => file.name)).toEqual(['a.txt']);
    expect(refused.map((refusal) => refusal.name)).toEqual(['big.txt', 'b.txt']);
    expect(refused[0]?.reason).toBe('it is 1001 bytes, over the 1000 bytes a file may have');
    expect(refused[1]?.reason).toBe(
      "it would take the run's files past the 1.5 KiB a run may keep",
    );
  });

  it('announces at most a few refusals one by one, the rest in one summary', async () => {
    const { keeper, refused } = keeperWith(createMemoryRunFileStore());
    await keeper.keepStepFiles({
      node,
      files: Array.from({ length: 50 }, (_, index) =>
        part(`x${index}.exe`, 'application/x-msdownload', Buffer.from('MZ')),
      ),
      signal: undefined,
    });
    expect(refused).toHaveLength(MAX_REFUSALS_PER_STEP + 1);
    expect(refused.at(-1)?.name).toBe(`${50 - MAX_REFUSALS_PER_STEP} more files`);
  });

  it('refuses the files with the reason when the store is down, and frees their places', async () => {
    const down: RunFileStore = {
      ...createMemoryRunFileStore(),
      put: () => Promise.reject(new ServiceUnavailableError('the RAG agent is not answering')),
    };
    const { keeper, ready, refused } = keeperWith(down, {
      ...DEFAULT_RUN_FILE_LIMITS,
      maxRunFiles: 1,
    });
    const kept = await keeper.keepStepFiles({
      node,
      files: [part('a.txt', 'text/plain', Buffer.from('a'))],
      signal: undefined,
    });
    expect(kept).toEqual([]);
    expect(ready).toEqual([]);
    expect(refused).toEqual([
      {
        nodeId: 'chart',
        agent: 'code-agent',
        name: 'a.txt',
        reason: 'the file store could not keep it: the RAG agent is not answering',
      },
    ]);
    expect(keeper.files()).toEqual([]);
  });

  it('keeps the good files when the store refuses one of a step’s files', async () => {
    const store = createMemoryRunFileStore({ maxFileBytes: 10 });
    const { keeper, refused } = keeperWith(store);
    const kept = await keeper.keepStepFiles({
      node,
      files: [
        part('small.txt', 'text/plain', Buffer.from('ok')),
        part('large.txt', 'text/plain', Buffer.alloc(20, 0x61)),
      ],
      signal: undefined,
    });
    expect(kept.map((file) => file.name)).toEqual(['small.txt']);
    expect(refused.map((refusal) => refusal.name)).toEqual(['large.txt']);
  });

  it('counts what a resumed run kept before, and keeps attachments as such', async () => {
    const store = createMemoryRunFileStore();
    const earlier = await store.put({
      tenant: 'acme',
      files: [{ name: 'old.txt', mediaType: 'text/plain', bytes: Buffer.from('old') }],
      source: 'step',
      expiresAt: '2099-01-01T00:00:00.000Z',
    });
    const { keeper, refused } = keeperWith(
      store,
      { ...DEFAULT_RUN_FILE_LIMITS, maxRunFiles: 2 },
      earlier,
    );
    const kept = await keeper.keepAttachments([
      part('sales.csv', 'text/csv', Buffer.from('a,b\n1,2\n')),
      part('more.csv', 'text/csv', Buffer.from('a,b\n1,2\n')),
    ]);
    expect(kept.map((file) => [file.name, file.source])).toEqual([['sales.csv', 'attachment']]);
    expect(kept[0]?.nodeId).toBeUndefined();
    expect(keeper.files().map((file) => file.name)).toEqual(['old.txt', 'sales.csv']);
    expect(refused).toEqual([{ name: '1 more file', reason: 'a run keeps at most 2 files' }]);
  });

  it('refuses every file when the fleet has no file store', async () => {
    const { keeper, refused } = keeperWith(undefined);
    await keeper.keepStepFiles({
      node,
      files: [part('a.txt', 'text/plain', Buffer.from('a'))],
      signal: undefined,
    });
    expect(refused[0]?.reason).toMatch(/no file store/);
  });
});
