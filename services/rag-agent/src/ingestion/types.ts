import type { Truncation } from './limits';

/** Every document format the RAG agent can index, in the order messages list them. */
export const DOC_TYPES = ['pdf', 'docx', 'xlsx', 'csv', 'txt', 'md', 'html'] as const;

/** A document format the RAG agent can index. */
export type DocType = (typeof DOC_TYPES)[number];

/** A paragraph of running text. */
export interface ParagraphBlock {
  kind: 'paragraph';
  text: string;
  /** 1-based page the paragraph starts on (PDF only). */
  page?: number;
}

/** A table; the first row is the header row. */
export interface TableBlock {
  kind: 'table';
  rows: string[][];
  page?: number;
}

/** A bulleted or numbered list; nested items are folded into their parent item's text. */
export interface ListBlock {
  kind: 'list';
  items: string[];
  page?: number;
}

/** Preformatted text (source code, terminal output), kept verbatim. */
export interface CodeBlock {
  kind: 'code';
  text: string;
  page?: number;
}

/** One unit of document content. */
export type Block = ParagraphBlock | TableBlock | ListBlock | CodeBlock;

/** A heading and the blocks under it, up to the next heading. */
export interface Section {
  /** Heading trail from the top, e.g. `['Finance', 'Revenue']`; `[]` for text before any heading. */
  path: string[];
  /** Heading level (1 = top), 0 for the preamble. */
  level: number;
  /** 1-based page the section starts on (PDF only). */
  page?: number;
  blocks: Block[];
}

/** A document as the parsers see it: a title and sections in reading order. */
export interface ParsedDocument {
  docType: DocType;
  /** The first heading, a format's own title (HTML `<title>`, Markdown front matter), else the file name without its extension. */
  title?: string;
  /** Number of pages (PDF only). */
  pages?: number;
  sections: Section[];
  /** Facts about the parse worth keeping with the document, e.g. `{ truncatedSheets: [...] }`. */
  metadata?: Record<string, unknown>;
  /** What was left out because it exceeded a limit (rows, pages, characters). */
  truncations?: Truncation[];
}

/** Options for {@link chunkDocument}. */
export interface ChunkOptions {
  /** Token budget of a child chunk, heading prefix included. @default 350 */
  maxTokens?: number | undefined;
  /** Token budget of a parent chunk. Raised to `maxTokens` if smaller. @default 1200 */
  parentMaxTokens?: number | undefined;
  /**
   * Stop after the section in which the children pass this many: the rest of the document is
   * not chunked (a document of a million tiny sections costs no more than the chunks kept).
   * @default no limit
   */
  stopAfterChildren?: number | undefined;
}

/**
 * A piece of a document. Children are embedded and searched; each points at its parent, a
 * section-sized span an answer can quote for context.
 */
export interface Chunk {
  /** Dense position in document order, from 0; a parent comes right before its children. */
  ordinal: number;
  kind: 'parent' | 'child';
  /** The ordinal of this child's parent; absent on parents. */
  parentOrdinal?: number;
  /** The text: a light heading prefix (see `metadata.bodyOffset`), then the content as Markdown. */
  text: string;
  /** cl100k tokens in `text`. */
  tokens: number;
  /** Heading trail joined with `' > '`; `''` for the preamble. */
  section: string;
  /** First page the chunk covers (PDF only). */
  page?: number;
  metadata: Record<string, unknown>;
}
