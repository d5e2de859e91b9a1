import type OpenAI from 'openai';
import { z } from 'zod';
import { toLlmError } from '@fleet/llm';

/** Options for {@link probeEmbeddingModel}. */
export interface ProbeEmbeddingModelOptions {
  client: OpenAI;
  model: string;
  /** Sent as `dimensions` when set, as the embedder sends it (EMBEDDING_DIMENSIONS or the store's). */
  requestedDimensions: number | undefined;
  /** The vector size the store has or expects. */
  expectedDimensions: number;
  /** @default 10000 */
  timeoutMs?: number;
}

/** What one probe found. */
export type ProbeOutcome =
  | { ok: true }
  /** The model answered with vectors of another size. */
  | { ok: false; kind: 'dimensions'; returned: number }
  /** The call failed: unreachable, refused, unknown model, no vector. */
  | { ok: false; kind: 'failed'; message: string };

/** The part of an embeddings answer the probe reads (tolerant: CONTRIBUTING.md convention 9). */
const probeAnswerSchema = z.looseObject({
  data: z.array(z.looseObject({ embedding: z.array(z.number()) })).min(1),
});

/**
 * Embeds one short text with the upstream, as the agent's embedder would, and compares the
 * vector's size with the one the store has or expects: the one call that tells at start whether
 * vector search can work. No retries; a failure is an outcome, never thrown.
 *
 * @example
 * const outcome = await probeEmbeddingModel({ client, model: 'text-embedding-3-small',
 *   requestedDimensions: undefined, expectedDimensions: 1536 });
 */
export async function probeEmbeddingModel({
  client,
  model,
  requestedDimensions,
  expectedDimensions,
  timeoutMs = 10_000,
}: ProbeEmbeddingModelOptions): Promise<ProbeOutcome> {
  let answer: unknown;
  try {
    answer = await client.embeddings.create(
      {
        model,
        input: ['embedding model check'],
        encoding_format: 'float',
        ...(requestedDimensions === undefined ? {} : { dimensions: requestedDimensions }),
      },
      { timeout: timeoutMs, maxRetries: 0 },
    );
  } catch (error) {
    return { ok: false, kind: 'failed', message: toLlmError(error).message };
  }
  const parsed = probeAnswerSchema.safeParse(answer);
  if (!parsed.success) {
    return { ok: false, kind: 'failed', message: 'the answer held no embedding vector' };
  }
  const returned = parsed.data.data[0]?.embedding.length ?? 0;
  return returned === expectedDimensions
    ? { ok: true }
    : { ok: false, kind: 'dimensions', returned };
}
