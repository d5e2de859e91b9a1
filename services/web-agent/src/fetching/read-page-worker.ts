// The entry of the page-reading pool's worker threads (docs/web-agent.md, "Reading pages"): each
// thread loads this module once and extracts pages' readable text for the agent, one at a time.
// Never imported on the agent's own thread (serveJobs throws there); `create-page-reader.ts`
// names it by path.
import { serveJobs } from '@fleet/worker-pool';
import { extractReadableText } from './extract-readable-text';

/** The jobs a page-reading worker runs. */
export const readPageJobs = { extract: extractReadableText };

/** Their types, for the pool on the agent's thread. */
export type ReadPageJobs = typeof readPageJobs;

serveJobs(readPageJobs);
