import { createHash } from 'node:crypto';
import {
  checkRunFile,
  cleanRunFileName,
  newRunFileId,
  type RunFile,
  type RunFileStore,
} from '@fleet/a2a';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@fleet/errors';

/** `work`'s value, or its throw as a rejection. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Options for {@link createMemoryRunFileStore}. */
export interface MemoryRunFileStoreOptions {
  /** Largest file kept, in bytes. @default 16777216 (16 MiB) */
  maxFileBytes?: number;
  /** The clock, for expiry. @default Date.now */
  now?: () => number;
}

/** A {@link RunFileStore} in memory, with what it holds readable for assertions. */
export interface MemoryRunFileStore extends RunFileStore {
  /** Every kept file with its tenant and bytes, oldest first. */
  readonly stored: ReadonlyArray<{ tenant: string; file: RunFile; bytes: Buffer }>;
}

/**
 * An in-memory file store for unit tests of the services that keep and serve run files. It
 * follows the store's contract (names cleaned, types checked, tenant-scoped, expiry), not its
 * storage: the real store is the RAG agent's PostgreSQL (`createRunFilesClient`).
 */
export function createMemoryRunFileStore({
  maxFileBytes = 16 * 1024 * 1024,
  now = Date.now,
}: MemoryRunFileStoreOptions = {}): MemoryRunFileStore {
  const stored: Array<{ tenant: string; file: RunFile; bytes: Buffer }> = [];

  function find(tenant: string, id: string): { file: RunFile; bytes: Buffer } {
    const entry = stored.find(
      (candidate) => candidate.tenant === tenant && candidate.file.id === id,
    );
    if (entry === undefined || Date.parse(entry.file.expiresAt) <= now()) {
      throw new NotFoundError(`There is no file ${id}.`);
    }
    return entry;
  }

  return {
    stored,
    put({ tenant, files, sessionId, nodeId, agent, source, expiresAt }) {
      return settle(() => {
        const kept = files.map((upload, index) => {
          const name = cleanRunFileName(upload.name, `file-${index + 1}`);
          if (upload.bytes.byteLength > maxFileBytes) {
            throw new PayloadTooLargeError(`${name} is larger than ${maxFileBytes} bytes.`);
          }
          const check = checkRunFile({ name, mediaType: upload.mediaType, bytes: upload.bytes });
          if (!check.ok) throw new ValidationError(check.reason, { param: 'file' });
          const bytes = Buffer.from(upload.bytes);
          const file: RunFile = {
            id: newRunFileId(),
            name,
            mediaType: check.mediaType,
            size: bytes.byteLength,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            source,
            ...(sessionId === undefined ? {} : { sessionId }),
            ...(nodeId === undefined ? {} : { nodeId }),
            ...(agent === undefined ? {} : { agent }),
            createdAt: new Date(now()).toISOString(),
            expiresAt,
          };
          return { tenant, file, bytes };
        });
        stored.push(...kept);
        return kept.map((entry) => entry.file);
      });
    },
    get({ tenant, id }) {
      return settle(() => find(tenant, id));
    },
    info({ tenant, id }) {
      return settle(() => find(tenant, id).file);
    },
    list({ tenant, sessionId }) {
      return settle(() =>
        stored
          .filter(
            (entry) =>
              entry.tenant === tenant &&
              entry.file.sessionId === sessionId &&
              Date.parse(entry.file.expiresAt) > now(),
          )
          .map((entry) => entry.file),
      );
    },
    remove({ tenant, id }) {
      return settle(() => {
        const index = stored.findIndex((entry) => entry.tenant === tenant && entry.file.id === id);
        if (index < 0) return false;
        stored.splice(index, 1);
        return true;
      });
    },
  };
}
