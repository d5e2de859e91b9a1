import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';

/** An OpenAI-compatible `POST /v1/embeddings` that answers vectors of one size whatever it is asked. */
export interface FixedSizeEmbeddings {
  /** `http://127.0.0.1:<port>/v1`, for the OpenAI client's `baseURL`. */
  baseURL: string;
  /** The size of the vectors it answers with; change it to play another model. */
  dimensions: number;
  /** How many embedding requests it has answered. */
  requests: number;
  close(): Promise<void>;
}

const requestSchema = z.looseObject({ input: z.union([z.string(), z.array(z.string())]) });

/**
 * Test stand-in for an upstream whose embedding model ignores `dimensions` (a local server that
 * serves whatever model it has loaded): every text gets the same unit vector of `dimensions`.
 *
 * @example
 * const upstream = await startFixedSizeEmbeddings({ dimensions: 768 });
 * const client = new OpenAI({ apiKey: 'x', baseURL: upstream.baseURL, maxRetries: 0 });
 */
export async function startFixedSizeEmbeddings({
  dimensions,
}: {
  dimensions: number;
}): Promise<FixedSizeEmbeddings> {
  const server = http.createServer((request, response) => {
    const pieces: Buffer[] = [];
    request.on('data', (piece: Buffer) => pieces.push(piece));
    request.on('end', () => {
      const parsed = safeParseJson({
        text: Buffer.concat(pieces).toString('utf8'),
        schema: requestSchema,
      });
      if (!request.url?.endsWith('/embeddings') || !parsed.success) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request' } }));
        return;
      }
      fixed.requests += 1;
      const inputs =
        typeof parsed.value.input === 'string' ? [parsed.value.input] : parsed.value.input;
      const vector = Array.from({ length: fixed.dimensions }, (_, index) => (index === 0 ? 1 : 0));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: vector })),
          model: 'fixed-size',
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fixed: FixedSizeEmbeddings = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    dimensions,
    requests: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fixed;
}
