import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { type FleetError, safeParseJson } from '@fleet/errors';
import { McpProtocolError, McpResultTooLargeError } from '../mcp-errors';
import { WATCHDOG_SCRIPT, watchdogReportSchema } from './stdio-watchdog';

/** How much of the server's stderr is kept for error messages. */
const STDERR_TAIL_BYTES = 2048;
/** How long a server gets to exit after its stdin closes, then after SIGTERM. */
const EXIT_GRACE_MS = 1500;

export interface ProcessGroupStdioTransportOptions {
  server: string;
  command: string;
  args?: readonly string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** A line on stdout longer than this ends the connection with {@link McpResultTooLargeError}. */
  maxMessageBytes: number;
}

/**
 * The stdio transport with the guarantees the fleet needs and the SDK's does not give: the server
 * runs in its own process group, so `close()` (SIGTERM, then SIGKILL) also ends whatever it spawned
 * (`npx` runs the real server as a grandchild); the group is led by a watchdog
 * ({@link WATCHDOG_SCRIPT}) that kills it when our process dies, even by SIGKILL, so no server
 * outlives the agent; stdout lines are capped while they are read, so a flood never sits in
 * memory; a line that is not JSON-RPC ends the connection with a typed error instead of being
 * skipped (the SDK's reader drops it, and the request it answered hangs).
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  /** Why the transport ended, when the server (not `close()`) ended it. */
  failure: FleetError | undefined;

  private child: ChildProcess | undefined;
  private serverPid: number | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderrTail = '';
  private exited: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: ProcessGroupStdioTransportOptions) {}

  /** The server's process id while it runs (its group is led by the watchdog). */
  get pid(): number | undefined {
    return this.child ? this.serverPid : undefined;
  }

  /** The last bytes the server wrote to stderr, for error messages. */
  get stderr(): string {
    return this.stderrTail;
  }

  start(): Promise<void> {
    const { command, args = [], env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        if (error) {
          reject(error);
          this.onerror?.(error);
        } else resolve();
      };
      const child = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT, '--', command, ...args], {
        env: { ...getDefaultEnvironment(), ...env },
        cwd,
        // fd 3: the watchdog's line to us; it sees EOF on it when our process dies.
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        // Its own process group, so close() can signal the server and everything it started.
        detached: true,
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((resolveExit) =>
        child.once('exit', (code) => {
          // Whatever the server left running in its group goes with it.
          signalGroup(child, 'SIGKILL');
          settle(new Error(`the server exited before it started (exit code ${code ?? 'none'})`));
          resolveExit();
        }),
      );
      child.once('error', (error) => settle(error));
      child.once('close', () => {
        this.child = undefined;
        this.finish();
      });
      readReport(child.stdio[3] as Readable, (report) => {
        if ('pid' in report) {
          this.serverPid = report.pid;
          settle();
        } else settle(new Error(report.error));
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('The server is not running.'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      if (!(await settlesWithin(this.exited, EXIT_GRACE_MS))) {
        signalGroup(child, 'SIGTERM');
        if (!(await settlesWithin(this.exited, EXIT_GRACE_MS))) {
          signalGroup(child, 'SIGKILL');
          await this.exited;
        }
      }
    }
    this.finish();
  }

  private read(chunk: Buffer): void {
    // After a failure nothing more is read: the server is being stopped.
    if (this.failure) return;
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      this.pending.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
      this.pending = [];
      this.pendingBytes = 0;
      if (line.trim() !== '') this.deliver(line);
      if (this.failure) return;
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.options.maxMessageBytes) {
      // Drop what was buffered: memory stays bounded whatever the server writes.
      this.pending = [];
      this.pendingBytes = 0;
      this.fail(
        new McpResultTooLargeError(
          `The MCP server "${this.options.server}" sent a message larger than ${this.options.maxMessageBytes} bytes; the connection was closed.`,
          { details: { server: this.options.server, maxBytes: this.options.maxMessageBytes } },
        ),
      );
      return;
    }
    this.pending.push(rest);
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.fail(
        new McpProtocolError(
          `The MCP server "${this.options.server}" wrote something that is not JSON-RPC on stdout (${JSON.stringify(line.slice(0, 80))}); the connection was closed.`,
          { cause: error, details: { server: this.options.server } },
        ),
      );
      return;
    }
    this.onmessage?.(message);
  }

  private fail(error: FleetError): void {
    this.failure ??= error;
    // Stop reading: a flood ends at the pipe instead of passing through our memory.
    this.child?.stdout?.destroy();
    this.onerror?.(error);
    void this.close();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** Reads the watchdog's one report line from fd 3; what follows is drained and ignored. */
function readReport(
  control: Readable,
  onReport: (report: { pid: number } | { error: string }) => void,
): void {
  let line = '';
  let done = false;
  control.on('error', () => undefined);
  control.on('data', (chunk: Buffer) => {
    if (done) return;
    line += chunk.toString('utf8');
    const newline = line.indexOf('\n');
    if (newline === -1) {
      if (line.length > 1024) done = true;
      return;
    }
    done = true;
    const parsed = safeParseJson({ text: line.slice(0, newline), schema: watchdogReportSchema });
    onReport(parsed.success ? parsed.value : { error: 'the launcher sent an unreadable report' });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
