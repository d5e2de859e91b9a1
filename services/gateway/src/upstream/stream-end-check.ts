import { DONE_FRAME } from '../openai';
import type { UpstreamEndpoint } from './upstream-connection';

/** Watches a forwarded SSE stream's bytes for the event that ends a complete answer. */
export interface StreamEndCheck {
  /** Sees the next chunk of the stream, in order. */
  push(chunk: Buffer): void;
  /** True when the stream so far ends as a complete answer does. */
  ended(): boolean;
}

const TAIL_BYTES = 64;

/**
 * The events that end a Responses stream (the API reference's streaming events): the response's
 * own end (`completed`, `incomplete`, `failed`) or an `error` event. The upstream ended the stream
 * on purpose after any of these; anything else last means it was cut off.
 */
const RESPONSES_END_EVENTS = new Set([
  'response.completed',
  'response.incomplete',
  'response.failed',
  'error',
]);

/** A chat stream ends with `data: [DONE]`: its last bytes are checked. */
function doneFrameCheck(): StreamEndCheck {
  let tail: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      tail =
        chunk.length >= TAIL_BYTES
          ? chunk.subarray(chunk.length - TAIL_BYTES)
          : Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
    },
    ended: () => tail.includes(DONE_FRAME),
  };
}

const NEWLINE = 0x0a;
const EVENT_FIELD = Buffer.from('event:');
const DATA_TYPE_PREFIX = Buffer.from('data: {"type":"');

/**
 * The type a line names: an `event:` field's value, or the `type` a `data:` line's JSON starts
 * with (for upstreams that send no `event:` lines). Undefined for any other line.
 */
function lineType(line: Buffer): string | undefined {
  if (line.subarray(0, EVENT_FIELD.length).equals(EVENT_FIELD)) {
    return line.toString('latin1', EVENT_FIELD.length).trim();
  }
  if (line.subarray(0, DATA_TYPE_PREFIX.length).equals(DATA_TYPE_PREFIX)) {
    const end = line.indexOf(0x22, DATA_TYPE_PREFIX.length);
    return end === -1 ? undefined : line.toString('latin1', DATA_TYPE_PREFIX.length, end);
  }
  return undefined;
}

/**
 * A Responses stream ends with a terminal event ({@link RESPONSES_END_EVENTS}): the type of the
 * last event seen decides. Only the start of each line is read (a raw newline cannot occur inside
 * a JSON payload, so text in an answer never reads as an event); a line split across chunks is
 * carried over, its first bytes only.
 */
function responsesEndCheck(): StreamEndCheck {
  let last: string | undefined;
  // The first bytes of the line the previous chunk left unfinished (enough to read its type).
  let pending: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      let start = 0;
      let newline = chunk.indexOf(NEWLINE);
      while (newline !== -1) {
        const head = chunk.subarray(start, Math.min(newline, start + TAIL_BYTES));
        const line = start === 0 && pending.length > 0 ? Buffer.concat([pending, head]) : head;
        const type = lineType(line);
        if (type !== undefined) last = type;
        pending = Buffer.alloc(0);
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      if (pending.length < TAIL_BYTES && start < chunk.length) {
        // Copied, so the chunk itself is not kept alive.
        const rest = Buffer.from(chunk.subarray(start, start + TAIL_BYTES - pending.length));
        pending = pending.length === 0 ? rest : Buffer.concat([pending, rest]);
      }
    },
    ended: () => last !== undefined && RESPONSES_END_EVENTS.has(last),
  };
}

/**
 * How a forwarded stream from `endpoint` shows it is complete: `[DONE]` for chat completions, a
 * terminal event for Responses (`response.completed`, `.incomplete`, `.failed`, `error`).
 */
export function createStreamEndCheck(endpoint: UpstreamEndpoint): StreamEndCheck {
  return endpoint === 'responses' ? responsesEndCheck() : doneFrameCheck();
}
