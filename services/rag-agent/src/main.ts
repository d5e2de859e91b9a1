// The RAG agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the database,
// the embedder, the LLM client, Redis, the task store and the HTTP server are built here and
// nowhere else.
import { config, telemetry } from './instrumentation';
import { resolve } from 'node:path';
import { agentModel, describeUpstream, startAgentService, type AgentModel } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger, type Logger } from '@fleet/telemetry';
import { createRagHandler } from './agent';
import { a2aBodyLimit } from './app';
import { contentRouter } from './content-router';
import { createRagComponents } from './create-rag-components';
import { embeddingSettings, type EmbeddingSettings } from './config';
import { describeOutage, openEmbeddings, type EmbeddingGate } from './embeddings';
import { createDocumentReader } from './ingestion';
import {
  createDocumentStore,
  createRunFileStore,
  databaseReadinessCheck,
  migrate,
  openDatabase,
  readStoredEmbedding,
  startRunFileSweep,
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

/**
 * Opens the database, decides how to embed (checking the upstream's model once: degraded mode,
 * docs/rag.md#degraded-mode) and migrates; exits with the reason when it cannot start.
 */
async function openStore(
  model: AgentModel,
  logger: Logger,
): Promise<{ database: Database; embedding: EmbeddingSettings; embeddings: EmbeddingGate }> {
  try {
    const database = await openDatabase({
      ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
      dataDir: resolve(config.dataDir),
      logger,
    });
    try {
      const stored = await readStoredEmbedding(database.pool);
      const embedding = embeddingSettings({ config, offline: model.upstream.offline, stored });
      const embeddings = await openEmbeddings({ embedding, client: model.client, stored, logger });
      const { replaced } = await migrate(database.pool, {
        embeddingModel: embeddings.model,
        dimensions: embeddings.dimensions,
      });
      if (replaced !== undefined) {
        logger.info(
          {
            previous: replaced,
            embeddingModel: embeddings.model,
            dimensions: embeddings.dimensions,
          },
          `The RAG store held no documents, so it now takes ${embeddings.model} embeddings of ${embeddings.dimensions} dimensions (it was built for ${replaced.model}, ${replaced.dimensions}).`,
        );
      }
      return { database, embedding, embeddings };
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    exitOnStartupError(error);
  }
}

/** The start-up warnings about embeddings: degraded mode, or a kept store model. */
function warnAboutEmbeddings(
  { embedding, embeddings }: { embedding: EmbeddingSettings; embeddings: EmbeddingGate },
  logger: Logger,
): void {
  const outage = embeddings.outage();
  if (outage !== undefined) {
    logger.warn(
      { embeddingModel: embeddings.model, dimensions: embeddings.dimensions, degraded: true },
      `The RAG agent runs degraded, with ${describeOutage(outage)} Answers say so, and documents cannot be ingested until the embedding model is back.`,
    );
  } else if (embedding.keptStored) {
    logger.warn(
      { embeddingModel: embedding.model },
      `The RAG store was built with ${embedding.model} embeddings and EMBEDDING_MODEL is unset, so the agent keeps them. To use the upstream's embeddings, set EMBEDDING_MODEL and re-index into a fresh store (another RAG_DATA_DIR or DATABASE_URL), then ingest the documents again.`,
    );
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'rag-agent', level: config.logLevel });
  const model = agentModel(config);
  const { database, embedding, embeddings } = await openStore(model, logger);
  warnAboutEmbeddings({ embedding, embeddings }, logger);
  const { embedder } = embeddings;
  const store = createDocumentStore({ pool: database.pool });
  const { llm } = model;
  const rerank = config.rerank ?? true;
  // Uploads are read (parsed and chunked) on worker threads, under time and memory budgets,
  // served fairly between tenants: the event loop stays free for questions and /readyz.
  const reader = createDocumentReader({
    workers: config.parseWorkers,
    timeoutMs: config.parseTimeoutMs,
    maxMemoryMb: config.parseMemoryMb,
    maxQueued: config.parseQueueLength,
    maxRunningPerTenant: config.parseTenantConcurrency,
    logger,
  });
  // The fleet's run files live beside the documents; expired ones are swept out periodically.
  const runFiles = createRunFileStore({
    pool: database.pool,
    maxFileBytes: config.maxRunFileBytes,
  });
  const sweep = startRunFileSweep({
    store: runFiles,
    intervalMs: config.fileSweepIntervalSeconds * 1000,
    logger,
  });
  const { documents, retriever, answerer } = createRagComponents({
    config,
    store,
    embeddings,
    llm,
    reader,
    logger,
  });
  await startAgentService({
    serviceName: 'rag-agent',
    config,
    logger,
    telemetry,
    createHandler: ({ store: taskStore, url }) =>
      createRagHandler({
        documents,
        retriever,
        answerer,
        store: taskStore,
        url,
        internalToken: true,
        maxUploadBytes: config.maxUploadBytes,
        runFiles,
        maxRunFileBytes: config.maxRunFileBytes,
        logger,
      }),
    // Uploads and run files travel base64-encoded inside the JSON-RPC body.
    bodyLimit: a2aBodyLimit(Math.max(config.maxUploadBytes, config.maxRunFileBytes)),
    // Reads of bytes for the fleet's services, without A2A tasks (behind the internal token).
    internalRoutes: contentRouter({
      runFiles,
      maxRunFileBytes: config.maxRunFileBytes,
      documents,
      retriever,
    }),
    readinessChecks: {
      database: databaseReadinessCheck(database.pool),
      embeddings: embeddings.readinessCheck,
    },
    onShutdown: [
      () => sweep.stop(),
      () => reader.close(),
      () => embeddings.close(),
      () => database.close(),
    ],
    describe: {
      ...describeUpstream(model, config.llmModel),
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
      degraded: embeddings.outage() !== undefined,
      database: database.embedded ? `embedded (${resolve(config.dataDir)})` : 'DATABASE_URL',
      rerank: llm !== undefined && rerank,
      parseWorkers: config.parseWorkers,
    },
  });
  if (model.upstream.offline) {
    const search =
      embeddings.outage() === undefined
        ? 'uses local hashed embeddings with full-text search and answers'
        : 'answers';
    logger.warn({}, `${OFFLINE_HINT} The RAG agent ${search} with the documents' own sentences.`);
  }
}

runMain('rag-agent', main);
