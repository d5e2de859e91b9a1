import type OpenAI from 'openai';
import {
  answerWithSources,
  currentDateLine,
  systemClock,
  type Clock,
  renderSourcesPrompt,
  streamAnswerWithSources,
  type NumberedSource,
} from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import { createCitationTidier, keepCitedSources } from './keep-cited-sources';
import type { AnswerContext, SourceMaterial, WebAnswer } from './web-source';

/** The system prompt of the answer call. */
export const WEB_ANSWER_INSTRUCTIONS = [
  'You answer questions from web search results and pages, using ONLY the numbered sources given with the question.',
  'Cite every claim right after it with the number of its source in brackets, like [1] or [2][3].',
  'Never cite a number that is not in the list, and do not write a list of sources.',
  'Do not use outside knowledge and never invent facts, numbers, names or dates; when sources disagree, say so.',
  'Mention dates when the question is about news or recent events.',
  'If the sources do not contain the answer, say plainly that the web results do not say.',
  'Results of earlier steps may be given as context: use them to understand the question, but cite only the numbered sources.',
  'Answer concisely: a few sentences or a short list.',
].join(' ');

/** A source as the model sees it: `title (url, published date)` and the text. */
function numberedSource({ source, text }: SourceMaterial): NumberedSource {
  const published = source.publishedDate === undefined ? '' : `, published ${source.publishedDate}`;
  return { heading: `${source.title} (${source.url}${published})`, text };
}

/** The user message: question, earlier steps, numbered sources (see `renderSourcesPrompt`). */
export function renderWebAnswerPrompt({
  question,
  materials,
  context = [],
}: {
  question: string;
  materials: readonly SourceMaterial[];
  context?: readonly AnswerContext[];
}): string {
  return renderSourcesPrompt({ question, sources: materials.map(numberedSource), context });
}

/** Options for {@link answerWithLlm}. */
export interface AnswerWithLlmOptions {
  client: OpenAI;
  model: string;
  question: string;
  materials: readonly SourceMaterial[];
  context?: readonly AnswerContext[];
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
  /** The clock the prompt's date line reads ({@link webAnswerInstructions}). @default the system clock */
  clock?: Clock | undefined;
}

/**
 * The system prompt with the current date and time first: "latest", "this year" or "how long
 * ago" are read against it, and a source's date is weighed by it.
 */
export function webAnswerInstructions(now: Date): string {
  return `${currentDateLine(now)}\n${WEB_ANSWER_INSTRUCTIONS}`;
}

/**
 * The online answer: one chat completion, in an LLM span, from the numbered sources only, with
 * `[n]` markers; markers that point at no source are dropped and only cited sources are kept.
 *
 * @throws the LLM call's error (`toLlmError`), or an Error for an empty answer: the caller falls
 *   back to the extractive answer.
 * @example
 * const answer = await answerWithLlm({ client, model, question, materials });
 */
export async function answerWithLlm({
  client,
  model,
  question,
  materials,
  context = [],
  signal,
  tracer,
  clock = systemClock,
}: AnswerWithLlmOptions): Promise<WebAnswer> {
  return answerWithSources({
    client,
    model,
    instructions: webAnswerInstructions(clock()),
    question,
    sources: materials.map(numberedSource),
    context,
    spanName: 'web.answer',
    signal,
    tracer,
    cite: (content): WebAnswer => ({
      ...keepCitedSources({ text: content, sources: materials.map((material) => material.source) }),
      answeredBy: 'llm',
    }),
  });
}

/**
 * {@link answerWithLlm}, streamed: yields the answer in pieces as the model writes it, its
 * markers renumbered in first-cited order and tidied as {@link keepCitedSources} does, and returns
 * the whole answer (its `text` is the pieces joined) with the cited sources in marker order.
 *
 * @throws the LLM call's error (`toLlmError`), also after some pieces, or an Error for an empty
 *   answer: the caller falls back to the extractive answer.
 * @example
 * const answer = yield* resultChunks(artifactId, streamAnswerWithLlm({ client, model, question, materials }));
 */
export async function* streamAnswerWithLlm({
  client,
  model,
  question,
  materials,
  context = [],
  signal,
  tracer,
  clock = systemClock,
}: AnswerWithLlmOptions): AsyncGenerator<string, WebAnswer, undefined> {
  const stream = streamAnswerWithSources({
    client,
    model,
    instructions: webAnswerInstructions(clock()),
    question,
    sources: materials.map(numberedSource),
    context,
    spanName: 'web.answer',
    trimRemoved: false,
    signal,
    tracer,
  });
  const tidy = createCitationTidier();
  let text = '';
  let next = await stream.next();
  while (next.done !== true) {
    const piece = tidy.push(next.value);
    if (piece !== '') {
      text += piece;
      yield piece;
    }
    next = await stream.next();
  }
  text += tidy.end();
  const { cited } = next.value;
  return {
    text,
    sources: cited.flatMap((number) => materials[number - 1]?.source ?? []),
    answeredBy: 'llm',
  };
}
