import { z } from 'zod';
import { boundedArray, stringOr } from '@fleet/http';

/** Most inputs one embeddings request may carry: OpenAI's own limit, checked before any item. */
export const MAX_EMBEDDINGS_INPUTS = 2048;

/** One input of an array: a text, or a text's tokens (an array of numbers). */
const inputItemSchema = stringOr(
  boundedArray(z.number({ error: 'a token must be a number' }), {
    error: 'an input must be a string or an array of tokens',
  }),
  { error: 'an input must be a string, a token or an array of tokens', numbers: true },
);

/**
 * The parts of an OpenAI embeddings request the gateway checks before forwarding. Loose, like the
 * chat schema: the body is forwarded byte for byte (`encoding_format`, `dimensions`, `user`, newer
 * fields), so only `model` and the shape of `input` are validated: at most
 * {@link MAX_EMBEDDINGS_INPUTS} of them, checked one by one until the first few problems
 * (`boundedArray`), so a huge invalid body costs what a few bad items cost.
 */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string({ error: 'model is required' }).min(1, 'model must not be empty'),
  input: stringOr(
    boundedArray(inputItemSchema, {
      error: 'input must be a string, an array of strings, or token arrays',
      min: { count: 1, message: 'input must not be empty' },
      max: {
        count: MAX_EMBEDDINGS_INPUTS,
        message: `input may hold at most ${MAX_EMBEDDINGS_INPUTS} items, as OpenAI allows`,
      },
    }),
    { error: 'input must be a string, an array of strings, or token arrays' },
  ),
});

/** A validated embeddings request (unknown fields kept). */
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;
