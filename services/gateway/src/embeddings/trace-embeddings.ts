import {
  Attributes,
  SemanticConventions,
  SpanKind,
  setSessionAttributes,
  setSpanInput,
  type Span,
} from '@fleet/telemetry';
import { numberOf, objectOf, parseOrUndefined, traceForwardedAnswer } from '../chat';
import type { ForwardObserver } from '../upstream';
import type { EmbeddingsRequest } from './embeddings-request';

/** How many input texts the span records, and how much of each (as the fleet's `llm.embed`). */
const MAX_RECORDED_TEXTS = 16;
const MAX_RECORDED_TEXT_LENGTH = 1000;

/** Options for {@link traceEmbeddings}. */
export interface TraceEmbeddingsOptions {
  /** The gateway's server span (the trace's root). */
  span: Span | undefined;
  request: EmbeddingsRequest;
  tenant: string;
}

/**
 * Describes an embeddings passthrough on the gateway's root span in OpenInference terms: kind
 * EMBEDDING, `embedding.model_name`, the first input texts (never token arrays' numbers), a
 * summary of the request as input (`{ texts, dimensions?, encoding_format? }`), and the token
 * counts from the answer's `usage` when the span ends. Vectors are never recorded. Undefined when
 * tracing is off.
 */
export function traceEmbeddings({
  span,
  request,
  tenant,
}: TraceEmbeddingsOptions): ForwardObserver | undefined {
  if (span === undefined || !span.isRecording()) return undefined;
  span.updateName('POST /v1/embeddings');
  span.setAttribute(Attributes.SPAN_KIND, SpanKind.EMBEDDING);
  setSessionAttributes(span, { userId: tenant });
  return traceForwardedAnswer({
    span,
    describe(ending, text) {
      const { input, model } = request;
      const inputs = typeof input === 'string' ? [input] : input;
      ending.setAttribute(Attributes.EMBEDDING_MODEL_NAME, model);
      const texts = inputs.filter((item): item is string => typeof item === 'string');
      for (const [index, value] of texts.slice(0, MAX_RECORDED_TEXTS).entries()) {
        ending.setAttribute(
          `${SemanticConventions.EMBEDDING_EMBEDDINGS}.${index}.${SemanticConventions.EMBEDDING_TEXT}`,
          value.slice(0, MAX_RECORDED_TEXT_LENGTH),
        );
      }
      setSpanInput(ending, {
        texts: inputs.length,
        ...(request['dimensions'] === undefined ? {} : { dimensions: request['dimensions'] }),
        ...(request['encoding_format'] === undefined
          ? {}
          : { encoding_format: request['encoding_format'] }),
      });
      // Only `usage` is read from the answer; its vectors stay out of the trace.
      const usage = objectOf(objectOf(parseOrUndefined(text))?.['usage']);
      const prompt = numberOf(usage?.['prompt_tokens']);
      const total = numberOf(usage?.['total_tokens']);
      if (prompt !== undefined) ending.setAttribute(Attributes.LLM_TOKEN_COUNT_PROMPT, prompt);
      if (total !== undefined) ending.setAttribute(Attributes.LLM_TOKEN_COUNT_TOTAL, total);
    },
  });
}
