import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AbortError, FleetError, ValidationError } from '@fleet/errors';
import {
  createWorkerPool,
  type CreateWorkerPoolOptions,
  type WorkerPool,
} from './create-worker-pool';
import type { testJobs } from './__fixtures__/test-worker';
import { WorkerJobFailedError } from './worker-job-failed-error';
import { WorkerJobLimitError } from './worker-job-limit-error';
import { WorkerPoolBusyError } from './worker-pool-busy-error';

type TestJobs = typeof testJobs;

// Under jest this is the TypeScript source: the pool's worker transpiles it as it loads.
const ENTRY = join(__dirname, '__fixtures__', 'test-worker.ts');

const pools: WorkerPool<TestJobs>[] = [];
function pool(options: Partial<CreateWorkerPoolOptions> = {}): WorkerPool<TestJobs> {
  const created = createWorkerPool<TestJobs>({
    entry: ENTRY,
    name: 'test worker',
    settingNames: {
      timeout: 'TEST_TIMEOUT_MS',
      memory: 'TEST_MEMORY_MB',
      queue: 'TEST_QUEUE_LENGTH',
    },
    ...options,
  });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((each) => each.close()));
});

describe('createWorkerPool', () => {
  it('runs a job in a worker thread (a TypeScript entry, transpiled) and returns its result', async () => {
    const workers = pool();
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'hello' } }),
    ).resolves.toEqual({ text: 'hello', thread: 'worker' });
  }, 30_000);

  it('stops a job that runs past its time, naming the budget, and replaces its worker', async () => {
    const workers = pool({ timeoutMs: 1500, size: 1 });
    // Warm the worker up first: loading the entry does not count against the job's time.
    await workers.run({ tenant: 't', kind: 'echo', payload: { text: 'warm' } });
    const spin = workers.run({ tenant: 't', kind: 'spin', payload: {} });
    // The service's own thread stays free while the worker spins.
    await new Promise((resolve) => setImmediate(resolve));
    const error = await spin.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkerJobLimitError);
    expect(error).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      budget: 'time',
      details: { budget: 'time', max: 1500, limit: 'TEST_TIMEOUT_MS' },
    });
    expect((error as Error).message).toContain('TEST_TIMEOUT_MS');
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'after' } }),
    ).resolves.toMatchObject({ text: 'after' });
  }, 30_000);

  it('stops a job whose worker runs out of its heap, and the next job runs', async () => {
    const workers = pool({ maxMemoryMb: 64, size: 1 });
    const error = await workers.run({ tenant: 't', kind: 'hog', payload: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkerJobLimitError);
    expect(error).toMatchObject({
      budget: 'memory',
      details: { max: 64, limit: 'TEST_MEMORY_MB' },
    });
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'after' } }),
    ).resolves.toMatchObject({ text: 'after' });
  }, 60_000);

  it('keeps a job’s typed error, and turns anything else into WorkerJobFailedError', async () => {
    const workers = pool({ size: 1 });
    const invalid = await workers
      .run({ tenant: 't', kind: 'invalid', payload: { field: 'x' } })
      .catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ message: 'The field x is wrong.', details: { field: 'x' } });
    await expect(workers.run({ tenant: 't', kind: 'broken', payload: {} })).rejects.toBeInstanceOf(
      WorkerJobFailedError,
    );
    await expect(workers.run({ tenant: 't', kind: 'exit', payload: {} })).rejects.toBeInstanceOf(
      WorkerJobFailedError,
    );
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'still here' } }),
    ).resolves.toMatchObject({ text: 'still here' });
  }, 30_000);

  it('refuses a job with a retryable 503 when the queue, or the tenant’s share of it, is full', async () => {
    const workers = pool({ size: 1, maxQueued: 2, maxQueuedPerTenant: 1, retryAfterSeconds: 7 });
    // A started worker, so that a1 runs at once rather than waiting for one.
    await workers.run({ tenant: 'a', kind: 'echo', payload: { text: 'warm' } });
    const running = workers.run({ tenant: 'a', kind: 'sleep', payload: { ms: 400, label: 'a1' } });
    const waiting = workers.run({ tenant: 'a', kind: 'sleep', payload: { ms: 10, label: 'a2' } });
    const tenantFull = await workers
      .run({ tenant: 'a', kind: 'sleep', payload: { ms: 10, label: 'a3' } })
      .catch((caught: unknown) => caught);
    expect(tenantFull).toBeInstanceOf(WorkerPoolBusyError);
    expect(tenantFull).toMatchObject({
      status: 503,
      isRetryable: true,
      retryAfterSeconds: 7,
      details: { scope: 'tenant', retryAfterSeconds: 7 },
    });
    const other = workers.run({ tenant: 'b', kind: 'sleep', payload: { ms: 10, label: 'b1' } });
    const poolFull = await workers
      .run({ tenant: 'c', kind: 'sleep', payload: { ms: 10, label: 'c1' } })
      .catch((caught: unknown) => caught);
    expect(poolFull).toMatchObject({ status: 503, details: { scope: 'pool', limit: 2 } });
    expect((poolFull as Error).message).toContain('TEST_QUEUE_LENGTH');
    await expect(Promise.all([running, waiting, other])).resolves.toEqual(['a1', 'a2', 'b1']);
  }, 30_000);

  it('serves another tenant’s job before the rest of one tenant’s queue', async () => {
    const workers = pool({ size: 1 });
    const finished: string[] = [];
    const track = (tenant: string, label: string) =>
      workers
        .run({ tenant, kind: 'sleep', payload: { ms: 100, label } })
        .then((value) => finished.push(value));
    const jobs = [
      track('a', 'a1'),
      track('a', 'a2'),
      track('a', 'a3'),
      track('a', 'a4'),
      track('b', 'b1'),
    ];
    await Promise.all(jobs);
    expect(finished).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  }, 30_000);

  it('runs at most maxRunningPerTenant of a tenant’s jobs at once, leaving workers to others', async () => {
    const workers = pool({ size: 2, maxRunningPerTenant: 1 });
    const finished: string[] = [];
    const track = (tenant: string, label: string, ms: number) =>
      workers
        .run({ tenant, kind: 'sleep', payload: { ms, label } })
        .then((value) => finished.push(value));
    const a1 = track('a', 'a1', 600);
    const a2 = track('a', 'a2', 10);
    const b1 = track('b', 'b1', 10);
    await Promise.all([a1, a2, b1]);
    // a2 waited for a1 although a worker was free; b1 took it.
    expect(finished).toEqual(['b1', 'a1', 'a2']);
  }, 30_000);

  it('cancels a waiting job and a running one', async () => {
    const workers = pool({ size: 1 });
    const controller = new AbortController();
    const running = workers.run({
      tenant: 't',
      kind: 'spin',
      payload: {},
      signal: controller.signal,
    });
    const waiting = workers.run({
      tenant: 't',
      kind: 'echo',
      payload: { text: 'never' },
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(AbortError);
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'next' } }),
    ).resolves.toMatchObject({ text: 'next' });
  }, 30_000);

  it('fails waiting jobs when it closes, and refuses new ones', async () => {
    const workers = pool({ size: 1 });
    const jobs = [
      workers.run({ tenant: 't', kind: 'sleep', payload: { ms: 5000, label: 'x' } }),
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'y' } }),
    ].map((job) => job.catch((caught: unknown) => caught));
    await workers.close();
    for (const error of await Promise.all(jobs)) {
      expect(FleetError.isInstance(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    }
    await expect(
      workers.run({ tenant: 't', kind: 'echo', payload: { text: 'z' } }),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  }, 30_000);
});
