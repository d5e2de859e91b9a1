import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
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

const usageSchema = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
  .nullish();

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema,
});

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z.object({ content: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema,
});

/** A whole stream's events, parsed (and depth-checked) as one JSON array. */
const chunkListSchema = z.array(chunkSchema);

/** What the trace keeps of an answer. */
export interface TracedAnswer {
  content: string;
  finishReason: string | undefined;
  usage: z.infer<typeof usageSchema>;
}

/**
 * The `data:` payloads of an SSE text, one per event (multi-line data joined with `\n`, as the
 * SSE spec says), without `[DONE]`. Other fields and comments are skipped.
 */
function eventPayloads(text: string): string[] {
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

function addChunk(answer: TracedAnswer, chunk: z.infer<typeof chunkSchema>): void {
  const choice = chunk.choices?.[0];
  const content = choice?.delta?.content;
  if (content != null) answer.content += content;
  answer.finishReason = choice?.finish_reason ?? answer.finishReason;
  answer.usage = chunk.usage ?? answer.usage;
}

/**
 * Reads a streamed answer once: every event's JSON in one `safeParseJson` call over one array
 * (one parse, one depth check, one schema pass), instead of an SSE parser and a validation per
 * event. If any event is not a chunk (an `event: error` frame, a foreign payload), it falls back
 * to event by event, skipping the bad ones.
 */
export function readStream(text: string): TracedAnswer {
  const answer: TracedAnswer = { content: '', finishReason: undefined, usage: undefined };
  const payloads = eventPayloads(text);
  const all = safeParseJson({
    text: `[${payloads.join(',')}]`,
    schema: chunkListSchema,
    subject: "The upstream's stream",
  });
  if (all.success) {
    for (const chunk of all.value) addChunk(answer, chunk);
    return answer;
  }
  for (const payload of payloads) {
    const parsed = safeParseJson({ text: payload, schema: chunkSchema });
    if (parsed.success) addChunk(answer, parsed.value);
  }
  return answer;
}

/** Reads a non-streamed answer. */
export function readCompletion(text: string): TracedAnswer {
  const parsed = safeParseJson({ text, schema: completionSchema });
  if (!parsed.success) return { content: '', finishReason: undefined, usage: undefined };
  const choice = parsed.value.choices?.[0];
  return {
    content: choice?.message?.content ?? '',
    finishReason: choice?.finish_reason ?? undefined,
    usage: parsed.value.usage,
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
  const { messages, model, stream, ...parameters } = request;
  span.updateName('POST /v1/chat/completions');
  span.setAttribute(Attributes.SPAN_KIND, SpanKind.LLM);
  setSessionAttributes(span, { userId: tenant });
  const inputMessages: LlmMessage[] = messages.map((message) => ({
    role: message.role,
    content: messageText(message['content']),
  }));
  setSpanInput(
    span,
    inputMessages.filter((message) => message.role === 'user').at(-1)?.content ?? '',
  );
  setLlmAttributes(span, {
    model,
    system: 'openai',
    invocationParameters: { ...parameters, stream: stream === true },
    inputMessages,
  });

  // The observer only keeps the bytes; they are parsed once, when the span ends (after the
  // response has closed), so the client never waits for the trace (docs/tracing.md §7).
  const chunks: Buffer[] = [];
  let kept = 0;
  let outcome: ForwardOutcome | undefined;
  deferSpanAttributes(span, (ending) => {
    const text = Buffer.concat(chunks, kept).toString('utf8');
    chunks.length = 0;
    const answer = stream === true ? readStream(text) : readCompletion(text);
    setSpanOutput(ending, answer.content);
    setLlmAttributes(ending, {
      outputMessages: [{ role: 'assistant', content: answer.content }],
      finishReason: answer.finishReason,
      tokenCounts: {
        prompt: answer.usage?.prompt_tokens ?? undefined,
        completion: answer.usage?.completion_tokens ?? undefined,
      },
    });
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
