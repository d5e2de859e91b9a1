import { z } from 'zod';
import { documentInfoSchema, runFileSchema } from '@fleet/a2a';
import { answerChunkSchema, answerSourceSchema } from '../answering';

/** Search filters as results report them (the store's `SearchFilters`). */
export const queryFiltersSchema = z.object({
  docTypes: z.array(documentInfoSchema.shape.docType).optional(),
  filenames: z.array(z.string()).optional(),
  createdAfter: z.string().optional(),
  createdBefore: z.string().optional(),
});

/** Which filters the question asked for, whether the search used them, and why not. */
export const filterReportSchema = z.object({
  requested: queryFiltersSchema,
  /** The phrases of the question that became filters. */
  mentions: z.array(z.string()),
  /** True when the search ran with `requested`. */
  applied: z.boolean(),
  /** Set when the filters left nothing and every document was searched instead. */
  note: z.string().optional(),
});
export type FilterReportData = z.infer<typeof filterReportSchema>;

/**
 * The data part of the `result` artifact of the `search` skill: the chunks found, their sources
 * (one per document section, `[n]` = `sources[n - 1]`) and how they were found.
 */
export const searchResultDataSchema = z.object({
  query: z.string(),
  sources: z.array(answerSourceSchema),
  chunks: z.array(answerChunkSchema),
  /** 0..1: see docs/rag.md. */
  confidence: z.number().min(0).max(1),
  filters: filterReportSchema,
  /** True when the LLM re-ranked the candidates. */
  reranked: z.boolean(),
  /** Why re-ranking failed, when it did (the fused order was kept). */
  rerankError: z.string().optional(),
  /** `text` when only full text was searched (degraded mode, or embedding the question failed). */
  searchMode: z.enum(['hybrid', 'text']).optional(),
  /** What the user should know about the result: why only full text was searched. */
  warnings: z.array(z.string()).optional(),
});
export type SearchResultData = z.infer<typeof searchResultDataSchema>;

/**
 * The data part of the `result` artifact of the `answer` skill (beside the text part with the
 * answer): the sources its `[n]` markers point at (only the cited ones), the chunks it was built
 * from, the confidence and the filters.
 */
export const answerResultDataSchema = searchResultDataSchema.extend({
  /** `llm`: written by the model; `extractive`: the documents' own sentences (offline). */
  answeredBy: z.enum(['llm', 'extractive']),
  /** Why the LLM answer was replaced by the extractive one, when it was. */
  llmError: z.string().optional(),
});
export type AnswerResultData = z.infer<typeof answerResultDataSchema>;

/**
 * The data part of the `result` artifact of a documents command: `{ documents }` (`ingest`,
 * `list`), `{ deleted }` (`delete`), `{ document }` (`get`, beside the file part with the bytes).
 */
export const documentsResultDataSchema = z.union([
  z.object({ documents: z.array(documentInfoSchema) }),
  z.object({ deleted: z.boolean() }),
  z.object({ document: documentInfoSchema }),
]);
export type DocumentsResultData = z.infer<typeof documentsResultDataSchema>;

/**
 * The data part of the `result` artifact of a run files command: `{ files }` (`put`, `list`),
 * `{ file }` (`get`, beside the file part with the bytes; `info`), `{ deleted }` (`delete`).
 */
export const filesResultDataSchema = z.union([
  z.object({ files: z.array(runFileSchema) }),
  z.object({ file: runFileSchema }),
  z.object({ deleted: z.boolean() }),
]);
export type FilesResultData = z.infer<typeof filesResultDataSchema>;

/**
 * The data part of a FAILED or REJECTED status message, beside its text: the fleet's error body
 * (the agent kit's), whose code (`UNSUPPORTED_MEDIA_TYPE`, `VALIDATION_FAILED`,
 * `PAYLOAD_TOO_LARGE`, …) lets the gateway answer with the matching HTTP status.
 */
export { errorDataSchema, type ErrorData } from '@fleet/agent-kit';
