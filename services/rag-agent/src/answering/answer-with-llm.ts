import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { completeChat } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import type { Retrieval, RetrievedChunk } from '../retrieval';
import type { Answer } from './answer';
import { groupSources, keepCitedSources } from './group-sources';

/** Earlier steps' results a plan node hands on: context, not citable sources. */
export interface AnswerContext {
  /** The step's node id or agent, as a heading. */
  label: string;
  summary: string;
}

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

/** Characters of all sources together in the prompt. */
const MAX_SOURCES_LENGTH = 24_000;
/** A parent span longer than this is replaced by its matching children. */
const MAX_PARENT_LENGTH = 6_000;
/** Characters of each earlier step's summary in the prompt. */
const MAX_CONTEXT_LENGTH = 2_000;

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

/** The user message: question, earlier steps, numbered sources. */
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
  const budget = Math.floor(MAX_SOURCES_LENGTH / Math.max(1, texts.length));
  const sources = texts.map((text, index) => {
    const body = text.length > budget ? `${text.slice(0, budget)}…` : text;
    return `[${index + 1}] ${titles[index] ?? ''}\n${body}`;
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

/**
 * The online answer: one chat completion, in an LLM span, that answers from the numbered sources
 * only (one per document section, see `groupSources`) with `[n]` markers and says so when the
 * documents do not hold the answer. Markers that point at no source are dropped and only cited
 * sources are kept (renumbered). A filter fallback note leads the text.
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
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: ANSWER_INSTRUCTIONS },
    {
      role: 'user',
      content: renderAnswerPrompt({
        question,
        titles: sources.map((source) => source.title),
        texts: groups.map(sourceText),
        context,
      }),
    },
  ];
  return withSpan(
    { name: 'rag.answer', kind: SpanKind.LLM, input: question, tracer },
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
      const note = retrieval.filters.note === undefined ? '' : `${retrieval.filters.note}\n\n`;
      const cited = keepCitedSources({ text: `${note}${content}`, sources, chunks });
      setSpanOutput(span, cited.text);
      return {
        ...cited,
        confidence: retrieval.confidence,
        answeredBy: 'llm',
      };
    },
  );
}
