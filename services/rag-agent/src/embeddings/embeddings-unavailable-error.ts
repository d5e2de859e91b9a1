import { ServiceUnavailableError, type FleetErrorOptions } from '@fleet/errors';

/**
 * The RAG agent runs degraded (full-text search only) and cannot embed: documents cannot be
 * ingested until the embedding model is back. A `SERVICE_UNAVAILABLE` (503) whose
 * `details.reason` is `embeddings_unavailable`; retryable only while the agent re-checks the
 * model by itself (an upstream is configured), and then after `retryAfterSeconds`.
 */
export class EmbeddingsUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, options);
  }
}
