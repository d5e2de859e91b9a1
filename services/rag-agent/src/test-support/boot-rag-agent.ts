import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import {
  dataPart,
  type DocumentsCommand,
  type FilesCommand,
  type Part,
  type RunFileStore,
} from '@fleet/a2a';
import { bootAgent, nodeParts as kitNodeParts, type BootedAgent } from '@fleet/agent-kit/testing';
import type { ReadinessCheck } from '@fleet/http';
import type { Embedder } from '@fleet/llm';
import { createRagHandler } from '../agent';
import { createAnswerer } from '../answering';
import { a2aBodyLimit } from '../app';
import { contentRouter } from '../content-router';
import { createDocumentService } from '../documents';
import type { EmbeddingGate } from '../embeddings';
import type { DocumentReader, IngestLimits } from '../ingestion';
import { createRetriever } from '../retrieval';
import type { DocumentStore } from '../store';

/** The token test agents require. */
export const TEST_TOKEN = 'rag-agent-test-token-0123456789';

/** A RAG agent listening on a free port, with a client that carries the token. */
export type RunningRagAgent = BootedAgent;

/** Options for {@link bootRagAgent}. */
export interface BootRagAgentOptions {
  redis: Redis;
  keyPrefix: string;
  store: DocumentStore;
  /** The embedder; ignored when `embeddings` is given. */
  embedder?: Embedder;
  /**
   * Degraded mode as `main.ts` wires it: the gate's embedder, full-text search while it is
   * degraded, ingestion refused, and `/readyz`'s `embeddings` check.
   */
  embeddings?: EmbeddingGate;
  /** Online mode: the LLM for descriptions, re-ranking and answers. */
  llm?: { client: OpenAI; model: string } | undefined;
  rerank?: boolean;
  maxUploadBytes?: number;
  /** `/readyz` checks besides Redis. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** How uploads are read; `createDocumentReader` for the worker pool, as `main.ts` wires it. @default the calling thread */
  reader?: DocumentReader;
  /** Ingestion limits (RAG_MAX_*). @default the defaults */
  limits?: Partial<IngestLimits>;
  /** The run files store (`createRunFileStore`): the `files` commands and card skill. */
  runFiles?: RunFileStore;
  /** Largest run file accepted (RAG_MAX_RUN_FILE_BYTES). @default 16 MiB */
  maxRunFileBytes?: number;
}

/** Boots the RAG agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export function bootRagAgent({
  redis,
  keyPrefix,
  store,
  embedder: givenEmbedder,
  embeddings,
  llm,
  rerank = true,
  maxUploadBytes = 256 * 1024,
  readinessChecks = {},
  reader,
  limits,
  runFiles,
  maxRunFileBytes = 16 * 1024 * 1024,
}: BootRagAgentOptions): Promise<RunningRagAgent> {
  const embedder = embeddings?.embedder ?? givenEmbedder;
  if (embedder === undefined) throw new TypeError('bootRagAgent needs an embedder or embeddings.');
  const degraded = embeddings && (() => embeddings.outage()?.reason);
  const checkEmbeddings = embeddings && (() => embeddings.assertAvailable());
  const documents = createDocumentService({
    store,
    embedder,
    llm,
    maxBytes: maxUploadBytes,
    checkEmbeddings,
    reader,
    limits,
  });
  const retriever = createRetriever({ store, embedder, llm, rerank, degraded });
  return bootAgent({
    serviceName: 'rag-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    bodyLimit: a2aBodyLimit(
      runFiles === undefined ? maxUploadBytes : Math.max(maxUploadBytes, maxRunFileBytes),
    ),
    readinessChecks: {
      ...readinessChecks,
      ...(embeddings === undefined ? {} : { embeddings: embeddings.readinessCheck }),
    },
    clientTimeoutMs: 60_000,
    internalRoutes: contentRouter({ runFiles, maxRunFileBytes, documents, retriever }),
    createHandler: ({ store: taskStore, url }) =>
      createRagHandler({
        documents,
        retriever,
        answerer: createAnswerer({ llm }),
        store: taskStore,
        url,
        maxUploadBytes,
        ...(runFiles === undefined ? {} : { runFiles, maxRunFileBytes }),
      }),
  });
}

/** A file part carrying `bytes` as base64. */
export function filePart(options: {
  filename: string;
  mediaType?: string;
  bytes: Uint8Array;
}): Part {
  return {
    raw: Buffer.from(options.bytes).toString('base64'),
    filename: options.filename,
    ...(options.mediaType === undefined ? {} : { mediaType: options.mediaType }),
  };
}

/** The parts of a documents command message. */
export function documentsParts(command: DocumentsCommand, files: Part[] = []): Part[] {
  return [dataPart({ documents: command }), ...files];
}

/** The parts of a run files command message. */
export function filesParts(command: FilesCommand, files: Part[] = []): Part[] {
  return [dataPart({ files: command }), ...files];
}

/** The parts of a plan node message: the question and the fleet node input. */
export function nodeParts(options: {
  question: string;
  tenant: string;
  skill?: string;
  dependencyOutputs?: Record<string, { agent: string; summary: string; partial?: boolean }>;
}): Part[] {
  return kitNodeParts({
    text: options.question,
    nodeId: 'docs',
    tenant: options.tenant,
    ...(options.skill === undefined ? {} : { skill: options.skill }),
    ...(options.dependencyOutputs === undefined
      ? {}
      : { dependencyOutputs: options.dependencyOutputs }),
  });
}
