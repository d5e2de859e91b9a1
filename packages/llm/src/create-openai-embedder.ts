import type OpenAI from 'openai';
import type { CreateEmbeddingResponse, EmbeddingCreateParams } from 'openai/resources/embeddings';
import { AbortError, ConfigError, UpstreamError } from '@fleet/errors';
import {
  Attributes,
  SemanticConventions,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import type { EmbedOptions, Embedder } from './embedder';
import { toLlmError } from './to-llm-error';

/** Vector sizes of the OpenAI embedding models, for when `dimensions` is not given. */
export const KNOWN_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/** Options for {@link createOpenAIEmbedder}. */
export interface CreateOpenAIEmbedderOptions {
  client: OpenAI;
  model: string;
  /**
   * The vector size, sent as `dimensions` (the text-embedding-3 models shorten their vectors to
   * it; other servers may reject the parameter). Required for models not in
   * {@link KNOWN_EMBEDDING_DIMENSIONS}.
   */
  dimensions?: number | undefined;
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** The tracer for the `llm.embed` spans. @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/** How many input texts an `llm.embed` span records as `embedding.embeddings.N.embedding.text`. */
const MAX_RECORDED_TEXTS = 16;
/** How much of each recorded text. */
const MAX_RECORDED_TEXT_LENGTH = 1000;

/**
 * An {@link Embedder} over an OpenAI-compatible `POST /v1/embeddings`: requests of `batchSize`
 * texts, one after another (friendlier to rate limits than a burst), with
 * `encoding_format: 'float'` (some compatible servers cannot send base64) and `dimensions` when
 * given. The vectors come back in input order whatever order the server lists them in. Each
 * request runs in an `llm.embed` span of kind EMBEDDING carrying the model name, the first texts
 * and the token count.
 *
 * An empty text is sent as a single space: OpenAI rejects empty inputs.
 *
 * @throws ConfigError at creation when the size of `model`'s vectors is unknown and `dimensions`
 *   is not given, and from `embed` when the server's vectors are not `dimensions` long (a model or
 *   size that does not match the configuration).
 * @throws UpstreamError, UpstreamTimeoutError, ConnectionError or AbortError when a request fails
 *   (see `toLlmError`), and UpstreamError (502) when an answer lacks vectors.
 * @example
 * const embedder = createOpenAIEmbedder({ client, model: 'text-embedding-3-small' });
 * const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
 */
export function createOpenAIEmbedder({
  client,
  model,
  dimensions,
  batchSize = 64,
  tracer,
}: CreateOpenAIEmbedderOptions): Embedder {
  const size = dimensions ?? KNOWN_EMBEDDING_DIMENSIONS[model];
  if (size === undefined) {
    throw new ConfigError(
      `The size of the embedding model '${model}''s vectors is unknown: give its dimensions.`,
    );
  }
  if (!Number.isInteger(size) || size < 1) {
    throw new ConfigError(`The embedding dimensions must be a positive integer, got ${size}.`);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new TypeError(`batchSize must be a positive integer, got ${batchSize}`);
  }

  async function embedBatch(batch: readonly string[], signal: AbortSignal | undefined) {
    const body: EmbeddingCreateParams = {
      model,
      input: batch.map((text) => (text === '' ? ' ' : text)),
      encoding_format: 'float',
      ...(dimensions === undefined ? {} : { dimensions }),
    };
    return withSpan(
      {
        name: 'llm.embed',
        kind: SpanKind.EMBEDDING,
        tracer,
        attributes: {
          [Attributes.EMBEDDING_MODEL_NAME]: model,
          ...Object.fromEntries(
            batch
              .slice(0, MAX_RECORDED_TEXTS)
              .map((text, index) => [
                `${SemanticConventions.EMBEDDING_EMBEDDINGS}.${index}.${SemanticConventions.EMBEDDING_TEXT}`,
                text.slice(0, MAX_RECORDED_TEXT_LENGTH),
              ]),
          ),
        },
        input: { texts: batch.length, ...(dimensions === undefined ? {} : { dimensions }) },
      },
      async (span) => {
        let response: CreateEmbeddingResponse;
        try {
          response = await client.embeddings.create(body, signal ? { signal } : {});
        } catch (error) {
          throw toLlmError(error);
        }
        const tokens = response.usage?.prompt_tokens;
        if (typeof tokens === 'number') {
          span.setAttribute(Attributes.LLM_TOKEN_COUNT_PROMPT, tokens);
          span.setAttribute(Attributes.LLM_TOKEN_COUNT_TOTAL, response.usage.total_tokens);
        }
        const vectors = new Array<number[] | undefined>(batch.length);
        for (const item of response.data ?? []) {
          if (Number.isInteger(item.index) && item.index >= 0 && item.index < batch.length) {
            vectors[item.index] = item.embedding;
          }
        }
        const result: number[][] = [];
        for (const [index, vector] of vectors.entries()) {
          if (!Array.isArray(vector)) {
            throw new UpstreamError(
              `The embedding server returned no vector for input ${index} of ${batch.length}.`,
              { status: 502, body: response },
            );
          }
          if (vector.length !== size) {
            throw new ConfigError(
              `The embedding model '${model}' returned ${vector.length}-dimensional vectors; ${size} were expected. Set the dimensions to the model's size (or a size it can shorten to).`,
            );
          }
          result.push(vector);
        }
        return result;
      },
    );
  }

  return {
    model,
    dimensions: size,
    async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
      const { signal } = options;
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        if (signal?.aborted) throw new AbortError('The embedding was aborted.');
        vectors.push(...(await embedBatch(texts.slice(start, start + batchSize), signal)));
      }
      return vectors;
    },
  };
}
