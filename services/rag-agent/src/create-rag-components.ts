import type { AgentModel } from '@fleet/agent-kit';
import type { Logger } from '@fleet/telemetry';
import { createAnswerer } from './answering';
import { ingestLimits, type RagAgentConfig } from './config';
import { createDocumentService } from './documents';
import type { EmbeddingGate } from './embeddings';
import type { DocumentReader } from './ingestion';
import { createRetriever } from './retrieval';
import type { DocumentStore } from './store';

/** What {@link createRagComponents} builds the agent's parts from. */
export interface CreateRagComponentsOptions {
  config: RagAgentConfig;
  store: DocumentStore;
  embeddings: EmbeddingGate;
  llm: AgentModel['llm'];
  /** Where uploads are read; absent: on the calling thread. */
  reader?: DocumentReader | undefined;
  logger: Logger;
}

/**
 * The RAG agent's document service, retriever and answerer from its configuration: one place, so
 * the service (`main.ts`) and the in-process agent the answer evaluation measures are the same.
 */
export function createRagComponents({
  config,
  store,
  embeddings,
  llm,
  reader,
  logger,
}: CreateRagComponentsOptions) {
  const { embedder } = embeddings;
  return {
    documents: createDocumentService({
      store,
      ...(reader === undefined ? {} : { reader }),
      embedder,
      checkEmbeddings: () => embeddings.assertAvailable(),
      llm,
      maxBytes: config.maxUploadBytes,
      limits: ingestLimits(config),
      logger,
    }),
    retriever: createRetriever({
      store,
      embedder,
      degraded: () => embeddings.outage()?.reason,
      llm,
      rerank: config.rerank ?? true,
      topK: config.topK,
      efSearch: config.efSearch,
      logger,
    }),
    answerer: createAnswerer({ llm, logger }),
  };
}
