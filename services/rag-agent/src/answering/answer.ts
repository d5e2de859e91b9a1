import type { AnswerChunk, AnswerSource } from './answer-schemas';

/** An answer built from retrieved chunks. */
export interface Answer {
  /** The answer with `[n]` markers pointing at `sources[n - 1]`. */
  text: string;
  sources: AnswerSource[];
  /** The retrieval's confidence, 0..1. */
  confidence: number;
  /** The chunks it was built from, best first. */
  chunks: AnswerChunk[];
  /** `llm`: written by the model; `extractive`: the documents' own sentences (offline mode). */
  answeredBy: 'llm' | 'extractive';
  /** Why the LLM answer was replaced by the extractive one, when it was. */
  llmError?: string;
}
