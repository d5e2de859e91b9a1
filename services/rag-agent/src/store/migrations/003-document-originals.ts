import type { Migration } from './migration';

/**
 * The bytes each document was ingested from, so they can be read back (the `get` documents
 * command, the gateway's `GET /v1/documents/{id}/content`). One row per tenant and SHA-256 of the
 * content: documents that share bytes share the row, which is deleted with the last document of
 * the tenant that refers to it. `documents.original_digest` is null for documents ingested before
 * this migration (their bytes were not kept). The foreign key keeps a referenced original from
 * being deleted; its index serves the "still used?" check on delete.
 */
export const documentOriginals: Migration = {
  version: 3,
  name: 'document-originals',
  sql: () => `
CREATE TABLE document_originals (
  tenant text NOT NULL,
  digest text NOT NULL,
  media_type text NOT NULL,
  size_bytes integer NOT NULL,
  filename text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT document_originals_pkey PRIMARY KEY (tenant, digest),
  CONSTRAINT document_originals_size_check CHECK (size_bytes = octet_length(content))
);

ALTER TABLE documents ADD COLUMN original_digest text;
ALTER TABLE documents ADD CONSTRAINT documents_original_fkey
  FOREIGN KEY (tenant, original_digest) REFERENCES document_originals (tenant, digest);
CREATE INDEX documents_tenant_original_digest_idx ON documents (tenant, original_digest)
  WHERE original_digest IS NOT NULL;
`,
};
