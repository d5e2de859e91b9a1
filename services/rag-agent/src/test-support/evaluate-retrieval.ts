import type { Answerer } from '../answering';
import type { Retriever } from '../retrieval';
import type { DemoQuestion } from './demo-corpus';

/** How one labelled question fared. */
export interface QuestionOutcome {
  id: string;
  question: string;
  expected: string;
  /** 1-based rank of the first chunk from the expected document, if within the chunks returned. */
  rank: number | undefined;
  /** True when that rank is at most k. */
  hit: boolean;
  /** The top chunk's document. */
  top: string | undefined;
  /** Whether the answer contains `mustContain` (when answers were evaluated). */
  answered?: boolean;
}

/** The retrieval quality over a question set. */
export interface RetrievalEvaluation {
  k: number;
  outcomes: QuestionOutcome[];
  /** Share of questions whose expected document is among the top-k chunks. */
  hitRate: number;
  /** Mean reciprocal rank of the expected document (0 when absent). */
  mrr: number;
  /** Share of answers containing their phrase, when answers were evaluated. */
  answerRate?: number;
}

/**
 * Runs every labelled question through the retriever (and the answerer, when given) and measures
 * hit@k: a question is a hit when a chunk of its expected document is among the first k chunks.
 */
export async function evaluateRetrieval({
  retriever,
  answerer,
  tenant,
  questions,
  k = 5,
}: {
  retriever: Retriever;
  answerer?: Answerer;
  tenant: string;
  questions: readonly DemoQuestion[];
  k?: number;
}): Promise<RetrievalEvaluation> {
  const outcomes: QuestionOutcome[] = [];
  for (const question of questions) {
    const retrieval = await retriever.retrieve({ tenant, question: question.question });
    const index = retrieval.chunks.findIndex((chunk) => chunk.filename === question.filename);
    const rank = index < 0 ? undefined : index + 1;
    const outcome: QuestionOutcome = {
      id: question.id,
      question: question.question,
      expected: question.filename,
      rank,
      hit: rank !== undefined && rank <= k,
      top: retrieval.chunks[0]?.filename,
    };
    if (answerer) {
      const answer = await answerer.answer({ question: question.question, retrieval });
      outcome.answered = answer.text.toLowerCase().includes(question.mustContain.toLowerCase());
    }
    outcomes.push(outcome);
  }
  const count = Math.max(1, outcomes.length);
  const evaluation: RetrievalEvaluation = {
    k,
    outcomes,
    hitRate: outcomes.filter((outcome) => outcome.hit).length / count,
    mrr: outcomes.reduce((sum, outcome) => sum + (outcome.rank ? 1 / outcome.rank : 0), 0) / count,
  };
  if (answerer) {
    evaluation.answerRate = outcomes.filter((outcome) => outcome.answered).length / count;
  }
  return evaluation;
}

/** The evaluation as a console table, one row per question, then the totals. */
export function formatEvaluation(title: string, evaluation: RetrievalEvaluation): string {
  const rows = evaluation.outcomes.map((outcome) => {
    const answered = outcome.answered === undefined ? '' : ` | ${outcome.answered ? 'yes' : 'NO '}`;
    return `${outcome.id} | ${outcome.hit ? 'hit ' : 'MISS'} | ${String(outcome.rank ?? '-').padStart(2)} | ${outcome.expected.padEnd(36)} | ${(outcome.top ?? '-').padEnd(36)}${answered}`;
  });
  const totals = [
    `hit@${evaluation.k} = ${evaluation.hitRate.toFixed(2)}`,
    `MRR = ${evaluation.mrr.toFixed(2)}`,
    ...(evaluation.answerRate === undefined
      ? []
      : [`answer contains phrase = ${evaluation.answerRate.toFixed(2)}`]),
  ].join(', ');
  const header = `id  | hit? | rank | expected document${' '.repeat(19)} | top document${' '.repeat(24)}${evaluation.answerRate === undefined ? '' : ' | answer ok'}`;
  return [`${title}: ${totals}`, header, ...rows].join('\n');
}
