/** One chunk of an orchestrated answer as a client reads it (loosely typed for assertions). */
export interface ReadChunk {
  choices: {
    delta: { role?: string; content?: string; reasoning_content?: string };
    finish_reason: string | null;
  }[];
  fleet?: Record<string, unknown>;
}

/** The `data:` frames of an SSE body: the chunks, and whether it ended with `[DONE]`. */
export function sseFrames(body: string): { chunks: ReadChunk[]; done: boolean } {
  const frames = body
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));
  const done = frames.at(-1) === '[DONE]';
  const chunks = (done ? frames.slice(0, -1) : frames).map(
    (frame) => JSON.parse(frame) as ReadChunk,
  );
  return { chunks, done };
}

/** The `fleet` objects of the chunks, in order. */
export function fleetObjects(chunks: readonly ReadChunk[]): Record<string, unknown>[] {
  return chunks.flatMap((chunk) => (chunk.fleet === undefined ? [] : [chunk.fleet]));
}
