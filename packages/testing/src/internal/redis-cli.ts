import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { delay } from './delay';

/** `host:port` of a node the test harnesses started (always on the loopback). */
export type RedisAddress = string;

/** `127.0.0.1:<port>` */
export function loopbackAddress(port: number): RedisAddress {
  return `127.0.0.1:${port}`;
}

/** The port of a `host:port` address. */
export function portOf(address: RedisAddress): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}

/**
 * One command through `redis-cli` (installed with redis-server), its reply as text; rejects when
 * the server cannot be reached or answers an error. `--cluster` commands go through here too.
 */
export function redisCli(
  binary: string,
  args: readonly string[],
  { timeoutMs = 10_000 }: { timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, [...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      const text = stdout.trim();
      if (error) {
        reject(new Error(`${binary} ${args.join(' ')}: ${error.message}\n${stderr}${stdout}`));
      } else if (/^(ERR|WRONGTYPE|CLUSTERDOWN|MOVED|ASK|LOADING|MASTERDOWN)\b/.test(text)) {
        reject(new Error(`${binary} ${args.join(' ')}: ${text}`));
      } else {
        resolve(text);
      }
    });
  });
}

/** One command to the server at `address`. */
export function redisCommand(
  binary: string,
  address: RedisAddress,
  args: readonly string[],
): Promise<string> {
  return redisCli(binary, ['-h', '127.0.0.1', '-p', String(portOf(address)), ...args], {
    timeoutMs: 5000,
  });
}

/**
 * Polls `probe` until it returns a value other than `undefined` (errors count as "not yet"), and
 * resolves with it; rejects after `timeoutMs` naming `what` and the last error.
 */
export async function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await delay(intervalMs);
  }
}

// Directories still present when the test process exits are removed with it (the processes in
// them are killed by startProcess's own exit hook), so a crashed run leaves no data behind.
const tempDirs = new Set<string>();
let exitHookInstalled = false;

/** A temporary directory that is removed on `removeTempDir` or, at the latest, on exit. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const each of tempDirs) rmSync(each, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Removes a directory made by {@link makeTempDir}. */
export function removeTempDir(dir: string): void {
  tempDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}
