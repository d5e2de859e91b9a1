import type { AnswerCasePart } from './answer-cases';
import type { AnswerOutcome, AnswerRun } from './evaluate-answers';
import { describeFact } from './match-facts';

/** Share of questions right in one group. */
export interface Tally {
  right: number;
  total: number;
}

/** The shares right: per part, per document and per phrasing (each split by part), overall. */
export interface AnswerSummary {
  overall: Tally;
  parts: Record<AnswerCasePart, Tally>;
  documents: Record<string, Record<AnswerCasePart, Tally>>;
  phrasings: Record<string, Record<AnswerCasePart, Tally>>;
}

/** Lines of an answer shown for a miss. */
const MISS_LINES = 3;
/** Characters of an answer shown for a miss. */
const MISS_CHARS = 400;
/** Width of a table's first column (the longest demo file name and some). */
const LABEL_WIDTH = 38;

function emptyParts(): Record<AnswerCasePart, Tally> {
  return { 'held-out': { right: 0, total: 0 }, tuning: { right: 0, total: 0 } };
}

function add(tally: Tally, right: boolean): void {
  tally.total += 1;
  if (right) tally.right += 1;
}

/** Whether an outcome states every fact (and its task completed). */
export function isRight(outcome: AnswerOutcome): boolean {
  return outcome.missing.length === 0 && outcome.error === undefined;
}

/** Counts the outcomes per part, document and phrasing. */
export function summarizeAnswers(outcomes: readonly AnswerOutcome[]): AnswerSummary {
  const summary: AnswerSummary = {
    overall: { right: 0, total: 0 },
    parts: emptyParts(),
    documents: {},
    phrasings: {},
  };
  for (const outcome of outcomes) {
    const right = isRight(outcome);
    const { part, document, phrasing } = outcome.case;
    add(summary.overall, right);
    add(summary.parts[part], right);
    add((summary.documents[document] ??= emptyParts())[part], right);
    add((summary.phrasings[phrasing] ??= emptyParts())[part], right);
  }
  return summary;
}

/** The share of a tally as a percentage, `n/a` when empty. */
export function share(tally: Tally): number | undefined {
  return tally.total === 0 ? undefined : tally.right / tally.total;
}

function cell(tally: Tally): string {
  const value = share(tally);
  const text =
    value === undefined ? '-' : `${tally.right}/${tally.total} ${Math.round(value * 100)}%`;
  return text.padStart(12);
}

function combined(parts: Record<AnswerCasePart, Tally>): Tally {
  return {
    right: parts['held-out'].right + parts.tuning.right,
    total: parts['held-out'].total + parts.tuning.total,
  };
}

function table(title: string, rows: Record<string, Record<AnswerCasePart, Tally>>): string[] {
  const width = LABEL_WIDTH;
  const lines = [
    `${title.padEnd(width)}${'held-out'.padStart(12)}${'tuning'.padStart(12)}${'all'.padStart(12)}`,
  ];
  for (const [name, parts] of Object.entries(rows).sort(([left], [right]) =>
    left.localeCompare(right),
  )) {
    lines.push(
      `${name.padEnd(width)}${cell(parts['held-out'])}${cell(parts.tuning)}${cell(combined(parts))}`,
    );
  }
  return lines;
}

/** The first lines of an answer, for a miss. */
function opening(answer: string): string {
  if (answer.trim() === '') return '(no answer)';
  const lines = answer.trim().split('\n').slice(0, MISS_LINES).join('\n');
  return lines.length > MISS_CHARS ? `${lines.slice(0, MISS_CHARS)}…` : lines;
}

/** What the run was against, in one line. */
export function describeRun(run: Pick<AnswerRun, 'mode' | 'upstream' | 'embeddingModel'>): string {
  return run.upstream === undefined
    ? `offline (extractive answers, ${run.embeddingModel} embeddings)`
    : `with upstream ${run.upstream.baseURL} (model ${run.upstream.model}, ${run.embeddingModel} embeddings)`;
}

/**
 * The printed report: what ran, the share right per document and per phrasing (held-out, tuning,
 * all), per part and overall, whether the held-out part meets `goal`, and every miss with the
 * facts missing and the answer's first lines.
 */
export function formatAnswerReport({ run, goal }: { run: AnswerRun; goal: number }): string {
  const summary = summarizeAnswers(run.outcomes);
  const heldOut = share(summary.parts['held-out']);
  const lines = [
    `Answer evaluation, ${describeRun(run)}: ${run.outcomes.length} questions over ${run.documents.length} documents`,
    '',
    ...table('document', summary.documents),
    '',
    ...table('phrasing', summary.phrasings),
    '',
    `${'overall'.padEnd(LABEL_WIDTH)}${cell(summary.parts['held-out'])}${cell(summary.parts.tuning)}${cell(summary.overall)}`,
    '',
    heldOut === undefined
      ? 'No held-out questions were asked.'
      : `Held-out: ${Math.round(heldOut * 100)}% right (goal ${Math.round(goal * 100)}%): ${heldOut >= goal ? 'met' : 'NOT met'}.`,
  ];
  const misses = run.outcomes.filter((outcome) => !isRight(outcome));
  lines.push('', misses.length === 0 ? 'No misses.' : `Misses (${misses.length}):`);
  for (const outcome of misses) {
    const { id, part, document, phrasing, question } = outcome.case;
    lines.push(
      '',
      `[${part}] ${id} (${document}, ${phrasing}): ${question}`,
      `  missing: ${outcome.missing.map(describeFact).join(', ')}`,
      ...(outcome.error === undefined ? [] : [`  failed: ${outcome.error}`]),
      ...opening(outcome.answer)
        .split('\n')
        .map((line, index) => `  ${index === 0 ? 'answer: ' : '        '}${line}`),
    );
  }
  return `${lines.join('\n')}\n`;
}
