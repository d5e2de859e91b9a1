import type OpenAI from 'openai';
import { withExtractiveFallback } from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { Retrieval } from '../retrieval';
import type { Answer } from './answer';
import { answerWithLlm, type AnswerContext } from './answer-with-llm';
import { composeExtractiveAnswer } from './compose-extractive-answer';

/** Logging the answerer needs. */
export interface AnswererLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createAnswerer}. */
export interface CreateAnswererOptions {
  /** Absent offline: extractive answers. */
  llm?: { client: OpenAI; model: string } | undefined;
  logger?: AnswererLogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** Turns retrieved chunks into a cited answer. */
export interface Answerer {
  answer(input: {
    question: string;
    retrieval: Retrieval;
    context?: readonly AnswerContext[];
    signal?: AbortSignal | undefined;
  }): Promise<Answer>;
}

/**
 * The answer step: with an LLM, `answerWithLlm`; offline, `composeExtractiveAnswer`. When nothing
 * was retrieved no model is called (there is nothing it may use). A failed LLM call falls back to
 * the extractive answer (logged, `llmError` set); an aborted one throws.
 *
 * @example
 * const answerer = createAnswerer({ llm: { client, model: 'gpt-4o-mini' }, logger });
 * const { text, sources } = await answerer.answer({ question, retrieval });
 */
export function createAnswerer({ llm, logger, tracer }: CreateAnswererOptions = {}): Answerer {
  return {
    async answer({ question, retrieval, context = [], signal }) {
      if (llm === undefined || retrieval.chunks.length === 0) {
        return composeExtractiveAnswer({ question, retrieval });
      }
      return withExtractiveFallback({
        answer: () =>
          answerWithLlm({
            client: llm.client,
            model: llm.model,
            question,
            retrieval,
            context,
            signal,
            tracer,
          }),
        extractive: () => composeExtractiveAnswer({ question, retrieval }),
        signal,
        onFallback: (error) =>
          logger?.warn({ err: error }, 'answering with the LLM failed; answering extractively'),
      });
    },
  };
}
