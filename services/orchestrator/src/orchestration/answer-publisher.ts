import { randomUUID } from 'node:crypto';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type Part, type RunResult } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import type { EventQueue } from './event-queue';

/** What goes between text already shown and a final answer that does not continue it. */
export const ANSWER_RESTARTED_NOTE = '(The answer above was cut off; here is the complete answer.)';

/** Publishes a run's answer as it is written: the `result` artifact in chunks. */
export interface AnswerPublisher {
  /** The text sent so far (the start of the answer). */
  readonly shown: string;
  /**
   * Sends the next piece of the answer's body as an artifact chunk. Leading whitespace of the
   * answer is dropped and trailing whitespace held back until more text follows, so what was
   * sent is always the start of the trimmed answer.
   */
  push(text: string): void;
  /**
   * The answer's final text: `text` when it continues what was shown (the normal case), else the
   * shown text, a note that it was cut off, and `text` — text a reader has seen is never taken back.
   */
  finalText(text: string): string;
  /**
   * The `result` artifact's last event: the whole `text` (from {@link finalText}) and the run
   * result, replacing the chunks (`append: false`, `lastChunk: true`), so the finished task holds
   * exactly the artifact a run without streaming has. With nothing shown, that very artifact.
   */
  finish(text: string, result: RunResult): AgentEvent;
}

/**
 * The answer of one run as A2A artifact chunks (docs/a2a.md, "The result artifact, streamed"), the
 * shape `resultChunk`/`resultEnd` of `@fleet/agent-kit` give the fleet's agents: every piece is an
 * `artifactUpdate` of the `result` artifact with one `artifactId`, `append: true`,
 * `lastChunk: false`; the last one has the whole text and the run result data part with
 * `append: false` (it replaces the pieces) and `lastChunk: true`. A reader that joined the pieces
 * already holds the text: the last event only adds what follows it (sources, failed steps).
 *
 * @example
 * const answer = createAnswerPublisher(queue);
 * answer.push('Paris is the capital');
 * queue.push(answer.finish(answer.finalText(text), result));
 */
export function createAnswerPublisher(queue: EventQueue<AgentEvent>): AnswerPublisher {
  const artifactId = randomUUID();
  let shown = '';
  let held = '';
  const chunk = (parts: Part[], lastChunk: boolean): AgentEvent => ({
    type: 'artifact',
    artifact: { artifactId, name: RESULT_ARTIFACT_NAME, parts },
    append: !lastChunk,
    lastChunk,
  });
  return {
    get shown() {
      return shown;
    },
    push(text) {
      const pending = shown === '' ? (held + text).trimStart() : held + text;
      const body = pending.trimEnd();
      held = pending.slice(body.length);
      if (body === '') return;
      shown += body;
      queue.push(chunk([textPart(body)], false));
    },
    finalText(text) {
      if (text.startsWith(shown)) return text;
      return [shown, ANSWER_RESTARTED_NOTE, text].join('\n\n');
    },
    finish(text, result) {
      if (shown === '') {
        return {
          type: 'artifact',
          artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(text), dataPart(result)] },
          lastChunk: true,
        };
      }
      return chunk([textPart(text), dataPart(result)], true);
    },
  };
}
