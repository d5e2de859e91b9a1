import type { ReadinessCheck } from '@fleet/http';
import type { EmbedOptions, Embedder } from '@fleet/llm';
import { EmbeddingsUnavailableError } from './embeddings-unavailable-error';

/** Why the agent searches without vectors, and what brings them back. */
export interface EmbeddingOutage {
  /**
   * What is wrong, in one clause: "the RAG store holds text-embedding-3-small embeddings (1536
   * dimensions), and no upstream is configured to compute them".
   */
  reason: string;
  /** What the person running the fleet can do about it, in whole sentences. */
  remedy: string;
}

/** Logging the gate needs. */
export interface EmbeddingGateLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** Options for {@link createEmbeddingGate}. */
export interface CreateEmbeddingGateOptions {
  /** The embedding model and size of the store. */
  model: string;
  dimensions: number;
  /** What computes the store's embeddings; absent when nothing can (offline, upstream model). */
  embedder: Embedder | undefined;
  /** The outage found at start; absent: vectors work. */
  outage?: EmbeddingOutage | undefined;
  /**
   * Checks the model again while degraded: resolves to the outage still in force, or undefined
   * once vectors work. Absent: the state changes only with the next start.
   */
  recheck?: (() => Promise<EmbeddingOutage | undefined>) | undefined;
  /** Pause between re-checks. @default 60000 */
  recheckIntervalMs?: number;
  logger?: EmbeddingGateLogger | undefined;
}

/** Whether the RAG agent can embed now (vector search, ingestion) or runs on full text only. */
export interface EmbeddingGate {
  readonly model: string;
  readonly dimensions: number;
  /**
   * The agent's embedder: embeds while the model works, throws
   * {@link EmbeddingsUnavailableError} while degraded.
   */
  readonly embedder: Embedder;
  /** The outage in force, or undefined while vectors work. */
  outage(): EmbeddingOutage | undefined;
  /** Throws {@link EmbeddingsUnavailableError} while degraded: call before work that must embed. */
  assertAvailable(): void;
  /** `/readyz`'s `embeddings` check: `ok`, or `degraded: full-text search only: …` (still 200). */
  readonly readinessCheck: ReadinessCheck;
  /** Stops re-checking (on shutdown). */
  close(): void;
}

/** The `/readyz` and log wording of an outage. */
export function describeOutage(outage: EmbeddingOutage): string {
  return `full-text search only: ${outage.reason}. ${outage.remedy}`;
}

/**
 * Degraded mode's switch (docs/rag.md#degraded-mode). While the store's embeddings cannot be
 * computed — no upstream for an upstream model, an upstream that fails or returns vectors of
 * another size — the agent answers from full-text search, says so, and refuses to ingest. With
 * `recheck` the model is tried again every `recheckIntervalMs` (the timer does not keep the
 * process alive) and vector search comes back by itself; without it, at the next start.
 *
 * @example
 * const gate = createEmbeddingGate({ model, dimensions, embedder, outage, recheck, logger });
 * readinessChecks: { embeddings: gate.readinessCheck }
 */
export function createEmbeddingGate({
  model,
  dimensions,
  embedder,
  outage: initial,
  recheck,
  recheckIntervalMs = 60_000,
  logger,
}: CreateEmbeddingGateOptions): EmbeddingGate {
  let outage = embedder === undefined && initial === undefined ? unknownOutage(model) : initial;
  let timer: NodeJS.Timeout | undefined;
  let checking = false;

  const unavailable = (current: EmbeddingOutage): EmbeddingsUnavailableError =>
    new EmbeddingsUnavailableError(
      `Documents cannot be ingested while the RAG agent runs with full-text search only: ${current.reason}. ${current.remedy}`,
      {
        details: { reason: 'embeddings_unavailable', embeddingModel: model, dimensions },
        retryable: recheck !== undefined,
        ...(recheck === undefined
          ? {}
          : { retryAfterSeconds: Math.ceil(recheckIntervalMs / 1000) }),
      },
    );

  async function check(): Promise<void> {
    if (checking || recheck === undefined) return;
    checking = true;
    try {
      const next = await recheck();
      if (next === undefined) {
        outage = undefined;
        clearInterval(timer);
        timer = undefined;
        logger?.info(
          { embeddingModel: model },
          'the embedding model answers again: vector search is back on',
        );
      } else if (next.reason !== outage?.reason) {
        outage = next;
        logger?.warn({ embeddingModel: model }, `still degraded: ${describeOutage(next)}`);
      }
    } catch (error) {
      logger?.warn({ err: error, embeddingModel: model }, 're-checking the embedding model failed');
    } finally {
      checking = false;
    }
  }

  if (outage !== undefined && recheck !== undefined && embedder !== undefined) {
    timer = setInterval(() => void check(), recheckIntervalMs);
    timer.unref();
  }

  const gated: Embedder = {
    model,
    dimensions,
    embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
      if (outage !== undefined || embedder === undefined) {
        return Promise.reject(unavailable(outage ?? unknownOutage(model)));
      }
      return embedder.embed(texts, options);
    },
  };

  return {
    model,
    dimensions,
    embedder: gated,
    outage: () => outage,
    assertAvailable() {
      if (outage !== undefined) throw unavailable(outage);
    },
    readinessCheck: () => (outage === undefined ? undefined : { degraded: describeOutage(outage) }),
    close() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

function unknownOutage(model: string): EmbeddingOutage {
  return {
    reason: `nothing is configured to compute ${model} embeddings`,
    remedy: 'Configure the upstream that computes them and start the RAG agent again.',
  };
}
