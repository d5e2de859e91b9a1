import type { DocumentInfo } from '@fleet/a2a';

/** A stored document's type (the same set the ingestion parsers and `DocumentInfo` know). */
export type StoredDocType = DocumentInfo['docType'];

/** A chunk to store: the chunker's output plus its embedding (children need one). */
export interface ChunkToStore {
  ordinal: number;
  kind: 'parent' | 'child';
  /** The parent's ordinal, for a child. */
  parentOrdinal?: number | undefined;
  text: string;
  tokens: number;
  /** The heading trail, joined with ' > '. */
  section: string;
  page?: number | undefined;
  metadata: Record<string, unknown>;
  /** Required for children (`embedder.dimensions` long); null for parents. */
  embedding: number[] | null;
}

/** A document's original bytes, as {@link DocumentStore.insertDocument} keeps them. */
export interface OriginalToStore {
  /** The file exactly as uploaded; the store keys it by its SHA-256. */
  bytes: Uint8Array;
  /** The media type to serve it with, e.g. `application/pdf`, `text/csv; charset=utf-8`. */
  mediaType: string;
  /** The name it was uploaded under. */
  filename: string;
}

/** What is known about a kept original without reading its bytes. */
export interface OriginalInfo {
  /** SHA-256 of the bytes, lower-case hex: the key of the original within the tenant. */
  digest: string;
  mediaType: string;
  /** Its size in bytes. */
  bytes: number;
  /** The name the bytes were first uploaded under (documents sharing them keep their own names). */
  filename: string;
}

/** What {@link DocumentStore.insertDocument} stores. */
export interface InsertDocumentInput {
  tenant: string;
  filename: string;
  docType: StoredDocType;
  /** sha256 of the file's bytes: the same content is stored once per tenant. */
  contentHash: string;
  description: string;
  metadata?: Record<string, unknown> | undefined;
  chunks: readonly ChunkToStore[];
  /**
   * The original bytes, kept so they can be read back (`readOriginal`). Stored once per tenant and
   * content; absent: the document has no original.
   */
  original?: OriginalToStore | undefined;
}

/** A stored document. */
export interface DocumentRecord {
  id: string;
  tenant: string;
  filename: string;
  docType: StoredDocType;
  contentHash: string;
  description: string;
  /** Searchable (child) chunks. */
  chunks: number;
  /** ISO 8601. */
  createdAt: string;
  metadata: Record<string, unknown>;
  /** True when `insertDocument` found this content already stored and stored nothing. */
  duplicate?: boolean;
  /** The kept original bytes' details; absent for a document ingested before originals were kept. */
  original?: OriginalInfo;
}

/** Restrictions a search applies in both arms (vector and full text). */
export interface SearchFilters {
  docTypes?: StoredDocType[] | undefined;
  /** Case-insensitive substrings of the filename, any of which matches. */
  filenames?: string[] | undefined;
  /** Documents stored at or after this instant (ISO 8601). */
  createdAfter?: string | undefined;
  /** Documents stored before this instant (ISO 8601). */
  createdBefore?: string | undefined;
}

/** Which ranking a search uses. */
export type SearchMode = 'hybrid' | 'vector' | 'text';

/** What {@link DocumentStore.search} looks for. */
export interface SearchInput {
  tenant: string;
  /**
   * The query text, for full-text search. With websearch syntax (quotes for phrases, `-word`) it
   * is `websearch_to_tsquery`'s (every word required, `or` between alternatives); plain text
   * matches chunks with any of its words, those with more of them ranking higher.
   */
  text: string;
  /** The query's embedding, for vector search: required unless `mode` is `text`. */
  embedding?: number[] | undefined;
  filters?: SearchFilters | undefined;
  /** Hits to return. @default 20 */
  limit?: number | undefined;
  /** `hybrid` fuses both arms with reciprocal rank fusion; the others return one arm. @default 'hybrid' */
  mode?: SearchMode | undefined;
  /** Scan every chunk for the vector arm instead of using the HNSW index (exact, slow). */
  exact?: boolean | undefined;
  /**
   * Candidates each arm contributes before fusion (the vector arm's HNSW `ef_search` is at least
   * this). @default max(limit, 40)
   */
  candidates?: number | undefined;
  /** HNSW `ef_search`: larger is better recall and slower. @default max(candidates, 100) */
  efSearch?: number | undefined;
}

/** One search result: a child chunk, its parent's text, and its document. */
export interface SearchHit {
  chunkId: string;
  documentId: string;
  filename: string;
  docType: StoredDocType;
  section: string;
  page?: number;
  text: string;
  /** The parent chunk's text (a section-sized span around the hit), when the chunk has one. */
  parentText?: string;
  /** Reciprocal rank fusion: Σ 1/(60 + rank) over the arms that found it. */
  score: number;
  /** 1-based rank in the vector arm, when it found the chunk. */
  vectorRank?: number;
  /** 1-based rank in the full-text arm, when it found the chunk. */
  textRank?: number;
  /** Cosine distance to the query embedding (0 = same direction), when the vector arm found it. */
  distance?: number;
  /** The chunk's metadata, as the chunker set it. */
  metadata: Record<string, unknown>;
}

/** Chunk and document counts. */
export interface StoreStats {
  documents: number;
  /** Searchable (child) chunks. */
  chunks: number;
}

/**
 * The RAG store: documents, their chunks and embeddings, hybrid search. Every operation is scoped
 * by tenant: nothing reads or changes another tenant's rows.
 */
export interface DocumentStore {
  /** The tenant's document with this content hash, if stored. */
  findByHash(tenant: string, contentHash: string): Promise<DocumentRecord | undefined>;
  /**
   * Stores a document and all its chunks in one transaction: all or nothing. When the tenant
   * already has this content (`contentHash`), stores nothing and returns the existing document with
   * `duplicate: true`, also when two inserts of it race.
   *
   * @throws ValidationError when a chunk cannot be stored (an embedding of the wrong size, a child
   *   without one, a repeated ordinal); nothing is stored then.
   */
  insertDocument(input: InsertDocumentInput): Promise<DocumentRecord>;
  /** The tenant's documents, newest first. */
  listDocuments(tenant: string): Promise<DocumentRecord[]>;
  /** The tenant's document with this id; undefined for an unknown id or another tenant's. */
  getDocument(tenant: string, id: string): Promise<DocumentRecord | undefined>;
  /** The tenant's documents with exactly this filename, newest first. */
  findByFilename(tenant: string, filename: string): Promise<DocumentRecord[]>;
  /**
   * The original bytes of the tenant's document; undefined when it has no such document or the
   * document has none.
   */
  readOriginal(tenant: string, id: string): Promise<Uint8Array | undefined>;
  /**
   * Keeps the original bytes of a document stored without them (ingested before originals were
   * kept); true when they were attached, false when the tenant has no such document or it
   * already has an original.
   */
  attachOriginal(input: {
    tenant: string;
    id: string;
    original: OriginalToStore;
  }): Promise<boolean>;
  /**
   * Deletes the tenant's document and its chunks, and its original bytes when no other document
   * of the tenant uses them; false when it has no such document.
   */
  deleteDocument(tenant: string, id: string): Promise<boolean>;
  /** Child chunks ranked for the query: hybrid (RRF over vector and full text) by default. */
  search(input: SearchInput): Promise<SearchHit[]>;
  /** Counts for one tenant, or for all. */
  stats(tenant?: string): Promise<StoreStats>;
}
