import { z } from 'zod';
import { BadRequestError } from '@fleet/errors';
import { boundedArray, stringOr } from '@fleet/http';
import type { ChatCompletionRequest } from '../chat';
import type { RoutableRequest } from '../routing';
import { collectAttachments, type AttachmentRef } from '../files/attachments';

/**
 * The parts of an OpenAI Responses request (`POST /v1/responses`) the gateway checks before
 * forwarding. Loose on purpose, like {@link chatCompletionRequestSchema}: passthrough forwards any
 * valid request byte for byte (`previous_response_id`, `store`, `conversation`, `reasoning`,
 * `include`, newer fields…), so only what the gateway reasons about is validated.
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string({ error: 'model is required' }).min(1, 'model must not be empty'),
  // Checked item by item until the first few problems (boundedArray), as chat's messages.
  input: stringOr(
    boundedArray(
      z.looseObject({ type: z.string().optional() }, { error: 'an input item must be an object' }),
      { error: 'input must be a string or an array of input items' },
    ),
    { error: 'input must be a string or an array of input items' },
  ).optional(),
  instructions: z.string({ error: 'instructions must be a string' }).nullish(),
  stream: z.boolean({ error: 'stream must be a boolean' }).nullish(),
  tools: boundedArray(
    z.looseObject({ type: z.string() }, { error: 'a tool must be an object with a type' }),
    { error: 'tools must be an array of tools' },
  ).nullish(),
  text: z
    .looseObject(
      {
        format: z
          .looseObject({ type: z.string() }, { error: 'text.format needs a type' })
          .nullish(),
      },
      { error: 'text must be an object' },
    )
    .nullish(),
  previous_response_id: z.string({ error: 'previous_response_id must be a string' }).nullish(),
  conversation: z.unknown().optional(),
  user: z.string().optional(),
});

/** A validated Responses request (unknown fields kept). */
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/**
 * What routing reads: `tools`, and a structured `text.format` (`json_schema`, `json_object`) as
 * chat's `response_format`: only the upstream model can honour either, so both pass through.
 */
export function routableResponsesRequest(request: ResponsesRequest): RoutableRequest {
  const format = request.text?.format;
  return {
    model: request.model,
    tools: request.tools,
    response_format: format == null || format.type === 'text' ? undefined : format,
  };
}

const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.unknown(),
});

/** An input item that may be a message: `type` absent or `message`, and a string `role`. */
function isMessageLike(item: { type?: string | undefined; [key: string]: unknown }): boolean {
  return (item.type === undefined || item.type === 'message') && typeof item['role'] === 'string';
}

/**
 * The conversation of a Responses request as chat messages: `instructions` as a system message, a
 * string `input` as one user message, message items (`{ role, content }`, content a string or
 * `input_text`/`output_text` parts) as they are. With `strict`, any other item (tool calls and
 * their outputs, reasoning, item references) is a 400 naming it; without, it is skipped (the
 * `auto` classifier only reads the text).
 */
export function responsesMessages(
  request: ResponsesRequest,
  { strict }: { strict: boolean },
): ChatCompletionRequest['messages'] {
  const messages: ChatCompletionRequest['messages'] = [];
  if (request.instructions != null && request.instructions !== '') {
    messages.push({ role: 'system', content: request.instructions });
  }
  const { input } = request;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  for (const [index, item] of (input ?? []).entries()) {
    // Other items (tool calls and outputs, reasoning…) are told apart without zod: a failed
    // parse builds an error, and `auto` reads every item of a request that may hold 100 000.
    const parsed = isMessageLike(item) ? messageItemSchema.safeParse(item) : undefined;
    if (parsed?.success === true) {
      messages.push({ role: parsed.data.role, content: parsed.data.content });
    } else if (strict) {
      throw new BadRequestError(
        `input[${index}] is a ${item.type ?? 'item'} item; the fleet's agent routes take message items ({ role, content }) only. Send tool calls without X-Routing-Mode (passthrough).`,
        { param: `input[${index}]` },
      );
    }
  }
  return messages;
}

/**
 * What the agent routes do with the Responses API's stored state: they keep none of OpenAI's
 * (their answers are `store: false`; an orchestrated run lives in its fleet session instead), so
 * `previous_response_id` and `conversation` are refused with a 400 naming the fleet's way to go on
 * (`X-Session-ID`, or the earlier turns in `input`). `store` is ignored.
 */
export function assertStatelessAgentRequest(request: ResponsesRequest, mode: string): void {
  const hint = `X-Routing-Mode: ${mode} keeps no OpenAI response state. Send the earlier turns in input, or continue an orchestrated run with the header X-Session-ID: <session id> (named by the X-Session-ID response header and the fleet object).`;
  if (request.previous_response_id != null) {
    throw new BadRequestError(`previous_response_id is not supported here. ${hint}`, {
      param: 'previous_response_id',
    });
  }
  if (request.conversation != null) {
    throw new BadRequestError(`conversation is not supported here. ${hint}`, {
      param: 'conversation',
    });
  }
}

/**
 * The files the last user message item of a Responses request brings: `input_image` parts
 * (`image_url` a data URL, or `file_id`) and `input_file` parts (`file_data` with `filename`, or
 * `file_id`; `file_url` is refused), named `input[i].content[j]…`. A string `input` brings none.
 *
 * @throws BadRequestError (400) naming the part.
 */
export function responsesAttachments(request: ResponsesRequest): AttachmentRef[] {
  const { input } = request;
  if (input === undefined || typeof input === 'string') return [];
  const lastUser = input.findLastIndex((item) => isMessageLike(item) && item['role'] === 'user');
  if (lastUser === -1) return [];
  return collectAttachments(input[lastUser]?.['content'], `input[${lastUser}].content`);
}
