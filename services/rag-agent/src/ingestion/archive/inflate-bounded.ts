import { createInflate, createInflateRaw } from 'node:zlib';

/** What {@link inflateBounded} does with the inflated bytes. */
export type InflateOutput = 'keep' | 'count';

/** The result of {@link inflateBounded}. */
export interface InflateResult {
  /** The inflated bytes (empty when only counting). */
  bytes: Buffer;
  /** How many bytes the data inflated to (at most `maxBytes`). */
  size: number;
  /** True when inflating stopped because the output passed `maxBytes`. */
  exceeded: boolean;
  /** The zlib error that ended the data early, if one did (damaged or encrypted data). */
  error?: Error;
}

/** Output chunk size: the most one step inflates past the bound. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Inflates deflated data in a stream and stops as soon as the output passes `maxBytes`: a zip
 * bomb costs at most `maxBytes` plus one chunk of memory and the time to inflate that much, not
 * what it would inflate to. With `output: 'count'` nothing is kept, only measured.
 *
 * @param data - Raw deflate data (a ZIP entry), or zlib data with `zlib: true` (PDF FlateDecode).
 */
export function inflateBounded(
  data: Uint8Array,
  {
    maxBytes,
    zlib = false,
    output = 'keep',
  }: { maxBytes: number; zlib?: boolean; output?: InflateOutput },
): Promise<InflateResult> {
  return new Promise((resolve) => {
    const inflater = zlib
      ? createInflate({ chunkSize: CHUNK_BYTES })
      : createInflateRaw({ chunkSize: CHUNK_BYTES });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: Omit<InflateResult, 'bytes' | 'size'>): void => {
      if (settled) return;
      settled = true;
      resolve({
        bytes:
          output === 'keep' ? Buffer.concat(chunks, Math.min(size, maxBytes)) : Buffer.alloc(0),
        size: Math.min(size, maxBytes),
        ...result,
      });
    };
    inflater.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        inflater.destroy();
        finish({ exceeded: true });
        return;
      }
      if (output === 'keep') chunks.push(chunk);
    });
    inflater.on('end', () => finish({ exceeded: false }));
    inflater.on('error', (error: Error) => finish({ exceeded: false, error }));
    inflater.end(data);
  });
}
