import type { WithSpanOptions } from '@fleet/telemetry';
import type { CodeWriter } from '../authoring';
import type { DataFileLimits } from '../data-files';
import type { Sandbox } from '../sandbox';

/**
 * What every step of the code agent works with: `createCodeAgent`'s options with their defaults
 * applied.
 */
export interface CodeAgentSettings {
  writer: CodeWriter;
  sandbox: Sandbox;
  /** Ask a person before every run (TASK_STATE_AUTH_REQUIRED with the program as the preview). */
  requireApproval: boolean;
  /** Programs tried per task: the first plus fixes of failed ones (online only). */
  maxAttempts: number;
  /** How long an approval request stays valid, in milliseconds. */
  approvalTtlMs: number;
  now: () => Date;
  /** How many files, and bytes in all, a step may bring to `/data`. */
  dataLimits: DataFileLimits;
  tracer: WithSpanOptions['tracer'];
}
