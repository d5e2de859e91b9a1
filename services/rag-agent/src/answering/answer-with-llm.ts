import type OpenAI from 'openai';
import {
  answerWithSources,
  renderSourcesPrompt,
  streamAnswerWithSources,
  type AnswerContext,
} from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import { leadingNotes, type Retrieval, type RetrievedChunk } from '../retrieval';
import type { Answer } from './answer';
import { groupSources, keepCitedSources, keepSourcesCited } from './group-sources';

export type { AnswerContext } from '@fleet/llm';

/** Options for {@link answerWithLlm}. */
export interface AnswerWithLlmOptions {
  client: OpenAI;
  model: string;
  question: string;
  retrieval: Retrieval;
  /** Results of the plan's earlier steps (dependency outputs). */
  context?: readonly AnswerContext[];
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** A parent span longer than this is replaced by its matching children. */
const MAX_PARENT_LENGTH = 6_000;

/** The system prompt of the answer call. */
export const ANSWER_INSTRUCTIONS = [
  'You answer questions from a document library, using ONLY the numbered sources given with the question.',
  'Cite every claim right after it with the number of its source in brackets, like [1] or [2][3].',
  'Never cite a number that is not in the list, and do not write a list of sources.',
  'Do not use outside knowledge and never invent facts, numbers, names or dates.',
  'If the sources do not contain the answer, say plainly that the documents do not say, and mention what they do cover when it is related.',
  'Results of earlier steps may be given as context: use them to understand the question, but cite only the numbered sources.',
  'Answer concisely: a few sentences or a short list.',
].join(' ');

/** The text a source shows the model: the parent span around its best chunk, or its chunks. */
function sourceText(group: readonly RetrievedChunk[]): string {
  const best = group[0];
  const parent = best?.parentText;
  if (parent !== undefined && parent.length <= MAX_PARENT_LENGTH) {
    // A parent already holds its children; other chunks of the group may lie outside it.
    const outside = group.slice(1).filter((chunk) => !parent.includes(chunk.text));
    return [parent, ...outside.map((chunk) => chunk.text)].join('\n…\n');
  }
  return group.map((chunk) => chunk.text).join('\n…\n');
}

/** The user message: question, earlier steps, numbered sources (see `renderSourcesPrompt`). */
export function renderAnswerPrompt({
  question,
  titles,
  texts,
  context = [],
}: {
  question: string;
  titles: readonly string[];
  texts: readonly string[];
  context?: readonly AnswerContext[];
}): string {
  const sources = texts.map((text, index) => ({ heading: titles[index] ?? '', text }));
  return renderSourcesPrompt({ question, sources, context });
}

/**
 * The online answer: one chat completion, in an LLM span, that answers from the numbered sources
 * only (one per document section, see `groupSources`) with `[n]` markers and says so when the
 * documents do not hold the answer. Markers that point at no source are dropped and only cited
 * sources are kept (renumbered). The search notice (full-text search only) and the filter
 * fallback note lead the text.
 *
 * @throws the LLM call's error (`toLlmError`), or an Error for an empty answer: the caller falls
 *   back to the extractive answer.
 * @example
 * const answer = await answerWithLlm({ client, model, question, retrieval });
 */
export async function answerWithLlm({
  client,
  model,
  question,
  retrieval,
  context = [],
  signal,
  tracer,
}: AnswerWithLlmOptions): Promise<Answer> {
  const { sources, groups, chunks } = groupSources(retrieval.chunks);
  return answerWithSources({
    client,
    model,
    instructions: ANSWER_INSTRUCTIONS,
    question,
    sources: groups.map((group, index) => ({
      heading: sources[index]?.title ?? '',
      text: sourceText(group),
    })),
    context,
    spanName: 'rag.answer',
    signal,
    tracer,
    cite: (content): Answer => {
      const note = leadingNotes(retrieval, '\n\n');
      const cited = keepCitedSources({ text: `${note}${content}`, sources, chunks });
      return { ...cited, confidence: retrieval.confidence, answeredBy: 'llm' };
    },
  });
}

/**
 * {@link answerWithLlm}, streamed: the same prompt in one streamed chat completion, yielding the
 * answer in pieces as the model writes it (the search and filter notes first). Its markers are
 * renumbered as they come, in the order the answer first cites its sources (the source order of
 * the non-streamed answer is only known once the text is complete); `sources` and the chunks'
 * `source` follow the same numbering. The pieces join to the returned `text`.
 *
 * @throws the LLM call's error (`toLlmError`), also after some pieces, or an Error for an empty
 *   answer: the caller falls back to the extractive answer.
 * @example
 * const answer = yield* resultChunks(artifactId, streamAnswerWithLlm({ client, model, question, retrieval }));
 */
export async function* streamAnswerWithLlm({
  client,
  model,
  question,
  retrieval,
  context = [],
  signal,
  tracer,
}: AnswerWithLlmOptions): AsyncGenerator<string, Answer, undefined> {
  const { sources, groups, chunks } = groupSources(retrieval.chunks);
  const stream = streamAnswerWithSources({
    client,
    model,
    instructions: ANSWER_INSTRUCTIONS,
    question,
    sources: groups.map((group, index) => ({
      heading: sources[index]?.title ?? '',
      text: sourceText(group),
    })),
    context,
    spanName: 'rag.answer',
    trimRemoved: true,
    signal,
    tracer,
  });
  const note = leadingNotes(retrieval, '\n\n');
  let next = await stream.next();
  // The note leads the text once the model has said something (an empty answer falls back).
  if (note !== '' && next.done !== true) yield note;
  while (next.done !== true) {
    yield next.value;
    next = await stream.next();
  }
  const { text, cited } = next.value;
  return {
    text: `${note}${text}`,
    ...keepSourcesCited({ cited, sources, chunks }),
    confidence: retrieval.confidence,
    answeredBy: 'llm',
  };
}
