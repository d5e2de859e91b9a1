import type { Migration } from './migration';

/**
 * Run files: the files a run's steps made (a chart, a CSV) and the files a request brought
 * (attachments), kept per tenant with their bytes until `expires_at` (the `files` commands,
 * `createRunFileStore`). The id is random (`file-` and 32 hex digits) and only ever looked up with
 * its tenant. The session index serves a run's listing, the expiry index the periodic sweep.
 */
export const runFiles: Migration = {
  version: 4,
  name: 'run-files',
  sql: () => `
CREATE TABLE run_files (
  id text NOT NULL,
  tenant text NOT NULL,
  session_id text,
  node_id text,
  agent text,
  source text NOT NULL,
  name text NOT NULL,
  media_type text NOT NULL,
  size_bytes integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT run_files_pkey PRIMARY KEY (tenant, id),
  CONSTRAINT run_files_size_check CHECK (size_bytes = octet_length(content)),
  CONSTRAINT run_files_source_check CHECK (source IN ('step', 'attachment'))
);
CREATE INDEX run_files_tenant_session_idx ON run_files (tenant, session_id, created_at);
CREATE INDEX run_files_expires_at_idx ON run_files (expires_at);
`,
};
