import type OpenAI from 'openai';
import { completeChat } from '@fleet/llm';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import { shorten } from '../text';

/** Options for {@link describeDocument}. */
export interface DescribeDocumentOptions {
  filename: string;
  /** The document's text from the start (the first chunks). */
  opening: string;
  /** Absent offline: the description is the opening itself. */
  llm?: { client: OpenAI; model: string } | undefined;
  signal?: AbortSignal | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** Characters of the opening the model reads. */
const LLM_OPENING_LENGTH = 4_000;
/** Characters of the offline description. */
export const OFFLINE_DESCRIPTION_LENGTH = 300;
/** Longest description kept from the model. */
const MAX_DESCRIPTION_LENGTH = 1_000;

const INSTRUCTIONS =
  'You write the catalogue description of a document for a document library. In one paragraph of two or three sentences, say what kind of document it is, what it covers and its scope (dates, products, people, numbers it gives). Use only the text given; no preamble, no Markdown.';

/**
 * The one-paragraph description stored with a document (the reference pipeline's "LLM generates
 * document description"): with an LLM, a summary of its opening written in an LLM span; offline,
 * the opening itself, about 300 characters cut at a word.
 *
 * @throws the LLM call's error (`toLlmError`) or an Error for an empty answer; the caller falls
 *   back to {@link openingDescription}.
 * @example
 * const description = await describeDocument({ filename, opening, llm });
 */
export async function describeDocument({
  filename,
  opening,
  llm,
  signal,
  tracer,
}: DescribeDocumentOptions): Promise<string> {
  if (llm === undefined) return openingDescription(opening);
  const messages = [
    { role: 'system' as const, content: INSTRUCTIONS },
    {
      role: 'user' as const,
      content: `File: ${filename}\n\nOpening of the document:\n${opening.slice(0, LLM_OPENING_LENGTH)}`,
    },
  ];
  return withSpan(
    { name: 'rag.describe-document', kind: SpanKind.LLM, input: filename, tracer },
    async (span) => {
      const { content: answer } = await completeChat({
        client: llm.client,
        model: llm.model,
        messages,
        temperature: 0.2,
        maxTokens: 200,
        signal,
        span,
      });
      const content = answer.trim();
      if (content === '') throw new Error('the model returned an empty description');
      const description = shorten(content, MAX_DESCRIPTION_LENGTH);
      setSpanOutput(span, description);
      return description;
    },
  );
}

/** The offline description: the document's opening, about 300 characters, cut at a word. */
export function openingDescription(opening: string): string {
  return shorten(opening, OFFLINE_DESCRIPTION_LENGTH);
}
