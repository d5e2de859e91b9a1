import { type ChildProcess, spawn } from 'node:child_process';
import { delay } from '../internal/delay';

/** Options for {@link startProcess}. */
export interface StartProcessOptions {
  /** Names the process in error messages. */
  name: string;
  /** @default process.execPath (node) */
  command?: string;
  args: string[];
  /** Added to the parent's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Ready once a GET to this URL answers 200 (polled). */
  readyUrl?: string;
  /** Ready once a line of stdout or stderr matches. With `readyUrl`, both must happen. */
  readyLine?: RegExp;
  /** How long to wait for readiness. @default 15000 */
  timeoutMs?: number;
  /** How much output to keep for `output()`, in characters (the tail is kept). @default 1_000_000 */
  maxOutputChars?: number;
}

/** A child process started by {@link startProcess}. */
export interface RunningProcess {
  name: string;
  pid: number;
  /** stdout and stderr so far, interleaved as they arrived, for diagnostics. */
  output(): string;
  /** The `readyLine` match. */
  match?: RegExpMatchArray;
  /** Resolves with the exit code (`null` when a signal ended it) once the process exits. */
  exited: Promise<number | null>;
  /**
   * Sends `signal`, waits for the exit and resolves with the exit code (`null` when a signal ended
   * it); sends SIGKILL when it has not exited after `timeoutMs`. Resolves at once if it already
   * exited. @default signal 'SIGTERM', timeoutMs 5000
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

const TAIL_CHARS = 4000;

/** The last `TAIL_CHARS` characters of some output, for error messages. */
function tail(output: string): string {
  const text = output.length > TAIL_CHARS ? `…${output.slice(-TAIL_CHARS)}` : output;
  return text.trim() === '' ? '(no output)' : text.trimEnd();
}

// Children that are still running when the test process exits are killed with it, so a crashed
// test run leaves no services holding ports.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function killOnExit(child: ChildProcess): void {
  running.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const each of running) each.kill('SIGKILL');
  });
}

async function pollUntilOk(options: { url: string; signal: AbortSignal }): Promise<void> {
  const { url, signal } = options;
  while (!signal.aborted) {
    try {
      const response = await fetch(url, { signal });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await delay(50, signal);
  }
}

/**
 * Starts a process (a service, a CLI) and resolves once it is ready: `readyUrl` answers 200 and/or
 * a line matches `readyLine` (with neither, as soon as it spawned). Rejects, with the tail of its
 * output in the message, when it exits before it is ready or the timeout passes (the process is
 * killed then).
 *
 * @example
 * const service = await startProcess({
 *   name: 'gateway',
 *   args: ['services/gateway/dist/main.js'],
 *   env: { PORT: String(port) },
 *   readyUrl: `http://127.0.0.1:${port}/readyz`,
 * });
 * await service.stop();
 */
export function startProcess({
  name,
  command = process.execPath,
  args,
  env = {},
  cwd,
  readyUrl,
  readyLine,
  timeoutMs = 15_000,
  maxOutputChars = 1_000_000,
}: StartProcessOptions): Promise<RunningProcess> {
  // The child inherits the parent's environment (PATH, HOME, ...): passing it on is not
  // configuration, so this test helper reads process.env (CONTRIBUTING.md convention 15 is about config).
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[key];
    else childEnv[key] = value;
  }
  const child = spawn(command, args, {
    env: childEnv,
    ...(cwd === undefined ? {} : { cwd }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);

  let output = '';
  let match: RegExpMatchArray | undefined;
  let lineSeen = readyLine === undefined;
  let onLine: (() => void) | undefined;
  const partial = { stdout: '', stderr: '' };
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output += text;
    if (output.length > maxOutputChars) output = output.slice(-maxOutputChars);
    if (lineSeen || !readyLine) return;
    const lines = (partial[stream] + text).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) {
      const found = line.replace(/\r$/, '').match(readyLine);
      if (found) {
        match = found;
        lineSeen = true;
        onLine?.();
        return;
      }
    }
  };
  child.stdout.on('data', collect('stdout'));
  child.stderr.on('data', collect('stderr'));

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const streamsClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const spawnFailure = new Promise<Error>((resolve) => {
    child.once('error', (error) => {
      running.delete(child);
      resolve(error);
    });
  });

  async function stop(
    signal: NodeJS.Signals = 'SIGTERM',
    stopTimeoutMs = 5000,
  ): Promise<number | null> {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  const controller = new AbortController();
  const ready = (async () => {
    const waits: Promise<void>[] = [];
    if (!lineSeen) waits.push(new Promise<void>((resolve) => (onLine = resolve)));
    if (readyUrl) waits.push(pollUntilOk({ url: readyUrl, signal: controller.signal }));
    await Promise.all(waits);
  })();

  return new Promise<RunningProcess>((resolve, reject) => {
    const fail = (reason: string): void => {
      controller.abort();
      clearTimeout(timer);
      reject(
        new Error(
          `${name} did not become ready: ${reason}\n--- output of ${name} ---\n${tail(output)}`,
        ),
      );
    };
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      fail(`no readiness after ${timeoutMs} ms`);
    }, timeoutMs);
    void spawnFailure.then((error) => fail(`could not start ${command}: ${error.message}`));
    void exited.then(async (code) => {
      // Let the last output arrive before quoting it: 'close' follows once stdio is drained
      // (bounded, since a grandchild may hold the pipes open).
      await Promise.race([streamsClosed, delay(500)]);
      fail(`exited with ${code === null ? `signal ${child.signalCode}` : `code ${code}`}`);
    });
    void ready.then(() => {
      if (controller.signal.aborted) return;
      clearTimeout(timer);
      resolve({
        name,
        pid: child.pid ?? -1,
        output: () => output,
        ...(match ? { match } : {}),
        exited,
        stop,
      });
    });
  });
}
