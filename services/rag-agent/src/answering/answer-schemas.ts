import { z } from 'zod';
import { citationSchema, documentInfoSchema } from '@fleet/a2a';

/**
 * A source an answer cites as `[n]`: one document section. `title`, `url` and `snippet` are the
 * fleet's citation fields (`citationSchema`, which the orchestrator reads); the rest say where in
 * the library the passage is.
 */
export const answerSourceSchema = citationSchema.extend({
  /** `filename — section` (`filename, p. N — section` for PDFs), unique per document section. */
  title: z.string(),
  /** The best chunk's text, shortened. */
  snippet: z.string(),
  documentId: z.string(),
  filename: z.string(),
  /** The page of the best chunk (PDFs). */
  page: z.number().int().optional(),
  /** The heading trail joined with ` > `; `''` for the preamble. */
  section: z.string(),
});
export type AnswerSource = z.infer<typeof answerSourceSchema>;

/** A chunk an answer or search result was built from. */
export const answerChunkSchema = z.object({
  chunkId: z.string(),
  documentId: z.string(),
  filename: z.string(),
  docType: documentInfoSchema.shape.docType,
  section: z.string(),
  page: z.number().int().optional(),
  text: z.string(),
  /** Reciprocal rank fusion score of the hybrid search (k = 60). */
  score: z.number(),
  /** The LLM re-ranker's 0–10 score, when it ran. */
  rerankScore: z.number().optional(),
  /** The `[n]` of its source; absent when the answer does not cite it. */
  source: z.number().int().min(1).optional(),
});
export type AnswerChunk = z.infer<typeof answerChunkSchema>;
