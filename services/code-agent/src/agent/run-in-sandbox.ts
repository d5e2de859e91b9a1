import {
  Attributes,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import { INPUTS_FILENAME } from '../authoring';
import type { CodeRun, Sandbox } from '../sandbox';
import type { CodeProposal } from './code-proposal';
import type { CodeTask } from './read-code-input';

/** Options for {@link runInSandbox}. */
export interface RunInSandboxOptions {
  sandbox: Sandbox;
  task: CodeTask;
  proposal: CodeProposal;
  signal: AbortSignal;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * Runs the proposed program in the sandbox, in a TOOL span (`code_agent.run_code`) that records
 * the attempt, the outcome and the exit code. The earlier steps' results are given to the program
 * as `inputs.json`, the step's own files read-only at `/data`.
 *
 * @example
 * const run = await runInSandbox({ sandbox, task, proposal, signal: context.signal });
 */
export function runInSandbox({
  sandbox,
  task,
  proposal,
  signal,
  tracer,
}: RunInSandboxOptions): Promise<CodeRun> {
  return withSpan(
    {
      name: 'code_agent.run_code',
      kind: SpanKind.TOOL,
      input: proposal.code,
      attributes: {
        [Attributes.TOOL_NAME]: 'run-python',
        'code_agent.attempt': proposal.attempt,
        'code_agent.sandbox': sandbox.mode,
        'code_agent.data_files': task.dataFiles.length,
      },
      tracer,
    },
    async (span) => {
      const result = await sandbox.run({
        code: proposal.code,
        inputFiles: { [INPUTS_FILENAME]: JSON.stringify(task.dependencyOutputs, null, 2) },
        dataFiles: task.dataFiles,
        signal,
      });
      span.setAttribute('code_agent.outcome', result.outcome);
      if (result.exitCode !== null) span.setAttribute('code_agent.exit_code', result.exitCode);
      setSpanOutput(span, {
        outcome: result.outcome,
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
        files: result.files.map((file) => file.filename),
      });
      return result;
    },
  );
}
