import type { DependencyOutput } from '@fleet/a2a';
import type { DataFile } from '../sandbox';

/** A run that failed, handed to the model to fix. */
export interface FailedAttempt {
  code: string;
  exitCode: number | null;
  stderr: string;
  stdout: string;
  /** What a limit did, when one stopped it. */
  limitMessage: string | null;
}

/** What the program is for: the task, the earlier steps' results, a failed attempt to fix. */
export interface CodeRequest {
  task: string;
  /** The plan's earlier steps, by node id; also given to the program as `inputs.json`. */
  dependencyOutputs: Readonly<Record<string, DependencyOutput>>;
  /** The step's own files, which the program reads at `/data/<name>`. */
  dataFiles?: readonly DataFile[] | undefined;
  /** Instructions a person gave with the approval decision. */
  instructions?: string | undefined;
  previousAttempt?: FailedAttempt | undefined;
}
