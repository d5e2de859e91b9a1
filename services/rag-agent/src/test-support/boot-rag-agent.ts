import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import { dataPart, textPart, type DocumentsCommand, type Part } from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import type { Embedder } from '@fleet/llm';
import { createRagHandler } from '../agent';
import { createAnswerer } from '../answering';
import { a2aBodyLimit, createApp } from '../app';
import { createDocumentService } from '../documents';
import { createRetriever } from '../retrieval';
import type { DocumentStore } from '../store';

/** The token test agents require. */
export const TEST_TOKEN = 'rag-agent-test-token-0123456789';

/** A RAG agent listening on a free port, with a client that carries the token. */
export interface RunningRagAgent {
  server: RunningServer;
  handler: A2AHandler;
  taskStore: RedisTaskStore;
  client: A2AClient;
  close(): Promise<void>;
}

/** Options for {@link bootRagAgent}. */
export interface BootRagAgentOptions {
  redis: Redis;
  keyPrefix: string;
  store: DocumentStore;
  embedder: Embedder;
  /** Online mode: the LLM for descriptions, re-ranking and answers. */
  llm?: { client: OpenAI; model: string } | undefined;
  rerank?: boolean;
  maxUploadBytes?: number;
  /** `/readyz` checks. */
  readinessChecks?: Record<string, () => Promise<void>>;
}

/** Boots the RAG agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export async function bootRagAgent({
  redis,
  keyPrefix,
  store,
  embedder,
  llm,
  rerank = true,
  maxUploadBytes = 256 * 1024,
  readinessChecks = {},
}: BootRagAgentOptions): Promise<RunningRagAgent> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  // The card must name the real address, which is known once the server listens.
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const handler = createRagHandler({
    documents: createDocumentService({ store, embedder, llm, maxBytes: maxUploadBytes }),
    retriever: createRetriever({ store, embedder, llm, rerank }),
    answerer: createAnswerer({ llm }),
    store: taskStore,
    url: server.url,
    maxUploadBytes,
  });
  target.app = createApp({
    handler,
    internalToken: TEST_TOKEN,
    logger: silentLogger,
    bodyLimit: a2aBodyLimit(maxUploadBytes),
    readinessChecks,
    isShuttingDown: () => server.isShuttingDown(),
    metrics: false,
  });
  const card = await discoverAgentCard(server.url);
  return {
    server,
    handler,
    taskStore,
    client: new A2AClient({ card, token: TEST_TOKEN, timeoutMs: 60_000 }),
    async close() {
      await handler.close();
      await server.shutdown();
      await taskStore.close();
    },
  };
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

/** The parts of a plan node message: the question and the fleet node input. */
export function nodeParts(options: {
  question: string;
  tenant: string;
  skill?: string;
  dependencyOutputs?: Record<string, { agent: string; summary: string; partial?: boolean }>;
}): Part[] {
  return [
    textPart(options.question),
    dataPart({
      fleet: {
        sessionId: 'session-1',
        nodeId: 'docs',
        tenant: options.tenant,
        ...(options.skill === undefined ? {} : { skill: options.skill }),
        dependencyOutputs: options.dependencyOutputs ?? {},
      },
    }),
  ];
}
