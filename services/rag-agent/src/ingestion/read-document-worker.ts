// The entry of the parse pool's worker threads (docs/rag.md, "Reading uploads"): each thread
// loads this module once and reads documents for the agent, one at a time. Never imported on the
// agent's own thread (serveJobs throws there); `create-document-reader.ts` names it by path.
import { serveJobs } from '@fleet/worker-pool';
import { readDocument } from './read-document';

/** The jobs a reading worker runs. */
export const readDocumentJobs = { read: readDocument };

/** Their types, for the pool on the agent's thread. */
export type ReadDocumentJobs = typeof readDocumentJobs;

serveJobs(readDocumentJobs);
