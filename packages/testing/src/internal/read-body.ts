import type { IncomingMessage } from 'node:http';

/** Reads a request body to the end; resolves `undefined` when the client goes away first. */
export function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', () => resolve(undefined));
    request.on('close', () => {
      if (!request.complete) resolve(undefined);
    });
  });
}
