import {
  Attributes,
  SpanKind,
  deferSpanAttributes,
  setLlmAttributes,
  setSessionAttributes,
  setSpanInput,
  setSpanOutput,
  type LlmMessage,
  type Span,
} from '@fleet/telemetry';
import type { ForwardObserver, ForwardOutcome } from '../upstream';
import type { ChatCompletionRequest } from './chat-completion-request';
import { messageText } from './message-text';

/** The most of an answer kept for the trace; the client always gets all of it. */
const MAX_TRACED_BYTES = 1024 * 1024;

/** The token counts of an answer, as the upstream reported them. */
export interface TracedUsage {
  prompt_tokens?: number | undefined;
  completion_tokens?: number | undefined;
}

/** What the trace keeps of an answer. */
export interface TracedAnswer {
  content: string;
  finishReason: string | undefined;
  usage: TracedUsage | undefined;
}

/**
 * The `data:` payloads of an SSE text, one per event (multi-line data joined with `\n`, as the
 * SSE spec says), without `[DONE]`. Other fields and comments are skipped.
 */
export function eventPayloads(text: string): string[] {
  const payloads: string[] = [];
  let data: string | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line === '') {
      if (data !== undefined && data !== '[DONE]') payloads.push(data);
      data = undefined;
    } else if (line.startsWith('data:')) {
      const value = line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
  }
  if (data !== undefined && data !== '[DONE]') payloads.push(data);
  return payloads;
}

/** `value` as a plain object, or undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `value` when it is a string. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a number. */
export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** The token counts of a chunk or completion, or undefined when it has none. */
function usageOf(body: Record<string, unknown>): TracedUsage | undefined {
  const usage = objectOf(body['usage']);
  if (usage === undefined) return undefined;
  return {
    prompt_tokens: numberOf(usage['prompt_tokens']),
    completion_tokens: numberOf(usage['completion_tokens']),
  };
}

/** The first choice of a chunk or completion. */
function firstChoice(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = body['choices'];
  return Array.isArray(choices) ? objectOf(choices[0]) : undefined;
}

function addChunk(answer: TracedAnswer, value: unknown): void {
  const chunk = objectOf(value);
  if (chunk === undefined) return;
  const choice = firstChoice(chunk);
  const content = stringOf(objectOf(choice?.['delta'])?.['content']);
  if (content !== undefined) answer.content += content;
  answer.finishReason = stringOf(choice?.['finish_reason']) ?? answer.finishReason;
  answer.usage = usageOf(chunk) ?? answer.usage;
}

/** `JSON.parse` that answers undefined for text that is not JSON (trace readers only). */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Reads a streamed answer once: every event's JSON in one `JSON.parse` over one array, then plain
 * property reads (no schema, no depth walk: only a few fixed, shallow fields are read, and this
 * runs for every traced request). If the array does not parse (an event is not JSON), it falls
 * back to event by event, skipping the bad ones; payloads that are not chunks add nothing.
 */
export function readStream(text: string): TracedAnswer {
  const answer: TracedAnswer = { content: '', finishReason: undefined, usage: undefined };
  const payloads = eventPayloads(text);
  const all = parseOrUndefined(`[${payloads.join(',')}]`);
  if (Array.isArray(all)) {
    for (const chunk of all) addChunk(answer, chunk);
    return answer;
  }
  for (const payload of payloads) addChunk(answer, parseOrUndefined(payload));
  return answer;
}

/** Reads a non-streamed answer. */
export function readCompletion(text: string): TracedAnswer {
  const completion = objectOf(parseOrUndefined(text));
  if (completion === undefined) return { content: '', finishReason: undefined, usage: undefined };
  const choice = firstChoice(completion);
  return {
    content: stringOf(objectOf(choice?.['message'])?.['content']) ?? '',
    finishReason: stringOf(choice?.['finish_reason']),
    usage: usageOf(completion),
  };
}

/** Options for {@link traceForwardedAnswer}. */
export interface TraceForwardedAnswerOptions {
  /** The gateway's server span, already named and given its kind. */
  span: Span;
  /**
   * Writes the call's attributes when the span ends, from the answer's text (at most 1 MiB of it;
   * the client always gets all of it).
   */
  describe: (ending: Span, answer: string) => void;
}

/**
 * The observer every traced passthrough shares (chat completions, Responses, embeddings): it only
 * keeps the answer's bytes; `describe` writes the attributes when the span ends, after the response
 * has closed, so the client never waits for the trace (docs/tracing.md §7). An answer that did not
 * end complete is marked `fleet.passthrough.outcome`.
 */
export function traceForwardedAnswer({
  span,
  describe,
}: TraceForwardedAnswerOptions): ForwardObserver {
  const chunks: Buffer[] = [];
  let kept = 0;
  let outcome: ForwardOutcome | undefined;
  deferSpanAttributes(span, (ending) => {
    const text = Buffer.concat(chunks, kept).toString('utf8');
    chunks.length = 0;
    describe(ending, text);
    // No outcome yet: the response closed before the upstream's answer ended.
    const ended = outcome ?? 'client-gone';
    if (ended !== 'complete') ending.setAttribute('fleet.passthrough.outcome', ended);
  });
  return {
    chunk(buffer) {
      if (kept >= MAX_TRACED_BYTES) return;
      chunks.push(buffer);
      kept += buffer.length;
    },
    end(ended: ForwardOutcome) {
      outcome = ended;
    },
  };
}

/** Options for {@link tracePassthrough}. */
export interface TracePassthroughOptions {
  /** The gateway's HTTP server span: the trace's root, which Phoenix's Sessions view reads. */
  span: Span | undefined;
  request: ChatCompletionRequest;
  tenant: string;
}

/**
 * Describes a passthrough call on the gateway's root span in OpenInference terms (kind LLM, model,
 * messages, the user's question as input, the answer and token counts as output) and returns the
 * observer that collects the answer as it streams by. Returns undefined, and costs nothing, when
 * tracing is off.
 */
export function tracePassthrough({
  span,
  request,
  tenant,
}: TracePassthroughOptions): ForwardObserver | undefined {
  if (span === undefined || !span.isRecording()) return undefined;
  span.updateName('POST /v1/chat/completions');
  span.setAttribute(Attributes.SPAN_KIND, SpanKind.LLM);
  setSessionAttributes(span, { userId: tenant });
  return traceForwardedAnswer({
    span,
    describe(ending, text) {
      const { messages, model, stream, ...parameters } = request;
      const inputMessages: LlmMessage[] = messages.map((message) => ({
        role: message.role,
        content: messageText(message['content']),
      }));
      setSpanInput(
        ending,
        inputMessages.filter((message) => message.role === 'user').at(-1)?.content ?? '',
      );
      const answer = stream === true ? readStream(text) : readCompletion(text);
      setSpanOutput(ending, answer.content);
      setLlmAttributes(ending, {
        model,
        system: 'openai',
        invocationParameters: { ...parameters, stream: stream === true },
        inputMessages,
        outputMessages: [{ role: 'assistant', content: answer.content }],
        finishReason: answer.finishReason,
        tokenCounts: {
          prompt: answer.usage?.prompt_tokens ?? undefined,
          completion: answer.usage?.completion_tokens ?? undefined,
        },
      });
    },
  });
}
