/** Options for one {@link Embedder.embed} call. */
export interface EmbedOptions {
  /** Aborts the call; the promise then rejects with `AbortError`. */
  signal?: AbortSignal | undefined;
}

/**
 * Turns texts into vectors of a fixed size for similarity search. Implementations:
 * `createOpenAIEmbedder` (any OpenAI-compatible `/v1/embeddings`) and `createHashedEmbedder`
 * (offline mode's local, deterministic embedder).
 */
export interface Embedder {
  /** The model name the vectors come from; stores record it to refuse mixing models. */
  readonly model: string;
  /** The length of every vector `embed` returns. */
  readonly dimensions: number;
  /**
   * Embeds `texts`, returning one vector per text in the same order (an empty array for none).
   *
   * @param texts - the texts, any number (implementations batch them).
   * @param options - an abort signal.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}
