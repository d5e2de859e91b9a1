import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { setLlmAttributes, type LlmMessage, type Span } from '@fleet/telemetry';
import { toLlmError } from './to-llm-error';
import { recordFailedCall, recordUsage } from './usage-meter';

/** Token usage of one LLM call, as the upstream reported it. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Options for {@link completeChat}. */
export interface CompleteChatOptions {
  client: OpenAI;
  model: string;
  messages: readonly ChatCompletionMessageParam[];
  temperature?: number | undefined;
  /** Sent as `max_tokens`, which every OpenAI-compatible server understands. */
  maxTokens?: number | undefined;
  /** Sent as `response_format` (e.g. strict structured output). */
  responseFormat?: ChatCompletionCreateParamsNonStreaming['response_format'];
  /** Recorded beside temperature and max_tokens as invocation parameters. */
  invocationParameters?: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** The caller's LLM span: it gets the OpenInference model, messages, answer and token counts. */
  span: Span;
}

/** What {@link completeChat} returns. */
export interface CompleteChatResult {
  /** The first choice's content, exactly as it came ('' when there is none). */
  content: string;
  finishReason: string | undefined;
  /** Undefined when the upstream reported none. */
  usage: TokenUsage | undefined;
  /** The whole completion, for what the fields above leave out (refusals, tool calls). */
  completion: ChatCompletion;
}

/** A chat message as OpenInference records it. */
export function toLlmMessage(message: ChatCompletionMessageParam): LlmMessage {
  const { content } = message;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part) => ('text' in part ? part.text : '')).join('')
        : null;
  const toolCalls =
    message.role === 'assistant'
      ? message.tool_calls?.flatMap((call) =>
          call.type === 'function'
            ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
            : [],
        )
      : undefined;
  return {
    role: message.role,
    content: text,
    ...(message.role === 'tool' ? { toolCallId: message.tool_call_id } : {}),
    ...(toolCalls ? { toolCalls } : {}),
  };
}

/**
 * One non-streaming chat completion, recorded on the caller's LLM span: the model, invocation
 * parameters and messages before the call; the answer, finish reason and token counts after it.
 * Failures become the fleet's typed errors.
 *
 * @throws UpstreamError, UpstreamTimeoutError, ConnectionError or AbortError (see `toLlmError`)
 * @example
 * await withSpan({ name: 'web.answer', kind: SpanKind.LLM, input: question }, async (span) => {
 *   const { content } = await completeChat({ client, model, messages, temperature: 0.1, signal, span });
 *   return content.trim();
 * });
 */
export async function completeChat({
  client,
  model,
  messages,
  temperature,
  maxTokens,
  responseFormat,
  invocationParameters = {},
  signal,
  span,
}: CompleteChatOptions): Promise<CompleteChatResult> {
  setLlmAttributes(span, {
    model,
    system: 'openai',
    invocationParameters: {
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...invocationParameters,
    },
    inputMessages: messages.map(toLlmMessage),
  });
  let completion: ChatCompletion;
  try {
    completion = await client.chat.completions.create(
      {
        model,
        messages: [...messages],
        ...(temperature === undefined ? {} : { temperature }),
        ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
        ...(responseFormat === undefined ? {} : { response_format: responseFormat }),
      },
      signal ? { signal } : {},
    );
  } catch (error) {
    const failure = toLlmError(error);
    recordFailedCall(failure);
    throw failure;
  }
  const choice = completion.choices[0];
  const content = choice?.message.content ?? '';
  const usage = completion.usage
    ? {
        promptTokens: completion.usage.prompt_tokens,
        completionTokens: completion.usage.completion_tokens,
        totalTokens: completion.usage.total_tokens,
      }
    : undefined;
  recordUsage(usage);
  setLlmAttributes(span, {
    model: completion.model || model,
    outputMessages: [{ role: 'assistant', content }],
    ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(usage
      ? {
          tokenCounts: {
            prompt: usage.promptTokens,
            completion: usage.completionTokens,
            total: usage.totalTokens,
          },
        }
      : {}),
  });
  return { content, finishReason: choice?.finish_reason ?? undefined, usage, completion };
}
