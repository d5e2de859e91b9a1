import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import type { ForwardObserver, ForwardOutcome } from '../upstream';

/** How much of an answer's end is kept to find its `usage` in. */
const TAIL_BYTES = 64 * 1024;

const USAGE_KEY = Buffer.from('"usage"');

/** The token counts of chat completions, embeddings and Responses (`input_tokens`, …). */
const usageSchema = z.looseObject({
  total_tokens: z.number().nonnegative().optional(),
  prompt_tokens: z.number().nonnegative().optional(),
  completion_tokens: z.number().nonnegative().optional(),
  input_tokens: z.number().nonnegative().optional(),
  output_tokens: z.number().nonnegative().optional(),
});

/** The end of the JSON object that starts at `start` (`{`), or -1 when the text ends first. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b) depth += 1;
    else if (char === 0x7d) {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/**
 * The tokens of the last `"usage": {…}` in a text: `total_tokens`, else the sum of the parts
 * (`prompt_tokens` + `completion_tokens`, or `input_tokens` + `output_tokens`). Undefined when
 * there is none, it is `null`, or it carries no count. A quoted `"usage"` inside a JSON string is
 * always escaped (`\"usage\"`), so only a key matches.
 */
export function lastUsageTokens(text: string): number | undefined {
  const at = text.lastIndexOf('"usage"');
  if (at === -1) return undefined;
  const colon = text.indexOf(':', at + USAGE_KEY.length);
  if (colon === -1) return undefined;
  const start = text.slice(colon + 1).search(/\S/) + colon + 1;
  if (text.charCodeAt(start) !== 0x7b) return undefined;
  const end = objectEnd(text, start);
  if (end === -1) return undefined;
  const parsed = safeParseJson({ text: text.slice(start, end + 1), schema: usageSchema });
  if (!parsed.success) return undefined;
  const usage = parsed.value;
  if (usage.total_tokens !== undefined) return usage.total_tokens;
  const parts = [
    usage.prompt_tokens,
    usage.completion_tokens,
    usage.input_tokens,
    usage.output_tokens,
  ].filter((count): count is number => count !== undefined);
  return parts.length === 0 ? undefined : parts.reduce((sum, count) => sum + count, 0);
}

/**
 * Watches a forwarded answer for the tokens it reports, without slowing it: it keeps references
 * to the last 64 KiB of chunks (no copy per chunk) and, when the answer ends, reads the last
 * `usage` object there — a chat completion's or embeddings' `usage`, the usage chunk of a stream
 * with `include_usage`, a Responses `response.completed` event. `done` gets the tokens, or
 * undefined when the answer reported none (a stream without `include_usage`, a client that left).
 */
export function createUsageTap(done: (tokens: number | undefined) => void): ForwardObserver {
  const tail: Buffer[] = [];
  let kept = 0;
  return {
    chunk(buffer: Buffer) {
      tail.push(buffer);
      kept += buffer.length;
      while (tail.length > 1 && kept - (tail[0]?.length ?? 0) >= TAIL_BYTES) {
        kept -= tail.shift()?.length ?? 0;
      }
    },
    end(_outcome: ForwardOutcome) {
      const text = Buffer.concat(tail, kept).toString('utf8');
      tail.length = 0;
      done(lastUsageTokens(text));
    },
  };
}

/** Both observers, or the one there is. */
export function combineObservers(
  first: ForwardObserver | undefined,
  second: ForwardObserver | undefined,
): ForwardObserver | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return {
    chunk(buffer) {
      first.chunk(buffer);
      second.chunk(buffer);
    },
    end(outcome) {
      first.end(outcome);
      second.end(outcome);
    },
  };
}
