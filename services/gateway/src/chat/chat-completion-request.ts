import { z } from 'zod';
import { boundedArray } from '@fleet/http';

/**
 * The parts of an OpenAI chat completion request the gateway checks before forwarding.
 *
 * Loose on purpose (an exception to CONTRIBUTING.md convention 9): passthrough must forward *any* valid OpenAI
 * request, including parameters newer than this schema, byte for byte. Only the fields the gateway
 * reasons about are validated; the upstream validates the rest.
 */
export const chatCompletionRequestSchema = z.looseObject({
  model: z.string({ error: 'model is required' }).min(1, 'model must not be empty'),
  // Checked item by item until the first few problems (boundedArray): a body of a million bad
  // messages costs what five cost.
  messages: boundedArray(
    z.looseObject(
      {
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function'], {
          error: 'role must be one of system, developer, user, assistant, tool, function',
        }),
      },
      { error: 'a message must be an object with a role' },
    ),
    {
      error: 'messages must be an array of messages',
      min: { count: 1, message: 'messages must contain at least one message' },
    },
  ),
  stream: z.boolean({ error: 'stream must be a boolean' }).nullish(),
  stream_options: z
    .looseObject(
      { include_usage: z.boolean().nullish() },
      { error: 'stream_options must be an object' },
    )
    .nullish(),
  tools: boundedArray(
    z.looseObject({ type: z.string() }, { error: 'a tool must be an object with a type' }),
    { error: 'tools must be an array of tools' },
  ).nullish(),
  response_format: z
    .looseObject({ type: z.string() }, { error: 'response_format must be an object with a type' })
    .nullish(),
});

/** A validated chat completion request (unknown fields kept). */
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
