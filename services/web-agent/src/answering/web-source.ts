import { z } from 'zod';
import { citationSchema } from '@fleet/a2a';

/** A source an answer cites as `[n]`: a search result or a page that was read. */
export const webSourceSchema = citationSchema.extend({
  title: z.string(),
  url: z.string(),
  /** The provider's snippet, or the start of the page's text. */
  snippet: z.string(),
  publishedDate: z.string().optional(),
  /** True when the page itself was fetched and read (not only its snippet). */
  fetched: z.boolean(),
});
export type WebSource = z.infer<typeof webSourceSchema>;

/** A source with the text an answer may be built from (the page's text when it was read). */
export interface SourceMaterial {
  source: WebSource;
  /** The page's readable text, or the snippet when the page was not read. */
  text: string;
}

/** Earlier plan steps' results: context for the question, never citable sources. */
export type { AnswerContext } from '@fleet/llm';

/** A cited answer. */
export interface WebAnswer {
  /** The answer with `[n]` markers; `n` is a position in `sources` (from 1). */
  text: string;
  /** Only the cited sources, in marker order. */
  sources: WebSource[];
  answeredBy: 'llm' | 'extractive';
  /** Why the LLM answer was replaced by the extractive one, when it was. */
  llmError?: string;
}
