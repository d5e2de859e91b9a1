// The RAG agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the database,
// the embedder, the LLM client, Redis, the task store and the HTTP server are built here and
// nowhere else.
import { config, telemetry } from './instrumentation';
import { resolve } from 'node:path';
import { agentModel, describeUpstream, startAgentService, type AgentModel } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import {
  createHashedEmbedder,
  createOpenAIEmbedder,
  OFFLINE_HINT,
  type Embedder,
} from '@fleet/llm';
import { createLogger, type Logger } from '@fleet/telemetry';
import { createRagHandler } from './agent';
import { createAnswerer } from './answering';
import { a2aBodyLimit } from './app';
import { embeddingSettings, ingestLimits, type EmbeddingSettings } from './config';
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

/** The embedder the settings ask for; one that needs an upstream fails the boot offline. */
function chooseEmbedder(embedding: EmbeddingSettings, model: AgentModel): Embedder {
  if (embedding.local) {
    return createHashedEmbedder(
      embedding.dimensions === undefined ? {} : { dimensions: embedding.dimensions },
    );
  }
  if (model.client) {
    return createOpenAIEmbedder({
      client: model.client,
      model: embedding.model,
      dimensions: embedding.dimensions,
    });
  }
  const source = embedding.keptStored
    ? `The RAG store holds ${embedding.model} embeddings`
    : `EMBEDDING_MODEL is ${embedding.model}`;
  throw new ConfigError(
    `${source}, but no upstream is configured to compute its embeddings. ${OFFLINE_HINT} Or use the local hashed embeddings (local-hashed-v1) with a fresh store (another RAG_DATA_DIR or DATABASE_URL).`,
  );
}

/** Opens the database, picks the embedder and migrates; exits with the reason when it cannot. */
async function openStore(
  model: AgentModel,
  logger: Logger,
): Promise<{ database: Database; embedding: EmbeddingSettings; embedder: Embedder }> {
  try {
    const database = await openDatabase({
      ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
      dataDir: resolve(config.dataDir),
      logger,
    });
    try {
      const embedding = embeddingSettings({
        config,
        offline: model.upstream.offline,
        stored: await readStoredEmbedding(database.pool),
      });
      const embedder = chooseEmbedder(embedding, model);
      await migrate(database.pool, {
        embeddingModel: embedder.model,
        dimensions: embedder.dimensions,
      });
      return { database, embedding, embedder };
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    exitOnStartupError(error);
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'rag-agent', level: config.logLevel });
  const model = agentModel(config);
  const { database, embedding, embedder } = await openStore(model, logger);
  if (embedding.keptStored) {
    logger.warn(
      { embeddingModel: embedding.model },
      `The RAG store was built with ${embedding.model} embeddings and EMBEDDING_MODEL is unset, so the agent keeps them. To use the upstream's embeddings, set EMBEDDING_MODEL and re-index into a fresh store (another RAG_DATA_DIR or DATABASE_URL), then ingest the documents again.`,
    );
  }
  const store = createDocumentStore({ pool: database.pool });
  const { llm } = model;
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
        logger,
      }),
    bodyLimit: a2aBodyLimit(config.maxUploadBytes),
    readinessChecks: { database: databaseReadinessCheck(database.pool) },
    onShutdown: [() => database.close()],
    describe: {
      ...describeUpstream(model, config.llmModel),
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
      database: database.embedded ? `embedded (${resolve(config.dataDir)})` : 'DATABASE_URL',
      rerank: llm !== undefined && rerank,
    },
  });
  if (model.upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The RAG agent uses local hashed embeddings with full-text search and answers with the documents' own sentences.`,
    );
  }
}

runMain('rag-agent', main);
