import { describe, expect, it } from '@jest/globals';
import { createUsageTap, lastUsageTokens } from './usage-tap';

describe('lastUsageTokens', () => {
  it("reads a chat completion's total", () => {
    const body = JSON.stringify({
      choices: [{ message: { content: 'a "usage": {"total_tokens": 999} b' } }],
      usage: {
        prompt_tokens: 5,
        completion_tokens: 7,
        total_tokens: 12,
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
    expect(lastUsageTokens(body)).toBe(12);
  });

  it('reads the usage chunk of a stream, after chunks with usage null', () => {
    const stream = [
      'data: {"choices":[{"delta":{"content":"hi"}}],"usage":null}',
      'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    expect(lastUsageTokens(stream)).toBe(7);
  });

  it("sums a Responses answer's input and output tokens when there is no total", () => {
    const event =
      'event: response.completed\ndata: {"type":"response.completed","response":{"output":[],"usage":{"input_tokens":10,"output_tokens":5},"metadata":{}}}\n\n';
    expect(lastUsageTokens(event)).toBe(15);
  });

  it('answers undefined for no usage, a null one, or one cut off', () => {
    expect(lastUsageTokens('{"choices":[]}')).toBeUndefined();
    expect(lastUsageTokens('data: {"choices":[],"usage":null}\n\n')).toBeUndefined();
    expect(lastUsageTokens('{"usage":{"total_tokens":')).toBeUndefined();
    expect(lastUsageTokens('{"usage":{}}')).toBeUndefined();
  });
});

describe('createUsageTap', () => {
  it('finds the usage at the end of a long answer split across chunks', () => {
    let tokens: number | undefined = -1;
    const tap = createUsageTap((found) => (tokens = found));
    tap.chunk(Buffer.from(`{"choices":[{"message":{"content":"${'x'.repeat(200_000)}"}}],"us`));
    tap.chunk(Buffer.from('age":{"prompt_tokens":1,'));
    tap.chunk(Buffer.from('"completion_tokens":2,"total_tokens":3}}'));
    tap.end('complete');
    expect(tokens).toBe(3);
  });

  it('reports undefined when the answer carried no usage', () => {
    let tokens: number | undefined = -1;
    const tap = createUsageTap((found) => (tokens = found));
    tap.chunk(Buffer.from('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'));
    tap.end('complete');
    expect(tokens).toBeUndefined();
  });
});
