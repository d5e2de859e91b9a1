import http from 'node:http';

/** Where a benchmark sends requests. */
export interface Target {
  name: string;
  /** Base URL, e.g. `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  headers: Record<string, string>;
}

/** One timed request. */
export interface Sample {
  ms: number;
  ok: boolean;
  error?: string;
}

const DONE = Buffer.from('data: [DONE]');

/**
 * Sends one chat completion over a keep-alive agent and times it to the last byte. A response only
 * counts as ok with status 200 and, for streams, a `[DONE]` at the end.
 */
export function timedChatCompletion(options: {
  agent: http.Agent;
  target: Target;
  body: Buffer;
  stream: boolean;
}): Promise<Sample> {
  const { agent, target, body, stream } = options;
  const url = new URL(`${target.baseURL}/chat/completions`);
  const started = process.hrtime.bigint();
  return new Promise<Sample>((resolve) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          ...target.headers,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (response) => {
        let tail: Buffer = Buffer.alloc(0);
        response.on('data', (chunk: Buffer) => {
          tail = Buffer.concat([tail, chunk]).subarray(-32);
        });
        response.once('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          const complete = !stream || tail.includes(DONE);
          const ok = response.statusCode === 200 && complete;
          resolve(
            ok
              ? { ms, ok }
              : {
                  ms,
                  ok,
                  error: `status ${response.statusCode ?? '?'}${complete ? '' : ', no [DONE]'}`,
                },
          );
        });
        response.once('error', (error) => resolve({ ms: 0, ok: false, error: error.message }));
      },
    );
    request.once('error', (error) => resolve({ ms: 0, ok: false, error: error.message }));
    request.end(body);
  });
}
