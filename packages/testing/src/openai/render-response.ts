import { z } from 'zod';
import type { ChatRequest } from './chat-request';
import { randomId, roughTokenCount, type RenderedCompletion } from './render-chat-completion';
import type { ScriptedReply } from './scripted-reply';

const inputItemSchema = z.looseObject({
  role: z.string().optional(),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
    .optional(),
});

/**
 * The Responses request fields the scripted server reads. Tolerant (loose objects), like the chat
 * schema: every other field is accepted and ignored.
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/**
 * A Responses request as the chat request the scripted replies are chosen from: `instructions`
 * as a system message, a string `input` as one user message, input items as messages.
 */
export function responsesAsChatRequest(request: ResponsesRequest): ChatRequest {
  const messages: ChatRequest['messages'] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  const { input } = request;
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else {
    for (const item of input ?? []) {
      if (item.role !== undefined) messages.push({ role: item.role, content: item.content ?? '' });
    }
  }
  return {
    messages,
    stream: request.stream ?? null,
    ...(request.model === undefined ? {} : { model: request.model }),
  };
}

/** Options for {@link renderResponse}. */
export interface RenderResponseOptions {
  reply: ScriptedReply;
  model: string;
  stream: boolean;
  /** The reply's text (the scripted content, or the default echo). */
  content: string;
  /** The request's text, for the rough input token count. */
  inputText: string;
}

function splitWords(text: string, chunkCount: number | undefined): string[] {
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
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

/**
 * Renders a scripted reply as OpenAI's Responses API sends it: one `response` JSON body, or the
 * SSE events (`event:` and `data:` lines, `sequence_number` on each) from `response.created` to
 * `response.completed`, with usage (`input_tokens`, `output_tokens`, `total_tokens`) unless the
 * reply's `usage` is false. Reasoning and tool calls are not rendered.
 */
export function renderResponse({
  reply,
  model: requestModel,
  stream,
  content,
  inputText,
}: RenderResponseOptions): RenderedCompletion {
  const id = randomId('resp_');
  const messageId = randomId('msg_');
  const model = reply.model ?? requestModel;
  const usage =
    reply.usage === false
      ? null
      : ((inputTokens: number, outputTokens: number) => ({
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        }))(
          reply.usage?.prompt_tokens ?? roughTokenCount(inputText),
          reply.usage?.completion_tokens ?? roughTokenCount(content),
        );
  const part = { type: 'output_text', text: content, annotations: [], logprobs: [] };
  const message = {
    id: messageId,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [part],
  };
  const response = (status: string, done: boolean): Record<string, unknown> => ({
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output: done ? [message] : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: done ? usage : null,
  });
  if (!stream) return { stream: false, body: JSON.stringify(response('completed', true)) };

  const frames: string[] = [];
  const event = (type: string, data: Record<string, unknown>): void => {
    const body = { type, ...data, sequence_number: frames.length };
    frames.push(`event: ${type}\ndata: ${JSON.stringify(body)}\n\n`);
  };
  const at = { output_index: 0, item_id: messageId, content_index: 0 };
  event('response.created', { response: response('in_progress', false) });
  event('response.in_progress', { response: response('in_progress', false) });
  event('response.output_item.added', {
    output_index: 0,
    item: { ...message, status: 'in_progress', content: [] },
  });
  event('response.content_part.added', { ...at, part: { ...part, text: '' } });
  for (const delta of splitWords(content, reply.chunkCount)) {
    event('response.output_text.delta', { ...at, delta, logprobs: [] });
  }
  event('response.output_text.done', { ...at, text: content, logprobs: [] });
  event('response.content_part.done', { ...at, part });
  event('response.output_item.done', { output_index: 0, item: message });
  event('response.completed', { response: response('completed', true) });
  return { stream: true, frames };
}
