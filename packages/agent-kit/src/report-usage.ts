import {
  isInterruptedState,
  isTerminalState,
  RESULT_ARTIFACT_NAME,
  USAGE_METADATA_KEY,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { createUsageMeter, type MeteredUsage } from '@fleet/llm';

/** True for the `result` artifact's event that completes it (sent whole, or its last chunk). */
function endsResult(event: AgentEvent): boolean {
  return (
    event.type === 'artifact' &&
    event.artifact.name === RESULT_ARTIFACT_NAME &&
    event.append !== true &&
    event.lastChunk !== false
  );
}

/** True for a status that ends the turn (terminal, or waiting for a person). */
function endsTurn(event: AgentEvent): boolean {
  return (
    event.type === 'status' && (isTerminalState(event.state) || isInterruptedState(event.state))
  );
}

/** The event with the turn's usage so far under `metadata.usage` (the artifact's, or the update's). */
function withUsage(event: AgentEvent, usage: MeteredUsage): AgentEvent {
  if (event.type === 'artifact') {
    return {
      ...event,
      artifact: {
        ...event.artifact,
        metadata: { ...event.artifact.metadata, [USAGE_METADATA_KEY]: usage },
      },
    };
  }
  return { ...event, metadata: { ...event.metadata, [USAGE_METADATA_KEY]: usage } };
}

/**
 * Makes an agent report the usage of its own model calls (docs/a2a.md §8, "Usage"): every
 * `completeChat`, `streamChat`, `generateObject` and `answerWithSources` call the turn makes is
 * counted (`createUsageMeter` from `@fleet/llm`), and the turn's usage goes out under
 * `metadata.usage` (`{ promptTokens, completionTokens, totalTokens, calls, unknownCalls }`) on the
 * `result` artifact that completes the answer and on the status that ends the turn (completed,
 * failed, rejected, or waiting for a person). Each turn reports its own calls: a continuation after
 * an approval reports the calls made since. An agent that makes no model call (offline) reports
 * `calls: 0`.
 *
 * @example
 * createA2AHandler({ card, execute: reportUsage(createWebAgent({ researcher })), store });
 */
export function reportUsage(execute: AgentExecute): AgentExecute {
  return async function* reportingUsage(context: AgentContext): AsyncGenerator<AgentEvent> {
    const meter = createUsageMeter();
    // The agent's code runs inside `next()`: each call runs in the meter's context.
    const events = meter.run(() => execute(context)[Symbol.asyncIterator]());
    try {
      for (;;) {
        const next = await meter.run(() => events.next());
        if (next.done === true) return;
        const event = next.value;
        yield endsResult(event) || endsTurn(event) ? withUsage(event, meter.usage()) : event;
      }
    } finally {
      // The server stopped reading (cancel, shutdown): let the agent release what it holds.
      await events.return?.(undefined);
    }
  };
}
