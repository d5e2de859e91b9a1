import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  Attributes,
  getTracer,
  recordError,
  setSpanInput,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import { completeChat } from './complete-chat';
import { streamChat } from './stream-chat';

/** Earlier plan steps' results a node hands on: context for the question, never citable sources. */
export interface AnswerContext {
  /** The step's node id or agent, as a heading. */
  label: string;
  summary: string;
}

/** A source the model may cite as `[n]`, by its position in the list (from 1). */
export interface NumberedSource {
  /** What follows `[n]` on the source's first line: its title, and whatever else identifies it. */
  heading: string;
  text: string;
}

/** Characters of all sources together in the prompt. */
const MAX_SOURCES_LENGTH = 24_000;
/** Characters of each earlier step's summary in the prompt. */
const MAX_CONTEXT_LENGTH = 2_000;

/** Options for {@link renderSourcesPrompt}. */
export interface RenderSourcesPromptOptions {
  question: string;
  sources: readonly NumberedSource[];
  /** @default [] */
  context?: readonly AnswerContext[] | undefined;
}

/**
 * The user message of an answer from numbered sources: the question, the earlier steps' results
 * (each summary cut at 2,000 characters), then the sources as `[n] heading` and text, sharing
 * 24,000 characters equally (a longer text is cut and ends in `…`).
 *
 * @example
 * renderSourcesPrompt({ question: 'When?', sources: [{ heading: 'Release notes', text: '…' }] });
 * // 'Question: When?\n\nSources:\n\n[1] Release notes\n…'
 */
export function renderSourcesPrompt({
  question,
  sources,
  context = [],
}: RenderSourcesPromptOptions): string {
  const budget = Math.floor(MAX_SOURCES_LENGTH / Math.max(1, sources.length));
  const numbered = sources.map(({ heading, text }, index) => {
    const body = text.length > budget ? `${text.slice(0, budget)}…` : text;
    return `[${index + 1}] ${heading}\n${body}`;
  });
  const sections = [`Question: ${question}`];
  if (context.length > 0) {
    const lines = context.map(
      ({ label, summary }) => `- ${label}: ${summary.slice(0, MAX_CONTEXT_LENGTH)}`,
    );
    sections.push(`Results of earlier steps (context, not sources):\n${lines.join('\n')}`);
  }
  sections.push(`Sources:\n\n${numbered.join('\n\n')}`);
  return sections.join('\n\n');
}

// `[2]`, and grouped forms such as `[1, 3]`, with the spaces before them.
const MARKER = /([ \t]*)\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** The numbers of a marker's list: `1, 3` → `[1, 3]`. */
function markerNumbers(list: string): number[] {
  return list.split(',').map((item) => Number(item.trim()));
}

/** Options for {@link renumberCitations}. */
export interface RenumberCitationsOptions {
  /** Text with `[n]` markers (`[1, 3]` cites two sources). */
  text: string;
  /** How many sources there are: markers outside 1..sourceCount point at nothing. */
  sourceCount: number;
  /**
   * The new numbering: `source` keeps the sources' own order, `first-cited` numbers them in the
   * order the text first cites them.
   */
  order: 'source' | 'first-cited';
  /** Remove the spaces and tabs before a marker that is removed (`Fact [9].` → `Fact.`). */
  trimRemoved: boolean;
}

/** What {@link renumberCitations} returns. */
export interface RenumberedCitations {
  /** The text with its markers renumbered, `[1, 3]` written `[1][3]`. */
  text: string;
  /** The cited sources' old numbers in their new order: `cited[k - 1]` is now `[k]`. */
  cited: number[];
}

/**
 * Renumbers a text's `[n]` citations so that only cited sources are numbered, 1..m. Numbers
 * outside 1..`sourceCount` are dropped, and a marker left with none is removed (with the spaces
 * before it when `trimRemoved`).
 *
 * @example
 * renumberCitations({ text: 'B [3]. A [1, 9].', sourceCount: 3, order: 'source', trimRemoved: true });
 * // { text: 'B [2]. A [1].', cited: [1, 3] }
 */
export function renumberCitations({
  text,
  sourceCount,
  order,
  trimRemoved,
}: RenumberCitationsOptions): RenumberedCitations {
  const cited: number[] = [];
  for (const match of text.matchAll(MARKER)) {
    for (const number of markerNumbers(match[2] ?? '')) {
      if (number >= 1 && number <= sourceCount && !cited.includes(number)) cited.push(number);
    }
  }
  if (order === 'source') cited.sort((left, right) => left - right);
  const renumber = new Map(cited.map((old, index) => [old, index + 1]));
  const rewritten = text.replace(MARKER, (_marker, space: string, list: string) => {
    const markers = markerNumbers(list)
      .map((number) => renumber.get(number))
      .filter((number) => number !== undefined)
      .map((number) => `[${number}]`)
      .join('');
    return markers === '' && trimRemoved ? '' : `${space}${markers}`;
  });
  return { text: rewritten, cited };
}

/** Options for {@link answerWithSources}. */
export interface AnswerWithSourcesOptions<Answer extends { text: string }> {
  client: OpenAI;
  model: string;
  /** The system prompt: how to answer from the numbered sources and cite them. */
  instructions: string;
  question: string;
  sources: readonly NumberedSource[];
  /** Results of the plan's earlier steps. @default [] */
  context?: readonly AnswerContext[] | undefined;
  /** The LLM span's name (`rag.answer`, `web.answer`). */
  spanName: string;
  /**
   * Turns the model's answer (trimmed, never empty) into the caller's, typically with
   * {@link renumberCitations}; its `text` is the span's output.
   */
  cite: (content: string) => Answer;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * An answer written by the model from numbered sources only: one chat completion (temperature
 * 0.1) in an LLM span, the instructions as the system message and {@link renderSourcesPrompt} as
 * the user message; `cite` checks and renumbers the `[n]` markers of what comes back.
 *
 * @throws the LLM call's error (`toLlmError`), or an Error for an empty answer: callers fall back
 *   to an extractive answer ({@link withExtractiveFallback}).
 * @example
 * const answer = await answerWithSources({
 *   client, model, instructions, question, sources, spanName: 'web.answer',
 *   cite: (content) =>
 *     renumberCitations({ text: content, sourceCount: sources.length, order: 'source', trimRemoved: true }),
 * });
 */
export async function answerWithSources<Answer extends { text: string }>({
  client,
  model,
  instructions,
  question,
  sources,
  context = [],
  spanName,
  cite,
  signal,
  tracer,
}: AnswerWithSourcesOptions<Answer>): Promise<Answer> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: renderSourcesPrompt({ question, sources, context }) },
  ];
  return withSpan({ name: spanName, kind: SpanKind.LLM, input: question, tracer }, async (span) => {
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
    const cited = cite(content);
    setSpanOutput(span, cited.text);
    return cited;
  });
}

// What may still become a marker at the end of a piece: spaces, then `[`, digits, commas.
const PARTIAL_MARKER = /[ \t]*(?:\[(?:\d+(?:\s*,\s*\d+)*(?:\s*,?\s*)?)?)?$/;

/** Options for {@link createCitationRenumberer}. */
export interface CitationRenumbererOptions {
  /** How many sources there are: markers outside 1..sourceCount point at nothing. */
  sourceCount: number;
  /** Remove the spaces and tabs before a marker that is removed (`Fact [9].` → `Fact.`). */
  trimRemoved: boolean;
}

/** Renumbers the `[n]` markers of a text arriving in pieces ({@link createCitationRenumberer}). */
export interface CitationRenumberer {
  /** Takes the next piece of the text; returns what can be sent now, renumbered (maybe ''). */
  push(piece: string): string;
  /** The text held back at the end (an incomplete marker stays as written). */
  end(): string;
  /** The cited sources' old numbers in first-cited order: `cited[k - 1]` is now `[k]`. */
  readonly cited: readonly number[];
}

/**
 * {@link renumberCitations} in `first-cited` order for a text that arrives in pieces (a streamed
 * answer): each piece is rewritten as soon as it cannot change any more, holding back only what
 * may still become a marker (spaces, then an unfinished `[1, 2`). The pieces it returns join to
 * exactly what `renumberCitations({ text: <all pieces>, order: 'first-cited', … }).text` gives.
 * Source order cannot be known before the text has ended, so it is not offered.
 *
 * @example
 * const renumberer = createCitationRenumberer({ sourceCount: 3, trimRemoved: true });
 * renumberer.push('B [3'); // 'B'
 * renumberer.push(']. A [1].'); // ' [1]. A [2].'
 * renumberer.end(); // ''
 * renumberer.cited; // [3, 1]
 */
export function createCitationRenumberer({
  sourceCount,
  trimRemoved,
}: CitationRenumbererOptions): CitationRenumberer {
  const cited: number[] = [];
  const renumber = new Map<number, number>();
  let held = '';
  const rewrite = (text: string): string =>
    text.replace(MARKER, (_marker, space: string, list: string) => {
      const markers = markerNumbers(list)
        .filter((number) => number >= 1 && number <= sourceCount)
        .map((number) => {
          let renumbered = renumber.get(number);
          if (renumbered === undefined) {
            cited.push(number);
            renumbered = cited.length;
            renumber.set(number, renumbered);
          }
          return `[${renumbered}]`;
        })
        .join('');
      return markers === '' && trimRemoved ? '' : `${space}${markers}`;
    });
  return {
    push(piece) {
      const text = held + piece;
      const cut = text.search(PARTIAL_MARKER);
      held = text.slice(cut);
      return rewrite(text.slice(0, cut));
    },
    end() {
      const text = held;
      held = '';
      return rewrite(text);
    },
    cited,
  };
}

/** Options for {@link streamAnswerWithSources}. */
export interface StreamAnswerWithSourcesOptions {
  client: OpenAI;
  model: string;
  /** The system prompt: how to answer from the numbered sources and cite them. */
  instructions: string;
  question: string;
  sources: readonly NumberedSource[];
  /** Results of the plan's earlier steps. @default [] */
  context?: readonly AnswerContext[] | undefined;
  /** The LLM span's name (`rag.answer`, `web.answer`). */
  spanName: string;
  /** Remove the spaces before a marker that is dropped (see {@link renumberCitations}). */
  trimRemoved: boolean;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** What {@link streamAnswerWithSources} returns once the answer is complete. */
export interface StreamedAnswer {
  /** The pieces it yielded, joined: the trimmed answer with its markers renumbered. */
  text: string;
  /** The cited sources' old numbers in first-cited order: `cited[k - 1]` is now `[k]`. */
  cited: number[];
}

/**
 * {@link answerWithSources}, streamed: the same prompt in one streamed chat completion, yielding
 * the answer in pieces as the model writes it, already trimmed and with its `[n]` markers
 * renumbered in first-cited order ({@link createCitationRenumberer}); returns the whole text and
 * the cited sources. The LLM span gets the question, the model's answer and the token counts
 * (when the server reports usage).
 *
 * @throws the LLM call's error (`toLlmError`), also after some pieces were yielded, or an Error for
 *   an empty answer (then nothing was yielded): callers fall back to an extractive answer.
 * @example
 * const stream = streamAnswerWithSources({ client, model, instructions, question, sources, spanName: 'web.answer', trimRemoved: false });
 * const { text, cited } = yield* resultChunks(artifactId, stream);
 */
export async function* streamAnswerWithSources({
  client,
  model,
  instructions,
  question,
  sources,
  context = [],
  spanName,
  trimRemoved,
  signal,
  tracer = getTracer(),
}: StreamAnswerWithSourcesOptions): AsyncGenerator<string, StreamedAnswer, undefined> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: renderSourcesPrompt({ question, sources, context }) },
  ];
  const span = tracer.startSpan(spanName, { attributes: { [Attributes.SPAN_KIND]: SpanKind.LLM } });
  setSpanInput(span, question);
  const renumberer = createCitationRenumberer({ sourceCount: sources.length, trimRemoved });
  let text = '';
  // `content.trim()` of the whole answer, piece by piece: leading whitespace is dropped, trailing
  // whitespace waits for what follows it.
  let started = false;
  let spaces = '';
  try {
    const deltas = streamChat({ client, model, messages, temperature: 0.1, signal, span });
    let next = await deltas.next();
    while (next.done !== true) {
      let piece = spaces + next.value;
      if (!started) piece = piece.trimStart();
      started ||= piece !== '';
      const body = piece.trimEnd();
      spaces = piece.slice(body.length);
      const out = body === '' ? '' : renumberer.push(body);
      if (out !== '') {
        text += out;
        yield out;
      }
      next = await deltas.next();
    }
    const rest = renumberer.end();
    if (rest !== '') {
      text += rest;
      yield rest;
    }
    if (text.trim() === '') throw new Error('the model returned an empty answer');
    setSpanOutput(span, text);
    return { text, cited: [...renumberer.cited] };
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Options for {@link withExtractiveFallback}. */
export interface WithExtractiveFallbackOptions<Answer> {
  /** The model's answer, e.g. from {@link answerWithSources}. */
  answer: () => Promise<Answer>;
  /** The answer without a model, when `answer` fails. */
  extractive: () => Answer;
  signal?: AbortSignal | undefined;
  /** Told of the failure before falling back (to log it). */
  onFallback?: (error: unknown) => void;
}

/**
 * The model's answer, or when the call fails the extractive one with `llmError` saying why. An
 * aborted request is not answered at all: the abort is rethrown.
 *
 * @example
 * return withExtractiveFallback({
 *   answer: () => answerWithLlm({ ...llm, question, materials }),
 *   extractive: () => composeExtractiveAnswer({ question, materials }),
 *   signal,
 *   onFallback: (error) => logger.warn({ err: error }, 'the LLM failed; answering extractively'),
 * });
 */
export async function withExtractiveFallback<Answer extends object>({
  answer,
  extractive,
  signal,
  onFallback,
}: WithExtractiveFallbackOptions<Answer>): Promise<Answer & { llmError?: string }> {
  try {
    return await answer();
  } catch (error) {
    if (signal?.aborted === true) throw error;
    const llmError = error instanceof Error ? error.message : String(error);
    onFallback?.(error);
    return { ...extractive(), llmError };
  }
}
