import type OpenAI from 'openai';
import { toLlmError } from '@fleet/llm';
import {
  setLlmAttributes,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
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
      setLlmAttributes(span, {
        model: llm.model,
        system: 'openai',
        invocationParameters: { temperature: 0.2, max_tokens: 200 },
        inputMessages: messages,
      });
      let content: string;
      try {
        const completion = await llm.client.chat.completions.create(
          { model: llm.model, messages, temperature: 0.2, max_tokens: 200 },
          signal ? { signal } : {},
        );
        content = completion.choices[0]?.message.content?.trim() ?? '';
        setLlmAttributes(span, {
          model: completion.model || llm.model,
          outputMessages: [{ role: 'assistant', content }],
          ...(completion.usage
            ? {
                tokenCounts: {
                  prompt: completion.usage.prompt_tokens,
                  completion: completion.usage.completion_tokens,
                  total: completion.usage.total_tokens,
                },
              }
            : {}),
        });
      } catch (error) {
        throw toLlmError(error);
      }
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
