import type { ServerResponse } from 'node:http';

/** A complete (non-streamed) answer. */
export interface JsonAnswer {
  /** Headers the answer carries (the route taken, the session). */
  headers: Record<string, string>;
  /** The JSON text. */
  body: string;
}

/** Sends a non-streamed answer: 200, the given headers and the JSON body. */
export function sendJsonAnswer(res: ServerResponse, { headers, body }: JsonAnswer): void {
  res.statusCode = 200;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(body);
}
