import { z } from 'zod';

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
});

/**
 * The chat completion request fields the scripted server reads. Tolerant on purpose (loose objects):
 * the server stands in for any OpenAI-compatible upstream, so it accepts every field a client sends.
 */
export const chatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(chatMessageSchema),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  response_format: z
    .looseObject({
      type: z.string(),
      json_schema: z.looseObject({ name: z.string().optional(), schema: z.unknown() }).optional(),
    })
    .nullish(),
  tools: z
    .array(
      z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() }),
    )
    .nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The embeddings request fields the scripted server reads. */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([
    z.string(),
    z.array(z.string()),
    z.array(z.number()),
    z.array(z.array(z.number())),
  ]),
  dimensions: z.number().int().positive().max(65536).optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
});
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

/** What a `respond` function usually needs to know about a chat completion request. */
export interface ChatRequestContext {
  /** The request's `model`, or the server's first model when absent. */
  model: string;
  stream: boolean;
  /** `stream_options.include_usage` */
  includeUsage: boolean;
  /** The text of the last `user` message (text parts joined), or `''`. */
  lastUserMessage: string;
  /** True when `response_format.type` is `json_object` or `json_schema`. */
  jsonMode: boolean;
  /** `response_format.json_schema.schema`, when given. */
  jsonSchema?: unknown;
  /** The names of the function tools offered. */
  toolNames: string[];
  /** The parsed request (tolerant shape). */
  request: ChatRequest;
}

/** The text of a message's content: a string, or its text parts joined. */
export function messageText(content: ChatRequest['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => part.text ?? '').join('');
}

/** Summarises a parsed chat request for `respond` functions. */
export function toChatRequestContext(
  request: ChatRequest,
  defaultModel: string,
): ChatRequestContext {
  const lastUser = request.messages.findLast((message) => message.role === 'user');
  const formatType = request.response_format?.type;
  const jsonSchema = request.response_format?.json_schema?.schema;
  return {
    model: request.model ?? defaultModel,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    lastUserMessage: lastUser ? messageText(lastUser.content) : '',
    jsonMode: formatType === 'json_object' || formatType === 'json_schema',
    ...(jsonSchema === undefined ? {} : { jsonSchema }),
    toolNames: (request.tools ?? []).flatMap((tool) => (tool.function ? [tool.function.name] : [])),
    request,
  };
}
