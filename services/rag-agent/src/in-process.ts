/**
 * The RAG agent in-process, for evaluations (`pnpm eval answers`): the same store, embedder,
 * retriever, answerer and A2A app `main.ts` builds from the same configuration, listening on
 * loopback, with an in-memory task store instead of Redis.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { InMemoryTaskStore } from '@fleet/a2a/server';
import { agentModel } from '@fleet/agent-kit';
import type { Environment } from '@fleet/config';
import { createLogger, type Logger } from '@fleet/telemetry';
import { createRagHandler } from './agent';
import { a2aBodyLimit, createApp } from './app';
import { contentRouter } from './content-router';
import { createRagComponents } from './create-rag-components';
import { embeddingSettings, loadRagAgentConfig } from './config';
import { openEmbeddings } from './embeddings';
import {
  createDocumentStore,
  createRunFileStore,
  migrate,
  openDatabase,
  readStoredEmbedding,
} from './store';

/** Options for {@link startRagAgentInProcess}. */
export interface StartRagAgentInProcessOptions {
  /**
   * The RAG agent's environment (docs/configuration.md): `OPENAI_BASE_URL`/`OPENAI_API_KEY`,
   * `LLM_MODEL`, `EMBEDDING_MODEL`, … `{}` runs it offline. `DATABASE_URL` and
   * `FLEET_INTERNAL_TOKEN` are ignored: the store is always the embedded database in `dataDir`, the
   * token a fresh random one.
   */
  environment: Environment;
  /** Where the embedded database keeps its files (a fresh directory gives a fresh store). */
  dataDir: string;
  /** @default a logger that writes only errors, to stderr */
  logger?: Logger;
}

/** A RAG agent running in this process. */
export interface InProcessRagAgent {
  /** Its base URL (`/a2a` is the JSON-RPC endpoint). */
  url: string;
  /** The internal token `/a2a` requires. */
  token: string;
  /** The upstream's base URL and model, or `undefined` offline. */
  upstream: { baseURL: string; model: string } | undefined;
  /** The embedding model in use. */
  embeddingModel: string;
  /** Stops the server, the turns and the database. */
  close(): Promise<void>;
}

/**
 * Starts the RAG agent in this process as `main.ts` composes it, from `environment`, on
 * 127.0.0.1 and a free port. Uploads are read on the calling thread (no worker pool).
 *
 * @example
 * const agent = await startRagAgentInProcess({ environment: {}, dataDir: await mkdtemp(…) });
 * const client = new A2AClient({ url: `${agent.url}/a2a`, token: agent.token });
 */
export async function startRagAgentInProcess({
  environment,
  dataDir,
  logger = createLogger({ service: 'rag-agent', level: 'error' }),
}: StartRagAgentInProcessOptions): Promise<InProcessRagAgent> {
  const token = randomBytes(24).toString('hex');
  const config = loadRagAgentConfig({
    ...environment,
    DATABASE_URL: undefined,
    FLEET_INTERNAL_TOKEN: token,
  });
  const model = agentModel(config);
  const database = await openDatabase({ dataDir: resolve(dataDir), logger });
  const closers: (() => Promise<void>)[] = [() => database.close()];
  const closeAll = async () => {
    for (const close of [...closers].reverse()) await close().catch(() => undefined);
  };
  try {
    const stored = await readStoredEmbedding(database.pool);
    const embedding = embeddingSettings({ config, offline: model.upstream.offline, stored });
    const embeddings = await openEmbeddings({ embedding, client: model.client, stored, logger });
    closers.push(() => Promise.resolve(embeddings.close()));
    await migrate(database.pool, {
      embeddingModel: embeddings.model,
      dimensions: embeddings.dimensions,
    });
    const store = createDocumentStore({ pool: database.pool });
    const { llm } = model;
    const taskStore = new InMemoryTaskStore();
    const server = http.createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closers.push(() => new Promise<void>((done) => server.close(() => done())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const components = createRagComponents({ config, store, embeddings, llm, logger });
    const runFiles = createRunFileStore({
      pool: database.pool,
      maxFileBytes: config.maxRunFileBytes,
    });
    const handler = createRagHandler({
      ...components,
      store: taskStore,
      url,
      maxUploadBytes: config.maxUploadBytes,
      runFiles,
      maxRunFileBytes: config.maxRunFileBytes,
      logger,
    });
    closers.push(() => handler.close());
    server.on(
      'request',
      createApp({
        handler,
        internalToken: token,
        logger,
        bodyLimit: a2aBodyLimit(Math.max(config.maxUploadBytes, config.maxRunFileBytes)),
        internalRoutes: contentRouter({
          runFiles,
          maxRunFileBytes: config.maxRunFileBytes,
          documents: components.documents,
          retriever: components.retriever,
        }),
        metrics: false,
      }),
    );
    return {
      url,
      token,
      upstream: model.upstream.offline
        ? undefined
        : { baseURL: model.upstream.baseURL, model: config.llmModel },
      embeddingModel: embeddings.model,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
