import type OpenAI from 'openai';
import { ConfigError } from '@fleet/errors';
import { createHashedEmbedder, createOpenAIEmbedder, OFFLINE_HINT } from '@fleet/llm';
import type { EmbeddingSettings } from '../config';
import {
  createEmbeddingGate,
  type EmbeddingGate,
  type EmbeddingGateLogger,
  type EmbeddingOutage,
} from './embedding-gate';
import { probeEmbeddingModel, type ProbeOutcome } from './probe-embedding-model';

/** What a store was built with (`readStoredEmbedding`). */
interface StoredEmbedding {
  model: string;
  dimensions: number;
}

/** Options for {@link openEmbeddings}. */
export interface OpenEmbeddingsOptions {
  /** The settings in effect (`embeddingSettings`). */
  embedding: EmbeddingSettings;
  /** The upstream's client; absent offline. */
  client: OpenAI | undefined;
  /** What the store was built with; absent for a new store. */
  stored: StoredEmbedding | undefined;
  logger?: EmbeddingGateLogger | undefined;
  /** Pause between re-checks of a failing upstream model. @default 60000 */
  recheckIntervalMs?: number;
  /** How long the start-up check may take. @default 10000 */
  probeTimeoutMs?: number;
}

/** The outage a failed probe means, in words that say what to do. */
export function probeOutage({
  outcome,
  model,
  expected,
  stored,
  recheckSeconds,
}: {
  outcome: Exclude<ProbeOutcome, { ok: true }>;
  model: string;
  expected: number;
  stored: StoredEmbedding | undefined;
  recheckSeconds: number;
}): EmbeddingOutage {
  const again = `The agent checks the model again every ${recheckSeconds} s.`;
  if (outcome.kind === 'failed') {
    return {
      reason: `the embedding model ${model} did not answer (${outcome.message})`,
      remedy: `${again} Check OPENAI_BASE_URL, OPENAI_API_KEY and EMBEDDING_MODEL if it does not come back.`,
    };
  }
  const { returned } = outcome;
  const reason =
    stored === undefined
      ? `the embedding model ${model} returned ${returned}-dimensional vectors, but the RAG store expects ${expected} (EMBEDDING_DIMENSIONS, or the model's known size)`
      : `the embedding model ${model} returned ${returned}-dimensional vectors, but the RAG store holds ${stored.model} embeddings of ${expected} dimensions`;
  const remedy =
    stored === undefined
      ? `Set EMBEDDING_DIMENSIONS=${returned} (or an EMBEDDING_MODEL whose vectors have ${expected} dimensions) and start again; a store without documents takes the new size.`
      : `Point EMBEDDING_MODEL and OPENAI_BASE_URL back at the model the store was built with, or re-index: set EMBEDDING_DIMENSIONS=${returned}, point RAG_DATA_DIR (or DATABASE_URL) at a fresh store and ingest the documents again (a store without documents takes the new size). ${again}`;
  return { reason, remedy };
}

/** The outage of an offline start on a store of upstream embeddings. */
function offlineOutage(stored: StoredEmbedding): EmbeddingOutage {
  return {
    reason: `the RAG store holds ${stored.model} embeddings (${stored.dimensions} dimensions), and no upstream is configured to compute them`,
    remedy:
      'Start the fleet again with the upstream that computed them (OPENAI_API_KEY or OPENAI_BASE_URL), or point RAG_DATA_DIR at a fresh store (or remove it) to ingest the documents again with the local embeddings.',
  };
}

/**
 * Decides at start how the RAG agent embeds (docs/rag.md#degraded-mode): the local hashed
 * embedder; the upstream's model, checked with one embedding call (a failure or vectors of
 * another size start the agent degraded, re-checking every `recheckIntervalMs`); or, offline on a
 * store of upstream embeddings, degraded until a start with the upstream.
 *
 * @throws ConfigError offline when EMBEDDING_MODEL names an upstream model for a new or different
 *   store (nothing to keep serving), or when the size of an upstream model's vectors is unknown.
 * @example
 * const gate = await openEmbeddings({ embedding, client: model.client, stored, logger });
 */
export async function openEmbeddings({
  embedding,
  client,
  stored,
  logger,
  recheckIntervalMs = 60_000,
  probeTimeoutMs = 10_000,
}: OpenEmbeddingsOptions): Promise<EmbeddingGate> {
  const { model } = embedding;
  if (embedding.local) {
    const embedder = createHashedEmbedder(
      embedding.dimensions === undefined ? {} : { dimensions: embedding.dimensions },
    );
    return createEmbeddingGate({ model, dimensions: embedder.dimensions, embedder, logger });
  }
  if (client === undefined) {
    if (stored === undefined || stored.model !== model) {
      throw new ConfigError(
        `EMBEDDING_MODEL is ${model}, but no upstream is configured to compute its embeddings. ${OFFLINE_HINT} Or use the local hashed embeddings (local-hashed-v1) with a fresh store (another RAG_DATA_DIR or DATABASE_URL).`,
      );
    }
    const dimensions = embedding.dimensions ?? stored.dimensions;
    return createEmbeddingGate({
      model,
      dimensions,
      embedder: undefined,
      outage: offlineOutage({ model, dimensions }),
      logger,
    });
  }
  const embedder = createOpenAIEmbedder({ client, model, dimensions: embedding.dimensions });
  const check = async (): Promise<EmbeddingOutage | undefined> => {
    const outcome = await probeEmbeddingModel({
      client,
      model,
      requestedDimensions: embedding.dimensions,
      expectedDimensions: embedder.dimensions,
      timeoutMs: probeTimeoutMs,
    });
    if (outcome.ok) return undefined;
    return probeOutage({
      outcome,
      model,
      expected: embedder.dimensions,
      stored,
      recheckSeconds: Math.round(recheckIntervalMs / 1000),
    });
  };
  return createEmbeddingGate({
    model,
    dimensions: embedder.dimensions,
    embedder,
    outage: await check(),
    recheck: check,
    recheckIntervalMs,
    logger,
  });
}
