import { randomBytes } from 'node:crypto';
import { type ChatRequestContext, messageText } from './chat-request';
import type { ScriptedReply } from './scripted-reply';
import { sampleJsonSchema } from './sample-json-schema';

/** A reply rendered to the bytes the server writes. */
export type RenderedCompletion =
  | { stream: false; body: string }
  | {
      stream: true;
      /** Complete SSE data frames (`data: …\n\n`), `[DONE]` excluded. */
      frames: string[];
    };

/** Roughly counts tokens the way people estimate them: about four characters a token. */
export function roughTokenCount(text: string): number {
  return text === '' ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

/** Makes an OpenAI-style id such as `chatcmpl-…` or `call_…`. */
export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The default text for a reply that gives none: an echo, or a JSON object in JSON mode. */
function defaultContent(context: ChatRequestContext): string {
  if (!context.jsonMode) return `You said: ${context.lastUserMessage}`;
  const value =
    context.jsonSchema === undefined
      ? { echo: context.lastUserMessage }
      : sampleJsonSchema({ schema: context.jsonSchema, text: context.lastUserMessage });
  return JSON.stringify(value);
}

function splitText(text: string, chunkSize: number | undefined, chunkCount?: number): string[] {
  if (text === '') return [];
  if (chunkCount !== undefined && chunkCount > 0) {
    const count = Math.min(chunkCount, text.length);
    return Array.from({ length: count }, (_, index) =>
      text.slice(
        Math.round((index * text.length) / count),
        Math.round(((index + 1) * text.length) / count),
      ),
    );
  }
  if (chunkSize !== undefined && chunkSize > 0) {
    const pieces: string[] = [];
    for (let index = 0; index < text.length; index += chunkSize) {
      pieces.push(text.slice(index, index + chunkSize));
    }
    return pieces;
  }
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

function usageObject(promptTokens: number, completionTokens: number): Record<string, unknown> {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** Options for {@link renderChatCompletion}. */
export interface RenderChatCompletionOptions {
  reply: ScriptedReply;
  context: ChatRequestContext;
  /** @default a random `chatcmpl-…` id */
  id?: string;
}

/**
 * Renders a scripted reply as OpenAI would send it: one `chat.completion` JSON body, or the
 * `chat.completion.chunk` SSE frames (role chunk, reasoning and content deltas, tool call deltas,
 * the finish chunk, and the usage chunk when `stream_options.include_usage` is set).
 */
export function renderChatCompletion({
  reply,
  context,
  id = randomId('chatcmpl-'),
}: RenderChatCompletionOptions): RenderedCompletion {
  const model = reply.model ?? context.model;
  const created = Math.floor(Date.now() / 1000);
  const toolCalls: ResolvedToolCall[] = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? randomId('call_'),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  let content: string | null;
  if (reply.content !== undefined) content = reply.content;
  else if (reply.json !== undefined) content = JSON.stringify(reply.json);
  else if (toolCalls.length > 0) content = null;
  else content = defaultContent(context);
  const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');

  let usage: Record<string, unknown> | undefined;
  if (reply.usage !== false) {
    const promptTokens =
      reply.usage?.prompt_tokens ??
      roughTokenCount(
        context.request.messages.map((message) => messageText(message.content)).join('\n'),
      );
    const completionTokens =
      reply.usage?.completion_tokens ??
      roughTokenCount(
        (reply.reasoningContent ?? '') +
          (content ?? '') +
          toolCalls.map((call) => call.name + call.arguments).join(''),
      );
    usage = usageObject(promptTokens, completionTokens);
  }

  if (!context.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content };
    if (reply.reasoningContent !== undefined) message['reasoning_content'] = reply.reasoningContent;
    if (toolCalls.length > 0) {
      message['tool_calls'] = toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    message['refusal'] = null;
    message['annotations'] = [];
    const body = {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      ...(usage ? { usage } : {}),
      system_fingerprint: 'fp_scripted',
    };
    return { stream: false, body: JSON.stringify(body) };
  }

  // OpenAI puts `usage: null` on every chunk when include_usage is set, and the totals on a last
  // chunk whose `choices` is empty.
  const usageField = context.includeUsage ? ',"usage":null' : '';
  const head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":"fp_scripted","choices":`;
  const frame = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `${head}[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${usageField}}\n\n`;

  const frames = [
    frame({ role: 'assistant', content: content === null ? null : '', refusal: null }),
  ];
  for (const piece of splitText(reply.reasoningContent ?? '', reply.chunkSize, reply.chunkCount)) {
    frames.push(frame({ reasoning_content: piece }));
  }
  for (const piece of splitText(content ?? '', reply.chunkSize, reply.chunkCount))
    frames.push(frame({ content: piece }));
  toolCalls.forEach((call, index) => {
    frames.push(
      frame({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of splitText(call.arguments, reply.chunkSize ?? 8)) {
      frames.push(frame({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  frames.push(frame({}, finishReason));
  if (context.includeUsage && usage) {
    frames.push(`${head}[],"usage":${JSON.stringify(usage)}}\n\n`);
  }
  return { stream: true, frames };
}
