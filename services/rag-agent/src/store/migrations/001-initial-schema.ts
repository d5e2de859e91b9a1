import type { Migration } from './migration';

/**
 * Documents and their chunks. Children carry an embedding (`vector(N)`, N fixed here by the
 * embedder's size) and are what search returns; parents (section-sized spans an answer may quote)
 * have none. `tsv` is generated from the section heading and the text for full-text search. Every
 * row carries its tenant, and a chunk's (document, tenant) pair must match its document's.
 */
export const initialSchema: Migration = {
  version: 1,
  name: 'initial-schema',
  sql: ({ dimensions }) => `
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE documents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant text NOT NULL,
  filename text NOT NULL,
  doc_type text NOT NULL,
  content_hash text NOT NULL,
  description text NOT NULL DEFAULT '',
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  chunk_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT documents_tenant_content_hash_key UNIQUE (tenant, content_hash),
  CONSTRAINT documents_id_tenant_key UNIQUE (id, tenant)
);
CREATE INDEX documents_tenant_created_at_idx ON documents (tenant, created_at DESC);

CREATE TABLE chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id uuid NOT NULL,
  tenant text NOT NULL,
  ordinal integer NOT NULL,
  kind text NOT NULL,
  parent_ordinal integer,
  section text NOT NULL DEFAULT '',
  page integer,
  text text NOT NULL,
  tokens integer NOT NULL DEFAULT 0,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  embedding vector(${dimensions}),
  tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('english', coalesce(section, '') || ' ' || text)
  ) STORED,
  CONSTRAINT chunks_document_fkey FOREIGN KEY (document_id, tenant)
    REFERENCES documents (id, tenant) ON DELETE CASCADE,
  CONSTRAINT chunks_document_ordinal_key UNIQUE (document_id, ordinal),
  CONSTRAINT chunks_kind_check CHECK (kind IN ('parent', 'child')),
  CONSTRAINT chunks_child_embedding_check CHECK (kind = 'parent' OR embedding IS NOT NULL)
);
CREATE INDEX chunks_embedding_hnsw_idx ON chunks
  USING hnsw (embedding vector_cosine_ops)
  WITH (m = 16, ef_construction = 64);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_tenant_document_idx ON chunks (tenant, document_id);

CREATE TABLE rag_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  embedding_model text NOT NULL,
  embedding_dimensions integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
};
