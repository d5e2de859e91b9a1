import { z } from 'zod';
import { webSourceSchema } from '../answering';
import { searchResultSchema } from '../search';

/** What happened to one page the agent tried to read. */
export const pageReportSchema = z.object({
  url: z.string(),
  status: z.enum(['read', 'failed']),
  finalUrl: z.string().optional(),
  title: z.string().optional(),
  chars: z.number().int().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/**
 * The data part of the `result` artifact, beside the answer text: the cited sources (`[n]` =
 * `sources[n - 1]`), every search result, and what happened to each page read.
 */
export const webResultDataSchema = z.object({
  mode: z.enum(['basic', 'news', 'deep', 'read']),
  /** What was searched; absent in `read` mode. */
  query: z.string().optional(),
  /** `tavily`, `searxng`; absent in `read` mode. */
  provider: z.string().optional(),
  sources: z.array(webSourceSchema),
  results: z.array(searchResultSchema),
  pages: z.array(pageReportSchema),
  /** `llm`: written by the model; `extractive`: the pages' own sentences (offline). */
  answeredBy: z.enum(['llm', 'extractive']),
  /** Why the LLM answer was replaced by the extractive one, when it was. */
  llmError: z.string().optional(),
});
export type WebResultData = z.infer<typeof webResultDataSchema>;

/** The data part of a FAILED status message: the fleet's error body (the agent kit's). */
export { errorDataSchema, type ErrorData } from '@fleet/agent-kit';
