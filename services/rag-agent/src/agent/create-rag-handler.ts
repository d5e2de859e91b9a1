import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { RunFileStore } from '@fleet/a2a';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { Answerer } from '../answering';
import type { DocumentService } from '../documents';
import type { Retriever } from '../retrieval';
import { buildRagCard } from './rag-card';
import { createRagAgent } from './rag-agent';

/** Options for {@link createRagHandler}. */
export interface CreateRagHandlerOptions {
  documents: DocumentService;
  retriever: Retriever;
  answerer: Answerer;
  /** Where tasks live: Redis in the service, so any replica answers GetTask (docs/architecture.md §4). */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  /** Largest file accepted, in bytes. @default 26214400 (25 MiB) */
  maxUploadBytes?: number;
  /** The fleet's run files (the `files` commands and card skill); absent: neither. */
  runFiles?: RunFileStore | undefined;
  /** Largest run file accepted, in bytes. @default 16777216 (16 MiB) */
  maxRunFileBytes?: number;
  logger?: A2ALogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * The RAG agent's A2A JSON-RPC handler: its card, its agent and its task store. Mount it with
 * `a2aRouter`; close it on shutdown so running turns stop.
 *
 * @example
 * const handler = createRagHandler({ documents, retriever, answerer, store: new RedisTaskStore({ redis }), url });
 */
export function createRagHandler({
  documents,
  retriever,
  answerer,
  store,
  url,
  internalToken = true,
  maxUploadBytes,
  runFiles,
  maxRunFileBytes,
  logger,
  tracer,
}: CreateRagHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildRagCard({ url, internalToken, runFiles: runFiles !== undefined }),
    execute: reportUsage(
      createRagAgent({
        documents,
        retriever,
        answerer,
        ...(maxUploadBytes === undefined ? {} : { maxUploadBytes }),
        ...(runFiles === undefined ? {} : { runFiles }),
        ...(maxRunFileBytes === undefined ? {} : { maxRunFileBytes }),
      }),
    ),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
}
