import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { completeChat } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { keepCitedSources } from './keep-cited-sources';
import type { AnswerContext, SourceMaterial, WebAnswer } from './web-source';

/** Characters of all sources together in the prompt. */
const MAX_SOURCES_LENGTH = 24_000;
/** Characters of each earlier step's summary in the prompt. */
const MAX_CONTEXT_LENGTH = 2_000;

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

/** The user message: question, earlier steps, numbered sources. */
export function renderWebAnswerPrompt({
  question,
  materials,
  context = [],
}: {
  question: string;
  materials: readonly SourceMaterial[];
  context?: readonly AnswerContext[];
}): string {
  const budget = Math.floor(MAX_SOURCES_LENGTH / Math.max(1, materials.length));
  const sources = materials.map(({ source, text }, index) => {
    const body = text.length > budget ? `${text.slice(0, budget)}…` : text;
    const published =
      source.publishedDate === undefined ? '' : `, published ${source.publishedDate}`;
    return `[${index + 1}] ${source.title} (${source.url}${published})\n${body}`;
  });
  const sections = [`Question: ${question}`];
  if (context.length > 0) {
    const lines = context.map(
      ({ label, summary }) => `- ${label}: ${summary.slice(0, MAX_CONTEXT_LENGTH)}`,
    );
    sections.push(`Results of earlier steps (context, not sources):\n${lines.join('\n')}`);
  }
  sections.push(`Sources:\n\n${sources.join('\n\n')}`);
  return sections.join('\n\n');
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
}: AnswerWithLlmOptions): Promise<WebAnswer> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: WEB_ANSWER_INSTRUCTIONS },
    { role: 'user', content: renderWebAnswerPrompt({ question, materials, context }) },
  ];
  return withSpan(
    { name: 'web.answer', kind: SpanKind.LLM, input: question, tracer },
    async (span) => {
      const { content: answer } = await completeChat({
        client,
        model,
        messages,
        temperature: 0.1,
        signal,
        span,
      });
      const content = answer.trim();
      if (content === '') throw new Error('the model returned an empty answer');
      const cited = keepCitedSources({
        text: content,
        sources: materials.map((material) => material.source),
      });
      setSpanOutput(span, cited.text);
      return { ...cited, answeredBy: 'llm' };
    },
  );
}
