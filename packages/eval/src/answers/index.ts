/** The answer evaluation: `pnpm eval answers`. */
import { parseArgs } from 'node:util';
import { resolveUpstream } from '@fleet/llm';
import { loadAnswerCases, type AnswerCasePart } from './answer-cases';
import { evaluateAnswers, type AnswerProgress } from './evaluate-answers';
import { describeRun, formatAnswerReport, share, summarizeAnswers } from './format-answer-report';

export { ANSWER_CASES_DIR, loadAnswerCases } from './answer-cases';
export type { AnswerCase, AnswerCasePart, Fact, PartCase, Phrasing } from './answer-cases';
export { DEMO_CORPUS_DIR, evaluateAnswers } from './evaluate-answers';
export type {
  AnswerOutcome,
  AnswerProgress,
  AnswerRun,
  EvaluateAnswersOptions,
} from './evaluate-answers';
export { formatAnswerReport, isRight, share, summarizeAnswers } from './format-answer-report';
export type { AnswerSummary, Tally } from './format-answer-report';
export { missingFacts, normaliseForFacts } from './match-facts';

/** The share of held-out questions the offline answers must get right. */
export const ANSWER_GOAL = 0.9;

const HELP = `Usage: pnpm eval answers [options]

Asks the RAG agent questions over the demo corpus (services/rag-agent/demo-corpus), phrased as
people phrase them, and checks each answer for the facts it must state (packages/eval/cases/
answers-held-out.json and answers-tuning.json). The agent runs in this process with an embedded
database in a temporary directory; the corpus is ingested as \`pnpm fleet up\` does.

Prints the share right per document and per phrasing (held-out, tuning, all), overall, and every
miss. Exits 1 when the held-out share is under the goal.

Options:
  --llm             Answer with the configured upstream (OPENAI_BASE_URL, OPENAI_API_KEY,
                    LLM_MODEL, EMBEDDING_MODEL as the RAG agent reads them). Default: offline
                    (local hashed embeddings, extractive answers), whatever the environment says.
  --part <part>     Ask only the held-out or the tuning questions (held-out | tuning | all).
                    Default: all.
  --goal <share>    The held-out share to reach, 0..1. Default: ${ANSWER_GOAL}.
  --json            Print the run as JSON (summary and every outcome) instead of the report.
  -h, --help        This text.
`;

function describeProgress(progress: AnswerProgress): string {
  return progress.kind === 'ingest'
    ? `ingesting ${progress.file} (${progress.index + 1}/${progress.total})`
    : `asking ${progress.index + 1}/${progress.total} (${progress.id})`;
}

/** Progress on stderr: one updating line on a terminal, every file and tenth question otherwise. */
function progressWriter(): (progress: AnswerProgress) => void {
  const tty = process.stderr.isTTY;
  return (progress) => {
    const line = describeProgress(progress);
    if (tty) {
      process.stderr.write(`\r\x1b[K${line}`);
      if (progress.kind === 'ask' && progress.index + 1 === progress.total) {
        process.stderr.write('\n');
      }
    } else if (progress.kind === 'ingest' || progress.index % 10 === 0) {
      process.stderr.write(`${line}\n`);
    }
  };
}

/**
 * `pnpm eval answers [--llm] [--part held-out|tuning|all] [--goal 0.9] [--json]`: see
 * {@link HELP}. Resolves to the exit code: 0 when the held-out share reaches the goal, 1 when it
 * does not or the arguments are wrong, 2 when `--llm` finds no upstream configured.
 */
export async function runAnswersEval(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        llm: { type: 'boolean', default: false },
        part: { type: 'string', default: 'all' },
        goal: { type: 'string', default: String(ANSWER_GOAL) },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const goal = Number(values.goal);
  if (!Number.isFinite(goal) || goal < 0 || goal > 1) {
    process.stderr.write(`--goal must be a share between 0 and 1, not "${values.goal}".\n`);
    return 1;
  }
  if (!['held-out', 'tuning', 'all'].includes(values.part)) {
    process.stderr.write(`--part must be held-out, tuning or all, not "${values.part}".\n`);
    return 1;
  }
  // The CLI is this evaluation's composition root: with --llm it hands the RAG agent the
  // environment it would read itself (CONTRIBUTING.md convention 15 holds inside the agent).
  const environment = values.llm ? { ...process.env } : {};
  if (values.llm) {
    const upstream = resolveUpstream({
      apiKey: environment['OPENAI_API_KEY'],
      baseURL: environment['OPENAI_BASE_URL'],
    });
    if (upstream.offline) {
      process.stderr.write(
        'No upstream LLM is configured: --llm needs OPENAI_BASE_URL and/or OPENAI_API_KEY (and LLM_MODEL for another model than the default) in the environment. Run without --llm for the offline evaluation.\n',
      );
      return 2;
    }
  }
  const cases = (await loadAnswerCases()).filter(
    (entry) => values.part === 'all' || entry.part === (values.part as AnswerCasePart),
  );
  const onProgress = progressWriter();
  const run = await evaluateAnswers({ cases, environment, onProgress });
  const summary = summarizeAnswers(run.outcomes);
  const heldOut = share(summary.parts['held-out']);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ run: describeRun(run), mode: run.mode, upstream: run.upstream ?? null, embeddingModel: run.embeddingModel, documents: run.documents, goal, summary, outcomes: run.outcomes.map((outcome) => ({ id: outcome.case.id, part: outcome.case.part, document: outcome.case.document, phrasing: outcome.case.phrasing, question: outcome.case.question, right: outcome.missing.length === 0 && outcome.error === undefined, missing: outcome.missing, answeredBy: outcome.answeredBy ?? null, ...(outcome.error === undefined ? {} : { error: outcome.error }), answer: outcome.answer })) }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(formatAnswerReport({ run, goal }));
  }
  return heldOut === undefined || heldOut >= goal ? 0 : 1;
}
