import http from 'node:http';

/** The timings of one streamed chat completion. */
export interface StreamTimings {
  ok: boolean;
  /** Why it was not ok: status, missing `[DONE]`, socket error. */
  error?: string;
  /** Request start to the first delta with content or reasoning text (time to first token). */
  firstTokenMs: number;
  /** Request start to the first delta with answer text (`delta.content`). */
  firstContentMs: number;
  /** Request start to the last delta with answer text: the answer streamed from first to last. */
  lastContentMs: number;
  /** Request start to the end of the response. */
  totalMs: number;
  /** The `X-Routing-Mode` response header: the route the gateway took. */
  route: string | undefined;
  /** The `X-Routing-Reason` response header. */
  reason: string | undefined;
}

interface DeltaFlags {
  token: boolean;
  content: boolean;
}

/** What a `data:` frame of a chat completion chunk carries, read without a full parse when empty. */
function readFrame(data: string): DeltaFlags {
  if (data === '[DONE]') return { token: false, content: false };
  try {
    const chunk = JSON.parse(data) as {
      choices?: { delta?: { content?: unknown; reasoning_content?: unknown } }[];
    };
    const delta = chunk.choices?.[0]?.delta;
    const content = typeof delta?.content === 'string' && delta.content !== '';
    const reasoning =
      typeof delta?.reasoning_content === 'string' && delta.reasoning_content !== '';
    return { token: content || reasoning, content };
  } catch {
    return { token: false, content: false };
  }
}

/**
 * Sends one streaming chat completion and times it: to the first content-or-reasoning delta
 * (TTFT), to the first and the last answer delta, and to the end. A response counts as ok with status 200 and
 * a `[DONE]` at the end.
 *
 * @example
 * const timings = await timeStreamedCompletion({ agent, url: `${gateway}/v1/chat/completions`, headers, body });
 */
export function timeStreamedCompletion(options: {
  agent: http.Agent;
  /** The full chat completions URL. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}): Promise<StreamTimings> {
  const { agent, url, headers, body } = options;
  const target = new URL(url);
  const started = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
  return new Promise<StreamTimings>((resolve) => {
    let firstTokenMs = Number.NaN;
    let firstContentMs = Number.NaN;
    let lastContentMs = Number.NaN;
    const failed = (error: string): void =>
      resolve({
        ok: false,
        error,
        firstTokenMs,
        firstContentMs,
        lastContentMs,
        totalMs: elapsed(),
        route: undefined,
        reason: undefined,
      });
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (response) => {
        let pending = '';
        let done = false;
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          pending += text;
          let boundary = pending.indexOf('\n\n');
          while (boundary !== -1) {
            const frame = pending.slice(0, boundary);
            pending = pending.slice(boundary + 2);
            boundary = pending.indexOf('\n\n');
            for (const line of frame.split('\n')) {
              if (!line.startsWith('data: ')) continue;
              const data = line.slice('data: '.length);
              if (data === '[DONE]') done = true;
              const flags = readFrame(data);
              if (flags.token && Number.isNaN(firstTokenMs)) firstTokenMs = elapsed();
              if (!flags.content) continue;
              lastContentMs = elapsed();
              if (Number.isNaN(firstContentMs)) firstContentMs = lastContentMs;
            }
          }
        });
        response.once('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status === 200 && done;
          resolve({
            ok,
            ...(ok
              ? {}
              : {
                  error: `status ${status}${done ? '' : ', no [DONE]'}${status === 200 ? '' : `: ${pending.slice(0, 300)}`}`,
                }),
            firstTokenMs,
            firstContentMs,
            lastContentMs,
            totalMs: elapsed(),
            route: response.headers['x-routing-mode'] as string | undefined,
            reason: response.headers['x-routing-reason'] as string | undefined,
          });
        });
        response.once('error', (error) => failed(error.message));
      },
    );
    request.once('error', (error) => failed(error.message));
    request.end(body);
  });
}
