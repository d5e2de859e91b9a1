import { createHash } from 'node:crypto';

/**
 * The SHA-256 of a file's bytes, lower-case hex: the key for spotting a re-upload of the same file.
 *
 * @param bytes - The file exactly as uploaded.
 * @returns 64 hex characters.
 */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
