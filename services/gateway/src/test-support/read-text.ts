import type { IncomingMessage } from 'node:http';

/**
 * A supertest `.parse()` callback that keeps the body as text, for SSE responses (supertest hands
 * it the raw `IncomingMessage`, whatever its types say).
 */
export function readText(res: unknown, done: (error: Error | null, body: unknown) => void): void {
  const stream = res as IncomingMessage;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => done(null, text));
}
