import type { DocumentType } from './extract-filters';

/**
 * A chunk found for a question: the store's search hit (child chunk text, its parent's text, RRF
 * score and ranks), plus the LLM re-ranker's score when it ran.
 */
export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  filename: string;
  docType: DocumentType;
  /** The heading trail, joined with ` > `; `''` for a document's preamble. */
  section: string;
  page?: number | undefined;
  /** The child chunk's text (what was searched). */
  text: string;
  /** The text of its parent: the section-sized span around it. */
  parentText?: string | undefined;
  /** Reciprocal rank fusion score of the hybrid search (k = 60). */
  score: number;
  vectorRank?: number | undefined;
  textRank?: number | undefined;
  /** The re-ranker's relevance score, 0–10, when re-ranking ran. */
  rerankScore?: number | undefined;
  /** The chunker's metadata: `bodyOffset` is where the content starts after the heading prefix. */
  metadata?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A chunk's content without the chunker's context prefix (`Document: …` / `Section: …` lines,
 * which help search find a heading but are not sentences of the document).
 *
 * @example
 * chunkBody({ text: 'Section: Leave\n\nYou get 28 days.', metadata: { bodyOffset: 16 } }); // 'You get 28 days.'
 */
export function chunkBody(chunk: Pick<RetrievedChunk, 'text' | 'metadata'>): string {
  const offset = chunk.metadata?.['bodyOffset'];
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset <= 0) return chunk.text;
  if (offset >= chunk.text.length) return chunk.text;
  return chunk.text.slice(offset).trimStart();
}
