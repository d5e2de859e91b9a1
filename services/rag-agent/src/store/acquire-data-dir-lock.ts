import { promises as fs, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { StartupError } from './startup-error';

/** The lock file's name inside the data directory. */
export const LOCK_FILE_NAME = 'fleet.lock';

/** A held data-directory lock. */
export interface DataDirLock {
  /** The lock file. */
  readonly file: string;
  /** Removes the lock file (if it is still this process's). Safe to call twice. */
  release(): Promise<void>;
}

const lockContentSchema = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  startedAt: z.string().optional(),
});
type LockContent = z.infer<typeof lockContentSchema>;

/** Data directories this process holds, by lock file. */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(file: string): Promise<LockContent | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = safeParseJson({ text, schema: lockContentSchema, subject: 'The lock file' });
  // Unreadable content is treated as stale: the file is only ever written whole (see below).
  return parsed.success ? parsed.value : { pid: 0, hostname: os.hostname() };
}

/**
 * Takes the embedded database's directory for this process, so a second process (or a second
 * `openDatabase` in this one) fails with a clear message instead of opening the same files: PGlite
 * itself takes no lock, and two PostgreSQL instances writing one data directory corrupt it.
 *
 * The lock is a file (`fleet.lock`: pid, hostname, start time), created atomically (written to a
 * temporary file, then hard-linked into place, which fails if it exists). A lock left by a process
 * that is gone (same host, pid not running) is taken over; a lock from another host is never taken
 * over (there is no way to check that process).
 *
 * @throws StartupError when another live process, or this one, holds the directory.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  if (heldHere.has(file)) {
    throw new StartupError(
      `The embedded database in ${dataDir} is already open in this process; close it first.`,
    );
  }
  const content: LockContent = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
  };
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify(content)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.link(temporary, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      }
      const holder = await readLock(file);
      if (holder === undefined) continue;
      const sameHost = holder.hostname === os.hostname();
      // Our own pid in a lock we do not hold: left by an earlier process that had the same pid
      // (pid 1 in a restarted container, say).
      const stale = sameHost && (holder.pid === process.pid || !isAlive(holder.pid));
      if (!stale) {
        const where = sameHost
          ? `process ${holder.pid}`
          : `process ${holder.pid} on ${holder.hostname}`;
        throw new StartupError(
          `The embedded database in ${dataDir} is in use by ${where} (another RAG agent?). ` +
            'Stop it, give this one another RAG_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server. ' +
            `If no process uses it, delete ${file}.`,
        );
      }
      await fs.rm(file, { force: true });
    }
  } finally {
    await fs.rm(temporary, { force: true });
  }
  heldHere.add(file);
  // A process that exits without closing the database still leaves no lock behind.
  const onExit = (): void => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', onExit);
  let released = false;
  return {
    file,
    async release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      heldHere.delete(file);
      const holder = await readLock(file);
      if (holder?.pid === process.pid) await fs.rm(file, { force: true });
    },
  };
}
