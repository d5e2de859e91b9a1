import type OpenAI from 'openai';
import { withExtractiveFallback } from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { Retrieval } from '../retrieval';
import type { Answer } from './answer';
import { answerWithLlm, streamAnswerWithLlm, type AnswerContext } from './answer-with-llm';
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

/** What an {@link Answerer} answers from. */
export interface AnswerInput {
  question: string;
  retrieval: Retrieval;
  context?: readonly AnswerContext[];
  signal?: AbortSignal | undefined;
}

/** Turns retrieved chunks into a cited answer. */
export interface Answerer {
  answer(input: AnswerInput): Promise<Answer>;
  /**
   * The same answer, streamed: yields the text in pieces while the model writes it and returns the
   * whole answer, whose `text` the pieces join to, unless the model failed part-way and the
   * extractive answer replaces them (`llmError` says why). Nothing is yielded for an extractive
   * answer. Citations are numbered in the order the text first cites them.
   */
  stream(input: AnswerInput): AsyncGenerator<string, Answer, undefined>;
}

/**
 * The answer step: with an LLM, `answerWithLlm` (`streamAnswerWithLlm` for `stream`); offline,
 * `composeExtractiveAnswer`. When nothing
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
    async *stream({ question, retrieval, context = [], signal }) {
      if (llm === undefined || retrieval.chunks.length === 0) {
        return composeExtractiveAnswer({ question, retrieval });
      }
      try {
        return yield* streamAnswerWithLlm({
          client: llm.client,
          model: llm.model,
          question,
          retrieval,
          context,
          signal,
          tracer,
        });
      } catch (error) {
        if (signal?.aborted === true) throw error;
        logger?.warn({ err: error }, 'answering with the LLM failed; answering extractively');
        const llmError = error instanceof Error ? error.message : String(error);
        return { ...composeExtractiveAnswer({ question, retrieval }), llmError };
      }
    },
  };
}
