import {
  checkRunFile,
  cleanRunFileName,
  RUN_FILE_TYPES,
  type RunFile,
  type RunFileSource,
  type RunFileStore,
  type RunFileUpload,
} from '@fleet/a2a';
import { FleetError } from '@fleet/errors';
import type { KeepStepFiles, StepFilePart } from './node-outcome';

/** How many files, and how many bytes, a run keeps (ORCHESTRATOR_MAX_FILE_BYTES and the rest). */
export interface RunFileLimits {
  /** Largest file kept, in bytes. @default 8 MiB */
  maxFileBytes: number;
  /** Most files one run keeps, its steps' and its attachments together. @default 32 */
  maxRunFiles: number;
  /** Most bytes one run keeps in all. @default 32 MiB */
  maxRunBytes: number;
  /** How long a kept file lives, in seconds (its `expiresAt`). @default the session TTL */
  ttlSeconds: number;
}

/** The limits unless configured (the session TTL of the sessions package: 24 h). */
export const DEFAULT_RUN_FILE_LIMITS: RunFileLimits = {
  maxFileBytes: 8 * 1024 * 1024,
  maxRunFiles: 32,
  maxRunBytes: 32 * 1024 * 1024,
  ttlSeconds: 86_400,
};

/** The most `file-refused` events one step (or one request's attachments) sends one by one. */
export const MAX_REFUSALS_PER_STEP = 8;

/** A file the run did not keep, as the `file-refused` progress event says it. */
export interface RunFileRefusal {
  nodeId?: string | undefined;
  agent?: string | undefined;
  name: string;
  reason: string;
}

/** Options for {@link createRunFileKeeper}. */
export interface RunFileKeeperOptions {
  /** The fleet's file store; undefined: none is configured, and every file is refused. */
  store: RunFileStore | undefined;
  tenant: string;
  sessionId: string;
  limits?: RunFileLimits | undefined;
  /** What the run kept before (a resumed run): counted against the limits, listed first. */
  kept?: readonly RunFile[] | undefined;
  /** A file was kept (`file-ready`). Must not throw. */
  onReady?: ((file: RunFile) => void) | undefined;
  /** A file was not kept (`file-refused`). Must not throw. */
  onRefused?: ((refusal: RunFileRefusal) => void) | undefined;
  /** The clock, for `expiresAt`. @default Date.now */
  now?: () => number;
}

/** One run's files: what it keeps, within its limits. */
export interface RunFileKeeper {
  /** Keeps a completed step's files (the executor's `keepFiles` seam). Never rejects. */
  keepStepFiles: KeepStepFiles;
  /** Keeps the files the request brought (source `attachment`). Never rejects. */
  keepAttachments(files: readonly StepFilePart[], signal?: AbortSignal): Promise<RunFile[]>;
  /** Every file the run keeps, in the order they were kept. */
  files(): RunFile[];
}

/** A size in words: bytes, KiB or MiB. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KiB'] : [bytes / 1024 ** 2, 'MiB'];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}

const count = (value: number): string => value.toLocaleString('en-US');

/** The fallback name of an unnamed file: `file-<n>` with its type's extension. */
function fallbackName(index: number, mediaType: string | undefined): string {
  const type = (mediaType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return `file-${index}${RUN_FILE_TYPES[type]?.extensions[0] ?? ''}`;
}

/** Why the store did not keep files, in words. */
function storeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `the file store could not keep it: ${message}`;
}

/** True for the store's refusal of a file (its checks), as against the store being unreachable. */
function isRefusal(error: unknown): boolean {
  return FleetError.isInstance(error) && error.status >= 400 && error.status < 500;
}

/**
 * One run's files (docs/architecture.md §5, "Run files"): the file parts a step made, and the files the
 * request brought, each checked and kept in the fleet's file store for the tenant, within the
 * run's limits. Names are cleaned ({@link cleanRunFileName}), types checked against the bytes
 * ({@link checkRunFile}); a file larger than `maxFileBytes`, one past `maxRunFiles` or one that
 * would take the run past `maxRunBytes` is refused, as is a file part given by URL (the fleet
 * does not fetch it). Each kept file is announced (`onReady`), each refused one too (`onRefused`),
 * at most {@link MAX_REFUSALS_PER_STEP} one by one per step and the rest in one summary — ten
 * thousand tiny files are 32 kept and a handful of events, not ten thousand. A store that is down
 * refuses the files with the reason; the step is done all the same.
 *
 * @example
 * const keeper = createRunFileKeeper({ store, tenant, sessionId, onReady, onRefused });
 * await executePlan({ plan, invokeAgent, sessionId, tenant, keepFiles: keeper.keepStepFiles });
 */
export function createRunFileKeeper({
  store,
  tenant,
  sessionId,
  limits = DEFAULT_RUN_FILE_LIMITS,
  kept: before = [],
  onReady = () => undefined,
  onRefused = () => undefined,
  now = Date.now,
}: RunFileKeeperOptions): RunFileKeeper {
  const kept: RunFile[] = [...before];
  // Reserved before the store is called, so steps ending together cannot both take the last place.
  let files = before.length;
  let bytes = before.reduce((sum, file) => sum + file.size, 0);
  let unnamed = 0;

  async function keep(
    parts: readonly StepFilePart[],
    origin: FileOrigin,
    signal: AbortSignal | undefined,
  ): Promise<RunFile[]> {
    const refusals: RunFileRefusal[] = [];
    const refuse = (name: string, reason: string): void => {
      refusals.push({
        ...(origin.nodeId === undefined ? {} : { nodeId: origin.nodeId }),
        ...(origin.agent === undefined ? {} : { agent: origin.agent }),
        name,
        reason,
      });
    };
    const uploads: RunFileUpload[] = [];
    let reservedBytes = 0;
    let overCount = 0;
    for (const part of parts) {
      unnamed += part.filename === undefined || part.filename.trim() === '' ? 1 : 0;
      const name = cleanRunFileName(part.filename, fallbackName(unnamed, part.mediaType));
      if (part.raw === undefined) {
        refuse(name, 'it was given by URL; the fleet does not fetch files from URLs');
        continue;
      }
      if (store === undefined) {
        refuse(name, 'the fleet has no file store to keep it in');
        continue;
      }
      if (files >= limits.maxRunFiles) {
        overCount += 1;
        continue;
      }
      // Measured from the base64 text, before anything is decoded.
      const size = Buffer.byteLength(part.raw, 'base64');
      const overLimit = sizeRefusal(size, bytes, limits);
      if (overLimit !== undefined) {
        refuse(name, overLimit);
        continue;
      }
      const content = Buffer.from(part.raw, 'base64');
      const check = checkRunFile({ name, mediaType: part.mediaType, bytes: content });
      if (!check.ok) {
        refuse(name, check.reason);
        continue;
      }
      files += 1;
      bytes += content.byteLength;
      reservedBytes += content.byteLength;
      uploads.push({ name, mediaType: check.mediaType, bytes: content });
    }
    const stored =
      uploads.length === 0
        ? []
        : await putRunFiles(uploads, {
            store: store as RunFileStore,
            tenant,
            sessionId,
            now,
            ttlSeconds: limits.ttlSeconds,
            origin,
            signal,
            refuse,
          });
    // What the store did not keep frees its place.
    files -= uploads.length - stored.length;
    bytes -= reservedBytes - stored.reduce((sum, file) => sum + file.size, 0);
    kept.push(...stored);
    for (const file of stored) onReady(file);
    announceRefusals({ refusals, overCount, origin, onRefused, maxRunFiles: limits.maxRunFiles });
    return stored;
  }

  return {
    keepStepFiles: ({ node, files: parts, signal }) =>
      keep(parts, { source: 'step', nodeId: node.id, agent: node.agent }, signal),
    keepAttachments: (parts, signal) => keep(parts, { source: 'attachment' }, signal),
    files: () => [...kept],
  };
}

/** Where files come from: a step's result (its node and agent) or the request's attachments. */
interface FileOrigin {
  source: RunFileSource;
  nodeId?: string | undefined;
  agent?: string | undefined;
}

/**
 * Why a file of `size` bytes is not kept when the run already keeps `bytes`: over the size a
 * file may have, or past what a run may keep. Undefined when it fits.
 */
function sizeRefusal(size: number, bytes: number, limits: RunFileLimits): string | undefined {
  if (size > limits.maxFileBytes) {
    return `it is ${sizeText(size)}, over the ${sizeText(limits.maxFileBytes)} a file may have`;
  }
  if (bytes + size > limits.maxRunBytes) {
    return `it would take the run's files past the ${sizeText(limits.maxRunBytes)} a run may keep`;
  }
  return undefined;
}

/** Stores the files in one put; when the store refuses one, each is tried on its own. */
async function putRunFiles(
  uploads: RunFileUpload[],
  {
    store,
    tenant,
    sessionId,
    now,
    ttlSeconds,
    origin,
    signal,
    refuse,
  }: {
    store: RunFileStore;
    tenant: string;
    sessionId: string;
    now: () => number;
    ttlSeconds: number;
    origin: FileOrigin;
    signal: AbortSignal | undefined;
    refuse: (name: string, reason: string) => void;
  },
): Promise<RunFile[]> {
  const putFiles = (batch: readonly RunFileUpload[]): Promise<RunFile[]> =>
    store.put({
      tenant,
      files: batch,
      sessionId,
      ...(origin.nodeId === undefined ? {} : { nodeId: origin.nodeId }),
      ...(origin.agent === undefined ? {} : { agent: origin.agent }),
      source: origin.source,
      expiresAt: new Date(now() + ttlSeconds * 1000).toISOString(),
      signal,
    });
  try {
    return await putFiles(uploads);
  } catch (error) {
    if (!isRefusal(error) || uploads.length === 1) {
      for (const upload of uploads) refuse(upload.name, storeFailure(error));
      return [];
    }
  }
  const stored: RunFile[] = [];
  for (const upload of uploads) {
    try {
      stored.push(...(await putFiles([upload])));
    } catch (error) {
      refuse(upload.name, storeFailure(error));
    }
  }
  return stored;
}

/**
 * Announces a step's refused files: at most `MAX_REFUSALS_PER_STEP` one by one, the files past
 * the run's count in one line, and the rest in one summary.
 */
function announceRefusals({
  refusals,
  overCount,
  origin,
  onRefused,
  maxRunFiles,
}: {
  refusals: readonly RunFileRefusal[];
  overCount: number;
  origin: { nodeId?: string | undefined; agent?: string | undefined };
  onRefused: (refusal: RunFileRefusal) => void;
  maxRunFiles: number;
}): void {
  const shown = refusals.slice(0, MAX_REFUSALS_PER_STEP);
  for (const refusal of shown) onRefused(refusal);
  const rest = refusals.length - shown.length;
  const where = {
    ...(origin.nodeId === undefined ? {} : { nodeId: origin.nodeId }),
    ...(origin.agent === undefined ? {} : { agent: origin.agent }),
  };
  if (overCount > 0) {
    onRefused({
      ...where,
      name: `${count(overCount)} more file${overCount === 1 ? '' : 's'}`,
      reason: `a run keeps at most ${count(maxRunFiles)} files`,
    });
  }
  if (rest > 0) {
    onRefused({
      ...where,
      name: `${count(rest)} more file${rest === 1 ? '' : 's'}`,
      reason: `not kept either (first: ${refusals[shown.length]?.name ?? ''}: ${refusals[shown.length]?.reason ?? ''})`,
    });
  }
}
