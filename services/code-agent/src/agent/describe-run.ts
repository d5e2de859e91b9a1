import type { Part } from '@fleet/a2a';
import { formatBytes, type CodeRun } from '../sandbox';
import { tail } from '../text';
import type { CodeResultData } from './result-data';

/** Characters of stdout and stderr quoted in the result's text part. */
const MAX_QUOTED_OUTPUT = 3_000;

/**
 * The result's text part: how the run ended, what it printed (and, when it failed, its errors),
 * the files it wrote and, after a fix, which attempt this was.
 *
 * @example
 * describeRun(run, data); // 'Ran the Python program (exit code 0, 0.1 s).\n\nOutput:\n42'
 */
export function describeRun(run: CodeRun, data: CodeResultData): string {
  const lines: string[] = [];
  const how =
    run.outcome === 'ok'
      ? `Ran the Python program (exit code 0, ${(run.durationMs / 1000).toFixed(1)} s).`
      : run.limitMessage !== null
        ? `The Python program was stopped. ${run.limitMessage}`
        : `The Python program failed (exit code ${String(run.exitCode)}).`;
  lines.push(how);
  if (run.stdout.trim() !== '') {
    lines.push(
      `Output:\n${run.stdout.length > MAX_QUOTED_OUTPUT ? `${run.stdout.slice(0, MAX_QUOTED_OUTPUT)}…` : run.stdout.trimEnd()}`,
    );
  } else {
    lines.push('It printed nothing.');
  }
  if (run.outcome !== 'ok' && run.stderr.trim() !== '') {
    lines.push(`Errors:\n${tail(run.stderr.trimEnd(), MAX_QUOTED_OUTPUT)}`);
  }
  if (data.files.length > 0) {
    lines.push(
      `Files written: ${data.files.map((file) => `${file.filename} (${file.mediaType}, ${formatBytes(file.bytes)})`).join(', ')}.`,
    );
  }
  if (data.previousAttempts.length > 0) {
    lines.push(
      `This is attempt ${data.attempt}: the earlier program${data.previousAttempts.length === 1 ? '' : 's'} failed and ${data.previousAttempts.length === 1 ? 'was' : 'were'} fixed.`,
    );
  }
  return lines.join('\n\n');
}

/** One file part per file the run wrote, its bytes base64-encoded, for the result artifact. */
export function fileParts(run: CodeRun): Part[] {
  return run.files.map((file) => ({
    raw: file.bytes.toString('base64'),
    filename: file.filename,
    mediaType: file.mediaType,
  }));
}
