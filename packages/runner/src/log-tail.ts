import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';

const CHUNK_BYTES = 64 * 1024;

/** Options for {@link readLastLines}. */
export interface ReadLastLinesOptions {
  file: string;
  /** How many lines, at most. */
  count: number;
  /** Ignore everything before this byte offset (e.g. an earlier run's output). @default 0 */
  from?: number;
  /** Ignore everything from this byte offset on. @default the file's size */
  until?: number;
}

/**
 * The last `count` complete lines of a file (a final line without a newline counts), read
 * backwards in chunks so a large log costs only its tail. A missing file has no lines.
 */
export async function readLastLines({
  file,
  count,
  from = 0,
  until,
}: ReadLastLinesOptions): Promise<string[]> {
  if (count <= 0) return [];
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const fileSize = (await handle.stat()).size;
    const size = until === undefined ? fileSize : Math.min(Math.max(until, 0), fileSize);
    const floor = Math.min(Math.max(from, 0), size);
    let position = size;
    const chunks: Buffer[] = [];
    let newlines = 0;
    while (position > floor) {
      const length = Math.min(CHUNK_BYTES, position - floor);
      position -= length;
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, position);
      chunks.unshift(buffer);
      for (const byte of buffer) if (byte === 0x0a) newlines += 1;
      // count + 1 newlines guarantee `count` whole lines even when the text ends with one.
      if (newlines > count) break;
    }
    // Decoded once, so a character split across chunks stays whole.
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    // The first line may be cut in half when reading stopped early.
    if (position > floor && lines.length > count) lines.shift();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}

/** Options for {@link followFile}. */
export interface FollowFileOptions {
  file: string;
  /** Byte offset to start from, usually the size when following began. */
  from: number;
  /** Receives each complete line as it is written. */
  onLine: (line: string) => void;
  /** Stops following. */
  signal: AbortSignal;
  /** @default 200 */
  intervalMs?: number;
}

/**
 * Like `tail -f`: reads what is appended to `file` until `signal` aborts. A file that is
 * truncated or replaced is read again from its start; a missing file is waited for.
 */
export async function followFile({
  file,
  from,
  onLine,
  signal,
  intervalMs = 200,
}: FollowFileOptions): Promise<void> {
  let offset = from;
  let partial = '';
  let decoder = new StringDecoder('utf8');
  while (!signal.aborted) {
    let size: number | undefined;
    try {
      size = (await stat(file)).size;
    } catch {
      size = undefined;
    }
    if (size !== undefined && size < offset) {
      offset = 0;
      partial = '';
      decoder = new StringDecoder('utf8');
    }
    if (size !== undefined && size > offset) {
      const handle = await open(file, 'r');
      try {
        const buffer = Buffer.alloc(size - offset);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        offset += bytesRead;
        const lines = (partial + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      } finally {
        await handle.close();
      }
    }
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      break;
    }
  }
  if (partial !== '') onLine(partial);
}
