// The RAG agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the database,
// the embedder, the LLM client, Redis, the task store and the HTTP server are built here and
// nowhere else.
import { config, telemetry } from './instrumentation';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import {
  createHashedEmbedder,
  createLlmClient,
  createOpenAIEmbedder,
  OFFLINE_HINT,
  resolveUpstream,
  type Embedder,
} from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createRagHandler } from './agent';
import { createAnswerer } from './answering';
import { a2aBodyLimit } from './app';
import {
  embeddingSettings,
  ingestLimits,
  ragAgentPublicUrl,
  type EmbeddingSettings,
} from './config';
import { createDocumentService } from './documents';
import { createRetriever } from './retrieval';
import {
  createDocumentStore,
  databaseReadinessCheck,
  migrate,
  openDatabase,
  readStoredEmbedding,
  type Database,
} from './store';

/** Prints a configuration or start-up problem (the message says what to do) and exits 1. */
function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`rag-agent: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'rag-agent', level: config.logLevel });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const llm = client ? { client, model: config.llmModel } : undefined;

  let embedding: EmbeddingSettings;
  let embedder: Embedder;
  let database: Database;
  try {
    database = await openDatabase({
      ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
      dataDir: resolve(config.dataDir),
      logger,
    });
    try {
      embedding = embeddingSettings({
        config,
        offline: upstream.offline,
        stored: await readStoredEmbedding(database.pool),
      });
      if (embedding.local) {
        embedder = createHashedEmbedder(
          embedding.dimensions === undefined ? {} : { dimensions: embedding.dimensions },
        );
      } else if (client) {
        embedder = createOpenAIEmbedder({
          client,
          model: embedding.model,
          dimensions: embedding.dimensions,
        });
      } else {
        const source = embedding.keptStored
          ? `The RAG store holds ${embedding.model} embeddings`
          : `EMBEDDING_MODEL is ${embedding.model}`;
        throw new ConfigError(
          `${source}, but no upstream is configured to compute its embeddings. ${OFFLINE_HINT} Or use the local hashed embeddings (local-hashed-v1) with a fresh store (another RAG_DATA_DIR or DATABASE_URL).`,
        );
      }
      await migrate(database.pool, {
        embeddingModel: embedder.model,
        dimensions: embedder.dimensions,
      });
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    exitOnStartupError(error);
  }
  if (embedding.keptStored) {
    logger.warn(
      { embeddingModel: embedding.model },
      `The RAG store was built with ${embedding.model} embeddings and EMBEDDING_MODEL is unset, so the agent keeps them. To use the upstream's embeddings, set EMBEDDING_MODEL and re-index into a fresh store (another RAG_DATA_DIR or DATABASE_URL), then ingest the documents again.`,
    );
  }
  const store = createDocumentStore({ pool: database.pool });

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:rag-agent' });

  const rerank = config.rerank ?? true;
  const documents = createDocumentService({
    store,
    embedder,
    llm,
    maxBytes: config.maxUploadBytes,
    limits: ingestLimits(config),
    logger,
  });
  const retriever = createRetriever({
    store,
    embedder,
    llm,
    rerank,
    topK: config.topK,
    efSearch: config.efSearch,
    logger,
  });
  const answerer = createAnswerer({ llm, logger });
  const url = ragAgentPublicUrl(config);
  const handler = createRagHandler({
    documents,
    retriever,
    answerer,
    store: taskStore,
    url,
    internalToken: true,
    maxUploadBytes: config.maxUploadBytes,
    logger,
  });

  const running = await serveAgent({
    serviceName: 'rag-agent',
    handler,
    taskStore,
    redis,
    internalToken: config.internalToken,
    logger,
    bodyLimit: a2aBodyLimit(config.maxUploadBytes),
    readinessChecks: { database: databaseReadinessCheck(database.pool) },
    port: config.port,
    host: config.host,
    production: config.nodeEnv === 'production',
    onShutdown: [() => database.close(), () => telemetry.shutdown()],
  });
  logger.info(
    {
      url: running.url,
      card: url,
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      model: upstream.offline ? undefined : config.llmModel,
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
      database: database.embedded ? `embedded (${resolve(config.dataDir)})` : 'DATABASE_URL',
      rerank: llm !== undefined && rerank,
      tracing: telemetry.enabled,
    },
    'rag-agent listening',
  );
  if (upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The RAG agent uses local hashed embeddings with full-text search and answers with the documents' own sentences.`,
    );
  }
}

runMain('rag-agent', main);
