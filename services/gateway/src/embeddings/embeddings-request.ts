import { z } from 'zod';

/**
 * The parts of an OpenAI embeddings request the gateway checks before forwarding. Loose, like the
 * chat schema: the body is forwarded byte for byte (`encoding_format`, `dimensions`, `user`, newer
 * fields), so only `model` and the shape of `input` are validated.
 */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string({ error: 'model is required' }).min(1, 'model must not be empty'),
  input: z.union(
    [
      z.string(),
      z
        .array(z.union([z.string(), z.number(), z.array(z.number())]))
        .min(1, 'input must not be empty'),
    ],
    { error: 'input must be a string, an array of strings, or token arrays' },
  ),
});

/** A validated embeddings request (unknown fields kept). */
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;
