import type { RetrievedChunk } from './retrieved-chunk';

/** The reciprocal rank fusion constant the store uses (score = Σ 1 / (k + rank)). */
export const RRF_K = 60;

/** How many of the best chunks the confidence looks at. */
const CONFIDENCE_DEPTH = 3;

/** The best RRF score possible: first in both the vector and the full-text ranking. */
const BEST_RRF = 2 / (RRF_K + 1);

function clamp(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

/**
 * How sure the agent is that the chunks answer the question, 0..1: the mean, over the best three
 * chunks (fewer when fewer were found, 0 when none), of
 *
 * - the re-ranker's score / 10 when the LLM re-ranked them (its judgement of relevance), or
 * - the chunk's RRF score relative to the best possible one, 2 / (k + 1): a chunk ranked first by
 *   both the vector and the full-text search scores 1; one that only one search found scores at
 *   most 0.5. So without re-ranking, a confidence above 0.5 means the two searches agree.
 *
 * Rounded to two decimals.
 *
 * @example
 * retrievalConfidence([{ score: 2 / 61 }, { score: 1 / 61 + 1 / 63 }]); // 0.98
 */
export function retrievalConfidence(
  chunks: readonly Pick<RetrievedChunk, 'score' | 'rerankScore'>[],
): number {
  const top = chunks.slice(0, CONFIDENCE_DEPTH);
  if (top.length === 0) return 0;
  const reranked = top.some((chunk) => chunk.rerankScore !== undefined);
  const values = top.map((chunk) =>
    reranked ? clamp((chunk.rerankScore ?? 0) / 10) : clamp(chunk.score / BEST_RRF),
  );
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.round(mean * 100) / 100;
}
