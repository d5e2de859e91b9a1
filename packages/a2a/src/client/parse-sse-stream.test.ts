import { describe, expect, it } from '@jest/globals';
import { StreamInterruptedError, UnauthenticatedError, UpstreamTimeoutError } from '@fleet/errors';
import { TaskNotFoundError } from '../errors/a2a-errors';
import { parseSseStream } from './parse-sse-stream';

function streamOf(chunks: string[], { hang = false } = {}): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = chunks.shift();
      if (chunk !== undefined) {
        controller.enqueue(encoder.encode(chunk));
        return;
      }
      if (hang) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (cancelled) return;
      }
      controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('parseSseStream', () => {
  it('yields events split across chunks and skips comments', async () => {
    const events = await collect(
      parseSseStream(
        streamOf([
          ': ping\n\n',
          'data: {"a"',
          ':1}\n\nevent: custom\r\nid: 7\r\ndata: two\r\n\r\n',
          'data: last',
        ]),
      ),
    );
    expect(events).toEqual([
      { event: undefined, data: '{"a":1}', id: undefined },
      { event: 'custom', data: 'two', id: '7' },
      { event: undefined, data: 'last', id: undefined },
    ]);
  });

  it('throws the typed error of an error event', async () => {
    const frame = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32001,
        message: 'gone',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    });
    await expect(
      collect(parseSseStream(streamOf([`data: {}\n\nevent: error\ndata: ${frame}\n\n`]))),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    const fleet = JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'no' } });
    await expect(
      collect(parseSseStream(streamOf([`event: error\ndata: ${fleet}\n\n`]))),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('refuses events larger than maxEventBytes', async () => {
    await expect(
      collect(parseSseStream(streamOf([`data: ${'x'.repeat(200)}\n\n`]), { maxEventBytes: 100 })),
    ).rejects.toBeInstanceOf(StreamInterruptedError);
  });

  it('aborts the controller when the consumer breaks out', async () => {
    const controller = new AbortController();
    for await (const event of parseSseStream(streamOf(['data: 1\n\n', 'data: 2\n\n']), {
      controller,
    })) {
      expect(event.data).toBe('1');
      break;
    }
    expect(controller.signal.aborted).toBe(true);
  });

  it('leaves the controller alone when the stream ends by itself', async () => {
    const controller = new AbortController();
    await collect(parseSseStream(streamOf(['data: 1\n\n']), { controller }));
    expect(controller.signal.aborted).toBe(false);
  });

  it('fails with UpstreamTimeoutError when the stream goes quiet', async () => {
    const controller = new AbortController();
    await expect(
      collect(
        parseSseStream(streamOf(['data: 1\n\n'], { hang: true }), {
          idleTimeoutMs: 20,
          controller,
        }),
      ),
    ).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(controller.signal.aborted).toBe(true);
  });
});
