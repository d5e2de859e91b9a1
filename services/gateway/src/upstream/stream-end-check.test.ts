import { describe, expect, it } from '@jest/globals';
import { createStreamEndCheck } from './stream-end-check';

function event(type: string, data: Record<string, unknown> = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** Feeds `text` split at `at` (and at every position when `at` is undefined). */
function endedAfter(endpoint: 'responses' | 'chat/completions', text: string): boolean[] {
  const bytes = Buffer.from(text);
  const results: boolean[] = [];
  for (let at = 0; at <= bytes.length; at++) {
    const check = createStreamEndCheck(endpoint);
    check.push(bytes.subarray(0, at));
    check.push(bytes.subarray(at));
    results.push(check.ended());
  }
  return results;
}

const COMPLETE =
  event('response.created', { response: { id: 'r' } }) +
  event('response.output_text.delta', { delta: 'a "response.completed" mention\\nevent: error' }) +
  event('response.completed', { response: { id: 'r', output: [] } });

describe('createStreamEndCheck', () => {
  it('sees a Responses stream ending with response.completed, however it is split', () => {
    expect(endedAfter('responses', COMPLETE).every(Boolean)).toBe(true);
  });

  it('counts response.failed, response.incomplete and error as ends', () => {
    for (const type of ['response.failed', 'response.incomplete', 'error']) {
      expect(endedAfter('responses', event('response.created') + event(type)).every(Boolean)).toBe(
        true,
      );
    }
  });

  it('sees a stream cut before its terminal event as not ended, text in deltas included', () => {
    const cut = COMPLETE.slice(0, COMPLETE.indexOf('event: response.completed'));
    expect(endedAfter('responses', cut).some(Boolean)).toBe(false);
  });

  it('reads the type of data-only events (no event: lines)', () => {
    const dataOnly = `data: ${JSON.stringify({ type: 'response.created' })}\n\ndata: ${JSON.stringify({ type: 'response.completed', response: {} })}\n\n`;
    expect(endedAfter('responses', dataOnly).every(Boolean)).toBe(true);
    expect(endedAfter('responses', dataOnly.slice(0, 40)).some(Boolean)).toBe(false);
  });

  it('ends a chat stream at data: [DONE]', () => {
    const chat = 'data: {"choices":[]}\n\ndata: [DONE]\n\n';
    expect(endedAfter('chat/completions', chat).every(Boolean)).toBe(true);
    expect(endedAfter('chat/completions', 'data: {"choices":[]}\n\n').some(Boolean)).toBe(false);
  });
});
