import type OpenAI from 'openai';
import { z } from 'zod';
import { generateObject } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { shorten } from '../text';
import type { RetrievedChunk } from './retrieved-chunk';

/** The model's answer: a relevance score per candidate, by its index. */
export const rerankScoresSchema = z.object({
  scores: z.array(
    z.object({
      index: z.number().int().describe('The number of the passage, as given in brackets.'),
      score: z
        .number()
        .describe('0 = irrelevant, 5 = related background, 10 = answers the question directly.'),
    }),
  ),
});
export type RerankScores = z.infer<typeof rerankScoresSchema>;

/** Options for {@link rerankChunks}. */
export interface RerankChunksOptions {
  client: OpenAI;
  model: string;
  question: string;
  /** The fused candidates, best first. */
  chunks: readonly RetrievedChunk[];
  /** How many to keep. */
  topK: number;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** Characters of each candidate the model sees. */
const PREVIEW_LENGTH = 700;

const INSTRUCTIONS = [
  'You judge how well passages from a document library answer a question.',
  'Score every passage from 0 to 10: 10 when it answers the question directly, 7 when it holds',
  'part of the answer, 5 for related background, 0 when it is irrelevant.',
  'Judge direct relevance first, then the quality and completeness of the information.',
  'Return one score for every passage, by the number in brackets.',
].join(' ');

function renderCandidates(chunks: readonly RetrievedChunk[]): string {
  return chunks
    .map((chunk, index) => {
      const where = chunk.section === '' ? chunk.filename : `${chunk.filename} — ${chunk.section}`;
      return `[${index}] (${where})\n${shorten(chunk.text, PREVIEW_LENGTH)}`;
    })
    .join('\n\n');
}

/**
 * Re-ranks hybrid-search candidates with the LLM (the reference pipeline's "LLM reranking" step):
 * one structured-output call (`generateObject`) scores every candidate 0–10, and the best `topK`
 * come back with `rerankScore` set, ordered by score (ties keep the fused order). Candidates the
 * model left out score 0; an answer that scores none of them is an error. Runs in a RERANKER span around the LLM span.
 *
 * @throws whatever `generateObject` throws (the caller falls back to the fused order).
 * @example
 * const top = await rerankChunks({ client, model, question, chunks: candidates, topK: 8 });
 */
export async function rerankChunks({
  client,
  model,
  question,
  chunks,
  topK,
  signal,
  tracer,
}: RerankChunksOptions): Promise<RetrievedChunk[]> {
  return withSpan(
    {
      name: 'rag.rerank',
      kind: SpanKind.RERANKER,
      tracer,
      input: { question, candidates: chunks.length },
    },
    async (span) => {
      const { object } = await generateObject({
        client,
        model,
        schema: rerankScoresSchema,
        schemaName: 'passage_scores',
        schemaDescription: 'A relevance score for every passage.',
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          {
            role: 'user',
            content: `Question: ${question}\n\nPassages:\n\n${renderCandidates(chunks)}`,
          },
        ],
        temperature: 0,
        ...(signal ? { signal } : {}),
        ...(tracer ? { tracer } : {}),
      });
      const scores = new Map<number, number>();
      for (const entry of object.scores) {
        if (entry.index < 0 || entry.index >= chunks.length || scores.has(entry.index)) continue;
        scores.set(entry.index, Math.min(10, Math.max(0, entry.score)));
      }
      if (scores.size === 0) throw new Error('the re-ranker scored none of the passages');
      const ranked = chunks
        .map((chunk, index) => ({ chunk, index, score: scores.get(index) ?? 0 }))
        .sort((left, right) => right.score - left.score || left.index - right.index)
        .slice(0, topK)
        .map(({ chunk, score }) => ({ ...chunk, rerankScore: score }));
      setSpanOutput(
        span,
        ranked.map((chunk) => ({ chunkId: chunk.chunkId, score: chunk.rerankScore })),
      );
      return ranked;
    },
  );
}
