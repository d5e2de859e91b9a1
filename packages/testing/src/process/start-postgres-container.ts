import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { delay } from '../internal/delay';
import { getFreePort } from './get-free-port';

/** A container image that is present locally, and the runtime that has it. */
export interface LocalContainerImage {
  /** `podman` or `docker` (or a path to one). */
  runtime: string;
  image: string;
}

/** What {@link findLocalImage} found: an image to start, or why there is none (for a skip message). */
export type LocalImageLookup =
  { found: LocalContainerImage; missing?: undefined } | { found?: undefined; missing: string };

/** Options for {@link findLocalImage}. */
export interface FindLocalImageOptions {
  /** Runtimes to ask, in order. @default ['podman', 'docker'] */
  runtimes?: readonly string[];
  /** Images to look for, in order of preference. */
  images: readonly string[];
}

/** What podman and docker say of an image they do not have. */
const IMAGE_MISSING = /no such|not known|unknown image/i;

/** How long one `image inspect` may take: podman waits for its storage lock while a build commits. */
const INSPECT_TIMEOUT_MS = 60_000;
/** Attempts of one `image inspect` that failed for no clear reason (a timeout, a lock). */
const INSPECT_ATTEMPTS = 3;

/** `<runtime> image inspect <image>`, again after an unclear failure. */
function inspectImage(runtime: string, image: string): SpawnSyncReturns<string> {
  let result = spawnSync(runtime, ['image', 'inspect', '--format', '{{.Id}}', image], {
    encoding: 'utf8',
    timeout: INSPECT_TIMEOUT_MS,
  });
  for (let attempt = 1; attempt < INSPECT_ATTEMPTS; attempt += 1) {
    const notInstalled = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    const answered =
      result.error === undefined && (result.status === 0 || IMAGE_MISSING.test(result.stderr));
    if (notInstalled || answered) break;
    result = spawnSync(runtime, ['image', 'inspect', '--format', '{{.Id}}', image], {
      encoding: 'utf8',
      timeout: INSPECT_TIMEOUT_MS,
    });
  }
  return result;
}

/**
 * Looks for the first of `images` that one of `runtimes` already has, synchronously (so a test
 * file can decide at load time whether to skip). Never pulls: a test must not wait minutes for a
 * download, or fail for want of a network.
 *
 * @example
 * const lookup = findLocalImage({ images: ['pgvector/pgvector:pg17'] });
 * if (lookup.missing !== undefined) console.warn(`skipped: ${lookup.missing}`);
 */
export function findLocalImage({
  runtimes = ['podman', 'docker'],
  images,
}: FindLocalImageOptions): LocalImageLookup {
  const reasons: string[] = [];
  for (const runtime of runtimes) {
    let runtimeWorks = false;
    let lastError = '';
    for (const image of images) {
      const result = inspectImage(runtime, image);
      if (result.error !== undefined) {
        lastError =
          (result.error as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'not installed'
            : result.error.message;
        break;
      }
      if (result.status === 0) return { found: { runtime, image } };
      lastError = result.stderr.trim().split('\n')[0] || `exit code ${result.status}`;
      // "no such image" means the runtime itself answers; a daemon that is down does not.
      if (IMAGE_MISSING.test(lastError)) runtimeWorks = true;
    }
    reasons.push(
      runtimeWorks
        ? `${runtime} has none of ${images.join(', ')} (the tests do not pull; \`${runtime} pull ${images[0]}\` first)`
        : `${runtime}: ${lastError}`,
    );
  }
  return { missing: reasons.join('; ') };
}

/** Options for {@link startPostgresContainer}. */
export interface StartPostgresContainerOptions extends LocalContainerImage {
  /** POSTGRES_USER (a superuser). @default 'fleet' */
  user?: string;
  /** POSTGRES_PASSWORD. @default 'fleet-test' */
  password?: string;
  /** POSTGRES_DB. @default 'fleet' */
  database?: string;
  /** How long to wait for the server to accept connections. @default 60000 */
  timeoutMs?: number;
}

/** A PostgreSQL server in a container of a test's own, published on a spare loopback port. */
export interface PostgresContainer {
  /** `postgres://user:password@127.0.0.1:<port>/database` */
  url: string;
  port: number;
  /** The container's name (`fleet-test-pg-…`, labelled `fleet-test=1`). */
  name: string;
  /** Milliseconds from `run` until the server accepted connections. */
  startMs: number;
  /** The container's log so far. */
  logs(): Promise<string>;
  /** Removes the container (and its data). Safe to call twice. */
  stop(): Promise<void>;
}

function run(
  runtime: string,
  args: string[],
  timeoutMs = 60_000,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(runtime, args, { timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${runtime} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

function removeArgs(runtime: string, name: string): string[] {
  // podman waits 10 s for a graceful stop even with -f unless told otherwise; docker kills.
  return path.basename(runtime).includes('podman')
    ? ['rm', '-f', '-t', '0', name]
    : ['rm', '-f', name];
}

/**
 * True once a PostgreSQL postmaster answers on the port: it replies to an SSLRequest with one
 * byte ('S' or 'N'). A port that a runtime's proxy accepts before the server listens closes
 * without a reply, and the images' first-start initialisation listens on no TCP port at all.
 */
function answersPostgres(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
    socket.once('data', (data) => done(data.length > 0 && (data[0] === 0x53 || data[0] === 0x4e)));
    socket.once('connect', () => {
      const request = Buffer.alloc(8);
      request.writeInt32BE(8, 0);
      request.writeInt32BE(80_877_103, 4);
      socket.write(request);
    });
  });
}

// Containers still there when the test process exits are removed with it.
const running = new Map<string, string>();
let exitHookInstalled = false;
function removeOnExit(runtime: string, name: string): void {
  running.set(name, runtime);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [each, eachRuntime] of running) {
      spawnSync(eachRuntime, removeArgs(eachRuntime, each), { timeout: 10_000 });
    }
  });
}

/**
 * Starts a PostgreSQL container (the official `postgres` image's contract: POSTGRES_USER,
 * POSTGRES_PASSWORD, POSTGRES_DB; e.g. `pgvector/pgvector:pg17`) with port 5432 published on a
 * spare loopback port, and waits until the server answers. The server may still refuse a first
 * query for a moment ("the database system is starting up"): callers retry their first one.
 *
 * @example
 * const lookup = findLocalImage({ images: ['pgvector/pgvector:pg17'] });
 * const server = await startPostgresContainer(lookup.found!);
 * // … DATABASE_URL = server.url …
 * await server.stop();
 */
export async function startPostgresContainer({
  runtime,
  image,
  user = 'fleet',
  password = 'fleet-test',
  database = 'fleet',
  timeoutMs = 60_000,
}: StartPostgresContainerOptions): Promise<PostgresContainer> {
  const port = await getFreePort();
  const name = `fleet-test-pg-${process.pid}-${port}`;
  const began = Date.now();
  removeOnExit(runtime, name);
  await run(runtime, [
    'run',
    '--detach',
    '--rm',
    '--name',
    name,
    '--label',
    'fleet-test=1',
    '--publish',
    `127.0.0.1:${port}:5432`,
    '--env',
    `POSTGRES_USER=${user}`,
    '--env',
    `POSTGRES_PASSWORD=${password}`,
    '--env',
    `POSTGRES_DB=${database}`,
    image,
  ]);
  let stopped: Promise<void> | undefined;
  const container: PostgresContainer = {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/${database}`,
    port,
    name,
    startMs: 0,
    logs: async () => {
      const { stdout, stderr } = await run(runtime, ['logs', name], 10_000).catch(
        (error: unknown) => ({ stdout: '', stderr: String(error) }),
      );
      return `${stdout}${stderr}`;
    },
    stop() {
      stopped ??= (async () => {
        running.delete(name);
        await run(runtime, removeArgs(runtime, name), 30_000).catch(() => undefined);
      })();
      return stopped;
    },
  };
  while (!(await answersPostgres(port))) {
    if (Date.now() - began > timeoutMs) {
      const logs = await container.logs();
      await container.stop();
      throw new Error(
        `${image} (${runtime}) did not accept connections within ${timeoutMs} ms\n--- logs ---\n${logs.slice(-3000)}`,
      );
    }
    await delay(100);
  }
  container.startMs = Date.now() - began;
  return container;
}
