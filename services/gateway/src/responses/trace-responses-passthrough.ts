import {
  Attributes,
  SpanKind,
  setLlmAttributes,
  setSessionAttributes,
  setSpanInput,
  setSpanOutput,
  type LlmMessage,
  type Span,
} from '@fleet/telemetry';
import {
  eventPayloads,
  messageText,
  numberOf,
  objectOf,
  parseOrUndefined,
  stringOf,
  traceForwardedAnswer,
} from '../chat';
import type { ForwardObserver } from '../upstream';
import { responsesMessages, type ResponsesRequest } from './responses-request';

/** What the trace keeps of a Responses answer. */
export interface TracedResponse {
  content: string;
  /** The response's `status` (`completed`, `incomplete`, `failed`). */
  status: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The text of a `response` object's message items (their `output_text` parts), and its usage. */
export function readResponseObject(value: unknown): TracedResponse {
  const response = objectOf(value);
  const output = response?.['output'];
  let content = '';
  for (const item of Array.isArray(output) ? output : []) {
    const message = objectOf(item);
    if (message?.['type'] !== 'message') continue;
    const parts = message['content'];
    for (const part of Array.isArray(parts) ? parts : []) {
      const text = objectOf(part);
      if (text?.['type'] === 'output_text') content += stringOf(text['text']) ?? '';
    }
  }
  const usage = objectOf(response?.['usage']);
  return {
    content,
    status: stringOf(response?.['status']),
    inputTokens: numberOf(usage?.['input_tokens']),
    outputTokens: numberOf(usage?.['output_tokens']),
  };
}

/**
 * Reads a streamed Responses answer: the response its terminal event carries, or, for a stream
 * cut before one, the `output_text` deltas seen. One `JSON.parse` over all events when they parse
 * as one array (as for chat streams), else event by event.
 */
export function readResponseStream(text: string): TracedResponse {
  const payloads = eventPayloads(text);
  const all = parseOrUndefined(`[${payloads.join(',')}]`);
  const events = Array.isArray(all) ? all : payloads.map(parseOrUndefined);
  let deltas = '';
  for (const value of events) {
    const event = objectOf(value);
    const type = stringOf(event?.['type']);
    if (type === 'response.output_text.delta') deltas += stringOf(event?.['delta']) ?? '';
    else if (type !== undefined && TERMINAL_EVENTS.has(type)) {
      return readResponseObject(event?.['response']);
    }
  }
  return { content: deltas, status: undefined, inputTokens: undefined, outputTokens: undefined };
}

/** Options for {@link traceResponsesPassthrough}. */
export interface TraceResponsesPassthroughOptions {
  /** The gateway's server span (the trace's root). */
  span: Span | undefined;
  request: ResponsesRequest;
  tenant: string;
}

/**
 * Describes a `/v1/responses` passthrough on the gateway's root span as chat completions' does
 * (kind LLM, model, the input as messages, every other field as invocation parameters, the answer's
 * text, status and token counts), written when the span ends. Undefined when tracing is off.
 */
export function traceResponsesPassthrough({
  span,
  request,
  tenant,
}: TraceResponsesPassthroughOptions): ForwardObserver | undefined {
  if (span === undefined || !span.isRecording()) return undefined;
  span.updateName('POST /v1/responses');
  span.setAttribute(Attributes.SPAN_KIND, SpanKind.LLM);
  setSessionAttributes(span, { userId: tenant });
  return traceForwardedAnswer({
    span,
    describe(ending, text) {
      const { input: _input, instructions: _instructions, model, stream, ...parameters } = request;
      const inputMessages: LlmMessage[] = responsesMessages(request, { strict: false }).map(
        (message) => ({ role: message.role, content: messageText(message['content']) }),
      );
      setSpanInput(
        ending,
        inputMessages.filter((message) => message.role === 'user').at(-1)?.content ?? '',
      );
      const answer =
        stream === true ? readResponseStream(text) : readResponseObject(parseOrUndefined(text));
      setSpanOutput(ending, answer.content);
      setLlmAttributes(ending, {
        model,
        system: 'openai',
        invocationParameters: { ...parameters, stream: stream === true },
        inputMessages,
        outputMessages: [{ role: 'assistant', content: answer.content }],
        finishReason: answer.status,
        tokenCounts: { prompt: answer.inputTokens, completion: answer.outputTokens },
      });
    },
  });
}
