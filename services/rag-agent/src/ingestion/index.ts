/** Document ingestion: detect a file's type, parse it into sections, and cut it into chunks. */
export { DEFAULT_MAX_TOKENS, DEFAULT_PARENT_MAX_TOKENS, chunkDocument } from './chunk-document';
export { contentHash } from './content-hash';
export { dropRepeatedChunks } from './drop-repeated-chunks';
export { createDocumentReader, inProcessDocumentReader } from './create-document-reader';
export type {
  CreateDocumentReaderOptions,
  DocumentReader,
  ReadRequest,
} from './create-document-reader';
export { countTokens } from './count-tokens';
export { detectDocType } from './detect-doc-type';
export type { DetectDocTypeInput } from './detect-doc-type';
export { DocumentLimitError } from './document-limit-error';
export type { DocumentLimitErrorOptions } from './document-limit-error';
export { DocumentParseError } from './document-parse-error';
export {
  DEFAULT_INGEST_LIMITS,
  LIMIT_NAMES,
  PARSE_BUDGET_NAMES,
  resolveLimits,
  truncationWarning,
} from './limits';
export type { IngestLimits, ParseBudget, Truncation } from './limits';
export { parseDocument } from './parse-document';
export type { ParseDocumentInput } from './parse-document';
export { readDocument } from './read-document';
export type { ReadDocumentInput, ReadDocumentResult } from './read-document';
export { DOC_TYPES } from './types';
export type {
  Block,
  Chunk,
  ChunkOptions,
  CodeBlock,
  DocType,
  ListBlock,
  ParagraphBlock,
  ParsedDocument,
  Section,
  TableBlock,
} from './types';
export { UnsupportedDocumentError } from './unsupported-document-error';
