import { ValidationError } from '@fleet/errors';
import type { DocumentRecord, OriginalInfo, SearchHit, StoredDocType } from './document-store';

/** Rows of the document store's tables as `pg` returns them, and how they become records. */

export interface DocumentRow {
  id: string;
  tenant: string;
  filename: string;
  doc_type: StoredDocType;
  content_hash: string;
  description: string;
  metadata: Record<string, unknown> | null;
  chunk_count: number;
  created_at: Date | string;
  original_digest: string | null;
  original_media_type: string | null;
  original_bytes: number | null;
  original_filename: string | null;
}

export interface OriginalRow {
  digest: string;
  media_type: string;
  size_bytes: number;
  filename: string;
}

export interface HitRow {
  chunk_id: string;
  document_id: string;
  filename: string;
  doc_type: StoredDocType;
  section: string;
  page: number | null;
  text: string;
  metadata: Record<string, unknown> | null;
  parent_text: string | null;
  score: number;
  vector_rank: number | null;
  text_rank: number | null;
  distance: number | null;
}

/** A document's columns and its original's details (never its bytes), from {@link WITH_ORIGINALS}. */
export const DOCUMENT_COLUMNS = `d.id::text AS id, d.tenant, d.filename, d.doc_type, d.content_hash,
  d.description, d.metadata, d.chunk_count, d.created_at, o.digest AS original_digest,
  o.media_type AS original_media_type, o.size_bytes AS original_bytes,
  o.filename AS original_filename`;

/** Documents (`d`) with their originals (`o`) when kept. */
export const WITH_ORIGINALS = `documents d LEFT JOIN document_originals o
  ON o.tenant = d.tenant AND o.digest = d.original_digest`;

/** PostgreSQL's foreign_key_violation. */
export const FOREIGN_KEY_VIOLATION = '23503';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toOriginalInfo(row: DocumentRow): OriginalInfo | undefined {
  if (row.original_digest === null) return undefined;
  return {
    digest: row.original_digest,
    mediaType: row.original_media_type ?? 'application/octet-stream',
    bytes: row.original_bytes ?? 0,
    filename: row.original_filename ?? row.filename,
  };
}

export function toRecord(row: DocumentRow): DocumentRecord {
  const original = toOriginalInfo(row);
  return {
    id: row.id,
    tenant: row.tenant,
    filename: row.filename,
    docType: row.doc_type,
    contentHash: row.content_hash,
    description: row.description,
    chunks: row.chunk_count,
    createdAt: (row.created_at instanceof Date
      ? row.created_at
      : new Date(row.created_at)
    ).toISOString(),
    metadata: row.metadata ?? {},
    ...(original === undefined ? {} : { original }),
  };
}

export function toHit(row: HitRow): SearchHit {
  return {
    chunkId: row.chunk_id,
    documentId: row.document_id,
    filename: row.filename,
    docType: row.doc_type,
    section: row.section,
    ...(row.page === null ? {} : { page: row.page }),
    text: row.text,
    ...(row.parent_text === null ? {} : { parentText: row.parent_text }),
    score: row.score,
    ...(row.vector_rank === null ? {} : { vectorRank: row.vector_rank }),
    ...(row.text_rank === null ? {} : { textRank: row.text_rank }),
    ...(row.distance === null ? {} : { distance: row.distance }),
    metadata: row.metadata ?? {},
  };
}

export function pgError(error: unknown): { code: string; message: string } | undefined {
  const candidate = error as { code?: unknown; message?: unknown } | null;
  return typeof candidate?.code === 'string' && typeof candidate.message === 'string'
    ? { code: candidate.code, message: candidate.message }
    : undefined;
}

/**
 * Data exceptions (class 22: a vector of the wrong size, NaN, a bad date) and integrity violations
 * (class 23: a repeated ordinal, a child without an embedding) are the caller's input, not the
 * store failing.
 */
export function toInputError(error: unknown, subject: string): unknown {
  const details = pgError(error);
  if (details && (details.code.startsWith('22') || details.code.startsWith('23'))) {
    return new ValidationError(`${subject}: ${details.message}.`, { cause: error });
  }
  return error;
}
