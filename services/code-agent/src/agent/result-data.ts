import { z } from 'zod';
import { errorDataSchema } from '@fleet/agent-kit';
import { dataFileSummarySchema } from '../data-files';
import type { CodeRun } from '../sandbox';
import { attemptSummarySchema, type CodeProposal } from './code-proposal';

/** A file the program wrote, as the result lists it (its bytes are a file part of the artifact). */
export const resultFileSchema = z.object({
  filename: z.string(),
  mediaType: z.string(),
  bytes: z.number().int().min(0),
});

/**
 * The data part of the `result` artifact: the program, what it printed, how it ended, the files
 * it wrote and the earlier attempts (when a failed program was fixed).
 */
export const codeResultDataSchema = z.object({
  language: z.literal('python'),
  code: z.string(),
  /** `llm`: written by the model; `task`: the task's own program (offline). */
  codeSource: z.enum(['llm', 'task']),
  stdout: z.string(),
  stderr: z.string(),
  /** Null when the program was killed (see `signal` and `outcome`). */
  exitCode: z.number().int().nullable(),
  signal: z.number().int().optional(),
  /** `ok`, `error`, or the limit that stopped it (`timeout`, `cpu-limit`, `memory-limit`, …). */
  outcome: z.string(),
  /** One sentence on the limit that stopped it, if one did. */
  limitMessage: z.string().nullable(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  durationMs: z.number(),
  files: z.array(resultFileSchema),
  /** The step's own files the program could read at `/data` (as approved). */
  dataFiles: z.array(dataFileSummarySchema).default([]),
  skippedFiles: z.array(z.object({ filename: z.string(), reason: z.string() })),
  /** Which attempt this is (1 for the first program). */
  attempt: z.number().int().min(1),
  previousAttempts: z.array(attemptSummarySchema),
  /**
   * How the run's memory was bounded: `cgroup-v2`/`cgroup-v1` for all its processes together
   * (`peakBytes`: the most they used at once), `per-process` where no cgroup could be had.
   */
  memory: z.object({
    enforcement: z.enum(['cgroup-v2', 'cgroup-v1', 'per-process']),
    limitBytes: z.number().int().min(0),
    peakBytes: z.number().int().min(0).nullable(),
  }),
  /** `bubblewrap`, or `unsandboxed` when configured so on purpose. */
  sandbox: z.enum(['bubblewrap', 'unsandboxed']),
  /** False when CODE_AGENT_ALLOW_UNAPPROVED let it run without a person's approval. */
  approved: z.boolean(),
});
export type CodeResultData = z.infer<typeof codeResultDataSchema>;

/**
 * The data part of a FAILED or REJECTED status message, beside its text: the fleet's error body
 * (the agent kit's `errorDataSchema`, `{ error: { code, message, details? } }`) and, when code was
 * written, the program beside it.
 */
export const codeErrorDataSchema = errorDataSchema.extend({ code: z.string().optional() });
export type CodeErrorData = z.infer<typeof codeErrorDataSchema>;

/** Options for {@link codeResultData}. */
export interface CodeResultDataOptions {
  run: CodeRun;
  proposal: CodeProposal;
  /** False when the program ran without a person's approval. */
  approved: boolean;
}

/**
 * The result's data part for a finished run of `proposal` (files by name, type and size: their
 * bytes travel as file parts).
 *
 * @example
 * const data = codeResultData({ run, proposal, approved: true });
 */
export function codeResultData({ run, proposal, approved }: CodeResultDataOptions): CodeResultData {
  return {
    language: 'python',
    code: proposal.code,
    codeSource: proposal.source,
    stdout: run.stdout,
    stderr: run.stderr,
    exitCode: run.exitCode,
    ...(run.signal === undefined ? {} : { signal: run.signal }),
    outcome: run.outcome,
    limitMessage: run.limitMessage,
    stdoutTruncated: run.stdoutTruncated,
    stderrTruncated: run.stderrTruncated,
    durationMs: run.durationMs,
    files: run.files.map((file) => ({
      filename: file.filename,
      mediaType: file.mediaType,
      bytes: file.bytes.length,
    })),
    dataFiles: proposal.dataFiles,
    skippedFiles: run.skippedFiles,
    attempt: proposal.attempt,
    previousAttempts: proposal.previousAttempts,
    memory: run.memory,
    sandbox: run.mode,
    approved,
  };
}
