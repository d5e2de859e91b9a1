import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { setLlmAttributes, type Span } from '@fleet/telemetry';
import { toLlmMessage, type TokenUsage } from './complete-chat';
import { toLlmError } from './to-llm-error';
import { recordFailedCall, recordUsage } from './usage-meter';

/** Options for {@link streamChat}. */
export interface StreamChatOptions {
  client: OpenAI;
  model: string;
  messages: readonly ChatCompletionMessageParam[];
  temperature?: number | undefined;
  /** Sent as `max_tokens`. */
  maxTokens?: number | undefined;
  /** Function tools the model may call; their calls are assembled from the deltas. */
  tools?: readonly ChatCompletionFunctionTool[] | undefined;
  toolChoice?: ChatCompletionToolChoiceOption | undefined;
  /** Recorded beside temperature and max_tokens as invocation parameters. */
  invocationParameters?: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** The caller's LLM span: it gets the model, messages, the whole answer and token counts. */
  span: Span;
}

/** What {@link streamChat} returns once the stream has ended. */
export interface StreamChatResult {
  /** The content deltas joined, exactly as they came ('' when there were none). */
  content: string;
  /** Reasoning text (`reasoning_content` or `reasoning` deltas), '' when none came. */
  reasoning: string;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
  finishReason: string | undefined;
  /** Undefined when the upstream sent no usage chunk (some servers ignore `include_usage`). */
  usage: TokenUsage | undefined;
  /** The model the upstream named, or the one asked for. */
  model: string;
}

// Tolerant on upstream output (CONTRIBUTING.md convention 9): thinking arrives as
// `reasoning_content` (DeepSeek, vLLM) or `reasoning` (Ollama, OpenRouter).
const reasoningDeltaSchema = z.looseObject({
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
});

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Records the request's model, parameters and input messages on the LLM span. */
function recordRequest(
  span: Span,
  {
    model,
    messages,
    temperature,
    maxTokens,
    toolChoice,
    invocationParameters,
  }: Pick<
    StreamChatOptions,
    'model' | 'messages' | 'temperature' | 'maxTokens' | 'toolChoice' | 'invocationParameters'
  >,
): void {
  setLlmAttributes(span, {
    model,
    system: 'openai',
    invocationParameters: {
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
      stream: true,
      ...invocationParameters,
    },
    inputMessages: messages.map(toLlmMessage),
  });
}

/** Adds one chunk's tool call deltas to the calls being assembled, by index. */
function addToolCallDeltas(
  calls: Map<number, PartialToolCall>,
  deltas: ChatCompletionChunk.Choice.Delta.ToolCall[] | undefined,
): void {
  for (const call of deltas ?? []) {
    const known = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
    if (call.id) known.id = call.id;
    if (call.function?.name) known.name += call.function.name;
    if (call.function?.arguments) known.arguments += call.function.arguments;
    calls.set(call.index, known);
  }
}

/** The assembled tool calls, in index order. */
function assembleToolCalls(
  calls: Map<number, PartialToolCall>,
): ChatCompletionMessageFunctionToolCall[] {
  return [...calls.entries()]
    .sort(([left], [right]) => left - right)
    .map(([, call]): ChatCompletionMessageFunctionToolCall => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
}

/** Records the answer on the LLM span: the model that answered, the message, finish and usage. */
function recordAnswer(
  span: Span,
  { content, toolCalls, finishReason, usage, model }: StreamChatResult,
): void {
  setLlmAttributes(span, {
    model,
    outputMessages: [
      {
        role: 'assistant',
        content,
        ...(toolCalls.length === 0
          ? {}
          : {
              toolCalls: toolCalls.map((call) => ({
                id: call.id,
                name: call.function.name,
                arguments: call.function.arguments,
              })),
            }),
      },
    ],
    ...(finishReason === undefined ? {} : { finishReason }),
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
}

/**
 * One streamed chat completion (`stream: true`, `stream_options.include_usage`), recorded on the
 * caller's LLM span like {@link completeChat}: yields each content delta as it arrives and returns
 * the whole answer, the tool calls assembled from their deltas, the finish reason and the usage
 * (undefined when the server sent none). Failures, before or during the stream, become the fleet's
 * typed errors. The call counts in the active usage meters (`createUsageMeter`) once the stream
 * ends; a consumer that stops early (`return()`) leaves it uncounted.
 *
 * @throws UpstreamError, UpstreamTimeoutError, ConnectionError or AbortError (see `toLlmError`)
 * @example
 * const stream = streamChat({ client, model, messages, temperature: 0.1, signal, span });
 * let next = await stream.next();
 * while (next.done !== true) { process.stdout.write(next.value); next = await stream.next(); }
 * const { content, usage } = next.value;
 */
export async function* streamChat({
  client,
  model,
  messages,
  temperature,
  maxTokens,
  tools,
  toolChoice,
  invocationParameters = {},
  signal,
  span,
}: StreamChatOptions): AsyncGenerator<string, StreamChatResult, undefined> {
  recordRequest(span, {
    model,
    messages,
    temperature,
    maxTokens,
    toolChoice,
    invocationParameters,
  });
  let content = '';
  let reasoning = '';
  let finishReason: string | undefined;
  let usage: TokenUsage | undefined;
  let answeredBy = model;
  const calls = new Map<number, PartialToolCall>();
  let streaming = false;
  try {
    const stream = await client.chat.completions.create(
      {
        model,
        messages: [...messages],
        stream: true,
        stream_options: { include_usage: true },
        ...(temperature === undefined ? {} : { temperature }),
        ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
        ...(tools === undefined || tools.length === 0 ? {} : { tools: [...tools] }),
        ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
      },
      signal ? { signal } : {},
    );
    streaming = true;
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      if (chunk.model) answeredBy = chunk.model;
      if (chunk.usage) {
        usage = {
          promptTokens: chunk.usage.prompt_tokens,
          completionTokens: chunk.usage.completion_tokens,
          totalTokens: chunk.usage.total_tokens,
        };
      }
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const { delta } = choice;
      const thinking = reasoningDeltaSchema.safeParse(delta);
      if (thinking.success) {
        reasoning += thinking.data.reasoning_content ?? thinking.data.reasoning ?? '';
      }
      addToolCallDeltas(calls, delta.tool_calls);
      if (typeof delta.content === 'string' && delta.content !== '') {
        content += delta.content;
        yield delta.content;
      }
    }
    streaming = false;
  } catch (error) {
    const failure = toLlmError(error);
    if (!streaming) recordFailedCall(failure);
    throw failure;
  } finally {
    // A stream that broke, or that its consumer left, after it began has cost tokens no one will
    // report: one call of unknown usage.
    if (streaming) recordUsage(undefined);
  }
  recordUsage(usage);
  const toolCalls = assembleToolCalls(calls);
  const result = { content, reasoning, toolCalls, finishReason, usage, model: answeredBy };
  recordAnswer(span, result);
  return result;
}
