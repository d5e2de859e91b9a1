import type OpenAI from 'openai';
import { withExtractiveFallback, type Clock } from '@fleet/llm';
import type { WithSpanOptions } from '@fleet/telemetry';
import { answerWithLlm, streamAnswerWithLlm } from './answer-with-llm';
import { composeExtractiveAnswer } from './compose-extractive-answer';
import type { AnswerContext, SourceMaterial, WebAnswer } from './web-source';

/** Minimal logger the answerer warns through. */
interface WarnLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

/** What a {@link WebAnswerer} answers from. */
export interface WebAnswerInput {
  question: string;
  /** What was searched; undefined when pages were read directly. */
  query: string | undefined;
  materials: readonly SourceMaterial[];
  context?: readonly AnswerContext[];
  signal?: AbortSignal | undefined;
}

/** Writes cited answers from search results and pages. */
export interface WebAnswerer {
  answer(options: WebAnswerInput): Promise<WebAnswer>;
  /**
   * The same answer, streamed: yields the text in pieces while the model writes it and returns the
   * whole answer, whose `text` the pieces join to, unless the model failed part-way and the
   * extractive answer replaces them (`llmError` says why). Nothing is yielded for an extractive
   * answer.
   */
  stream(options: WebAnswerInput): AsyncGenerator<string, WebAnswer, undefined>;
}

/**
 * The web agent's answerer: with an LLM, the model writes the cited answer (falling back to the
 * extractive one if the call fails or returns nothing, with `llmError` saying why); offline, the
 * extractive answer. No sources: a plain "found nothing" answer without a model call.
 *
 * @example
 * const answerer = createWebAnswerer({ llm: { client, model: config.llmModel }, logger });
 */
export function createWebAnswerer({
  llm,
  logger,
  tracer,
  clock,
}: {
  llm?: { client: OpenAI; model: string } | undefined;
  /** The clock the answer prompt's date line reads. @default the system clock */
  clock?: Clock | undefined;
  logger?: WarnLogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}): WebAnswerer {
  return {
    async answer({ question, query, materials, context = [], signal }) {
      if (llm === undefined || materials.length === 0) {
        return composeExtractiveAnswer({ question, query, materials });
      }
      return withExtractiveFallback({
        answer: () =>
          answerWithLlm({ ...llm, question, materials, context, signal, tracer, clock }),
        extractive: () => composeExtractiveAnswer({ question, query, materials }),
        signal,
        onFallback: (error) =>
          logger?.warn({ err: error }, 'web answer: the LLM failed; answering extractively'),
      });
    },
    async *stream({ question, query, materials, context = [], signal }) {
      if (llm === undefined || materials.length === 0) {
        return composeExtractiveAnswer({ question, query, materials });
      }
      try {
        return yield* streamAnswerWithLlm({
          ...llm,
          question,
          materials,
          context,
          signal,
          tracer,
          clock,
        });
      } catch (error) {
        if (signal?.aborted === true) throw error;
        logger?.warn({ err: error }, 'web answer: the LLM failed; answering extractively');
        const llmError = error instanceof Error ? error.message : String(error);
        return { ...composeExtractiveAnswer({ question, query, materials }), llmError };
      }
    },
  };
}
