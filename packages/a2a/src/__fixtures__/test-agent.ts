/**
 * Test-only: a small agent driven by the first word of its message, a server helper on a real
 * loopback socket, and a record of what the agent saw (finally blocks, abort signals).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { partsText, textPart } from '../schemas/helpers';
import type { AgentContext, AgentEvent, AgentExecute } from '../server/agent';

/** What the test agent noticed, for assertions. */
export interface AgentProbe {
  /** Task ids whose generator reached `finally`. */
  finished: string[];
  /** Task ids whose signal was aborted when the generator ended. */
  aborted: string[];
  /** Task ids that started, in order. */
  started: string[];
  /** Resolves the next time a generator reaches `finally`. */
  nextFinish(): Promise<string>;
  /** Resolves once the task has started. */
  waitForStart(taskId?: string): Promise<string>;
  /** Lets the tasks waiting at `gate <name>` go on. */
  open(name: string): void;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Named gates, made on first use: `gate(name).promise` resolves once `gate(name).open()` ran. */
function createGates(): (name: string) => { promise: Promise<void>; open: () => void } {
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  return (name) => {
    let entry = gates.get(name);
    if (entry === undefined) {
      let open = (): void => undefined;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      entry = { promise, open };
      gates.set(name, entry);
    }
    return entry;
  };
}

/**
 * The agent. First word of the message:
 * - `echo <text>`: WORKING, artifact `echo: <text>`, then returns (COMPLETED);
 * - `slow`: WORKING, then waits until its signal aborts;
 * - `ask`: WORKING, then INPUT_REQUIRED "What is your name?"; the continuation answers
 *   `hello <reply>` as an artifact and completes;
 * - `fail`: WORKING, then throws `boom`;
 * - `chunks`: one artifact in three appended chunks;
 * - `gate <name>`: WORKING, waits until `probe.open(name)`, then artifact `passed <name>`.
 */
export function createTestAgent(): { execute: AgentExecute; probe: AgentProbe } {
  const finished: string[] = [];
  const aborted: string[] = [];
  const started: string[] = [];
  let finishWaiters: ((taskId: string) => void)[] = [];
  let startWaiters: ((taskId: string) => void)[] = [];
  const gate = createGates();
  const probe: AgentProbe = {
    open: (name) => gate(name).open(),
    finished,
    aborted,
    started,
    nextFinish: () => new Promise((resolve) => finishWaiters.push(resolve)),
    waitForStart: (taskId) =>
      taskId !== undefined && started.includes(taskId)
        ? Promise.resolve(taskId)
        : new Promise((resolve) => startWaiters.push(resolve)),
  };
  const execute = async function* testAgent(
    context: AgentContext,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const text = partsText(context.message.parts).trim();
    const [command = '', ...rest] = text.split(/\s+/);
    started.push(context.taskId);
    const waiters = startWaiters;
    startWaiters = [];
    for (const resolve of waiters) resolve(context.taskId);
    try {
      yield { type: 'status', state: 'TASK_STATE_WORKING', message: `working on ${command}` };
      if (context.isContinuation) {
        yield {
          type: 'artifact',
          artifact: { name: 'result', parts: [textPart(`hello ${text}`)] },
          lastChunk: true,
        };
        return;
      }
      switch (command) {
        case 'echo':
          yield {
            type: 'artifact',
            artifact: { name: 'result', parts: [textPart(`echo: ${rest.join(' ')}`)] },
            lastChunk: true,
          };
          return;
        case 'slow':
          await waitForAbort(context.signal);
          return;
        case 'ask':
          yield {
            type: 'status',
            state: 'TASK_STATE_INPUT_REQUIRED',
            message: 'What is your name?',
          };
          return;
        case 'fail':
          throw new Error('boom');
        case 'gate':
          await gate(rest[0] ?? '').promise;
          yield {
            type: 'artifact',
            artifact: { name: 'result', parts: [textPart(`passed ${rest[0] ?? ''}`)] },
          };
          return;
        case 'chunks':
          for (const [index, chunk] of ['a', 'b', 'c'].entries()) {
            yield {
              type: 'artifact',
              artifact: { artifactId: 'chunked', name: 'result', parts: [textPart(chunk)] },
              append: index > 0,
              lastChunk: index === 2,
            };
          }
          return;
        default:
          yield {
            type: 'status',
            state: 'TASK_STATE_REJECTED',
            message: `unknown command ${command}`,
          };
      }
    } finally {
      finished.push(context.taskId);
      if (context.signal.aborted) aborted.push(context.taskId);
      const waiting = finishWaiters;
      finishWaiters = [];
      for (const resolve of waiting) resolve(context.taskId);
    }
  };
  return { execute, probe };
}

/** A server on 127.0.0.1 with an ephemeral port. */
export interface RunningTestServer {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Serves an app on a loopback port. The app is built once the base URL is known (cards carry it).
 */
export async function listen(
  createApp: (baseUrl: string) => RequestListener | Promise<RequestListener>,
): Promise<RunningTestServer> {
  const current: { app?: RequestListener } = {};
  const server = createServer((req, res) => {
    if (current.app) current.app(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  current.app = await createApp(baseUrl);
  return {
    server,
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
