import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
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

interface TracedAnswer {
  content: string;
  finishReason: string | undefined;
  usage: z.infer<typeof usageSchema>;
}

function readStream(text: string): TracedAnswer {
  const answer: TracedAnswer = { content: '', finishReason: undefined, usage: undefined };
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') return;
      const parsed = safeParseJson({ text: event.data, schema: chunkSchema });
      if (!parsed.success) return;
      const choice = parsed.value.choices?.[0];
      answer.content += choice?.delta?.content ?? '';
      answer.finishReason = choice?.finish_reason ?? answer.finishReason;
      answer.usage = parsed.value.usage ?? answer.usage;
    },
  });
  parser.feed(text);
  return answer;
}

function readCompletion(text: string): TracedAnswer {
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

  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    chunk(buffer) {
      if (kept >= MAX_TRACED_BYTES) return;
      chunks.push(buffer);
      kept += buffer.length;
    },
    end(outcome: ForwardOutcome) {
      const text = Buffer.concat(chunks).toString('utf8');
      const answer = stream === true ? readStream(text) : readCompletion(text);
      setSpanOutput(span, answer.content);
      setLlmAttributes(span, {
        outputMessages: [{ role: 'assistant', content: answer.content }],
        finishReason: answer.finishReason,
        tokenCounts: {
          prompt: answer.usage?.prompt_tokens ?? undefined,
          completion: answer.usage?.completion_tokens ?? undefined,
        },
      });
      if (outcome !== 'complete') span.setAttribute('fleet.passthrough.outcome', outcome);
    },
  };
}
