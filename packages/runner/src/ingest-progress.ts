import type { DocumentInfo } from '@fleet/a2a';
import type { IngestOutcome } from './ingest-documents';
import { padEnd, type OutputStream, type Palette } from './terminal';

/** Options for {@link IngestProgress}. */
export interface IngestProgressOptions {
  /** Where the per-file results go. */
  stdout: OutputStream;
  /** Where the bar is drawn (on a terminal only). */
  stderr: OutputStream;
  palette: Palette;
  /** How many files will be sent. */
  total: number;
  /** How a file is shown (e.g. relative to where the command was typed). */
  display: (file: string) => string;
}

const BAR_WIDTH = 24;

/** `12 chunks`, `1 chunk`. */
export function chunkCount(chunks: number): string {
  return `${chunks} chunk${chunks === 1 ? '' : 's'}`;
}

/**
 * `fleet ingest`'s output: one line per file as its result arrives (✔ new, = unchanged, ✖ failed)
 * and, on a terminal, a bar below them with the file being sent. Without a terminal only the
 * result lines are written, so logs stay readable.
 */
export class IngestProgress {
  readonly #options: IngestProgressOptions;
  readonly #live: boolean;
  readonly #width: number;
  #done = 0;
  #current = '';
  #barShown = false;

  constructor(options: IngestProgressOptions & { files: readonly string[] }) {
    this.#options = options;
    this.#live = options.stderr.isTTY === true;
    this.#width = Math.min(
      Math.max(...options.files.map((file) => options.display(file).length), 0),
      60,
    );
  }

  /** A file is being sent. */
  start(file: string): void {
    this.#current = this.#options.display(file);
    this.#draw();
  }

  /** A file's outcome: printed above the bar. */
  result(outcome: IngestOutcome): void {
    this.#done += 1;
    this.#clear();
    this.#options.stdout.write(`${this.#line(outcome)}\n`);
    this.#draw();
  }

  /** Removes the bar. */
  stop(): void {
    this.#clear();
  }

  #line(outcome: IngestOutcome): string {
    const { palette, display } = this.#options;
    const name = padEnd(display(outcome.file), this.#width);
    switch (outcome.status) {
      case 'ingested':
        return `  ${palette.green('✔')} ${name}  ${chunkCount(outcome.document.chunks)} (${outcome.document.docType})${this.#warnings(outcome.document)}`;
      case 'duplicate':
        return `  ${palette.dim('=')} ${name}  ${palette.dim(`unchanged: already ingested (${chunkCount(outcome.document.chunks)})`)}`;
      case 'failed':
        return `  ${palette.red('✖')} ${name}  ${palette.red(outcome.error)}`;
    }
  }

  /** A stored document that was cut short: `(truncated)` and one `⚠` line per reason the agent gave. */
  #warnings(document: DocumentInfo): string {
    const { palette } = this.#options;
    if (document.truncated !== true && (document.warnings ?? []).length === 0) return '';
    const reasons = (document.warnings ?? []).map(
      (warning) => `\n      ${palette.yellow('⚠')} ${palette.yellow(warning)}`,
    );
    return `${palette.yellow(document.truncated === true ? '  (truncated)' : '')}${reasons.join('')}`;
  }

  #clear(): void {
    if (!this.#live || !this.#barShown) return;
    this.#options.stderr.write('\r\u001b[2K');
    this.#barShown = false;
  }

  #draw(): void {
    if (!this.#live || this.#done >= this.#options.total) return;
    const { palette, total } = this.#options;
    const filled = Math.round((this.#done / Math.max(total, 1)) * BAR_WIDTH);
    const bar = `${'█'.repeat(filled)}${palette.dim('░'.repeat(BAR_WIDTH - filled))}`;
    this.#options.stderr.write(
      `\r\u001b[2K  ${bar} ${this.#done}/${total}  ${palette.dim(this.#current)}`,
    );
    this.#barShown = true;
  }
}

/** Counts of a run's outcomes. */
export interface IngestSummary {
  ingested: number;
  duplicate: number;
  failed: number;
  /** Chunks stored for the new documents. */
  chunks: number;
}

/** Tallies outcomes. */
export function summarizeIngest(outcomes: readonly IngestOutcome[]): IngestSummary {
  const summary: IngestSummary = { ingested: 0, duplicate: 0, failed: 0, chunks: 0 };
  for (const outcome of outcomes) {
    summary[outcome.status] += 1;
    if (outcome.status === 'ingested') summary.chunks += outcome.document.chunks;
  }
  return summary;
}

/** `2 new (54 chunks), 1 unchanged, 1 failed`: the parts that are not zero. */
export function describeSummary(summary: IngestSummary): string {
  const parts: string[] = [];
  if (summary.ingested > 0) parts.push(`${summary.ingested} new (${chunkCount(summary.chunks)})`);
  if (summary.duplicate > 0) parts.push(`${summary.duplicate} unchanged`);
  if (summary.failed > 0) parts.push(`${summary.failed} failed`);
  return parts.length === 0 ? 'nothing sent' : parts.join(', ');
}
