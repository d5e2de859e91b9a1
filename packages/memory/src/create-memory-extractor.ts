import { AbortError, FleetError } from '@fleet/errors';
import { SpanKind, setSessionAttributes, setSpanOutput, withSpan } from '@fleet/telemetry';
import { extractWithLlm, type MemoryLlm } from './extract-with-llm';
import { extractWithRules } from './extract-with-rules';
import { mayHoldMemory } from './may-hold-memory';
import type { MemorySource, MemoryUpdate } from './memory-schema';

/** What an extraction found and how. */
export interface Extraction {
  update: MemoryUpdate;
  /** `llm` when the model answered, `rules` offline or after an LLM failure. */
  method: MemorySource;
  /** Why the rules answered although an LLM is configured (after trying it). */
  fallbackReason?: string | undefined;
  /** True when the message held no personal statement or preference, so the LLM was not asked. */
  skippedLlm?: boolean | undefined;
}

/** Finds facts and preferences in a user's message. */
export interface MemoryExtractor {
  /** Never rejects: an LLM failure falls back to the rules; an aborted call rejects with AbortError. */
  extract(options: { message: string; user?: string; signal?: AbortSignal }): Promise<Extraction>;
}

/** Logging the extractor needs. */
export interface MemoryExtractorLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createMemoryExtractor}. */
export interface CreateMemoryExtractorOptions {
  /** Undefined in offline mode: the rules answer. */
  llm?: MemoryLlm | undefined;
  /** Longest wait for the model before the rules answer instead. @default 10000 */
  timeoutMs?: number;
  logger?: MemoryExtractorLogger | undefined;
}

/**
 * The memory extractor: the LLM (strict structured output) when an upstream is configured, with
 * the rules ({@link extractWithRules}) offline and as the fallback when the model fails, times
 * out or answers something that does not fit. A message with no first-person statement and no
 * preference ({@link mayHoldMemory}) is not sent to the LLM at all. Each extraction is a `memory.extract` CHAIN span
 * (the LLM call inside it is an LLM span) with `user.id`.
 *
 * @example
 * const extractor = createMemoryExtractor({ llm: { client, model: 'gpt-4o-mini' }, logger });
 * const { update, method } = await extractor.extract({ message: 'Call me Ada', user: 'u-1' });
 */
export function createMemoryExtractor({
  llm,
  timeoutMs = 10_000,
  logger,
}: CreateMemoryExtractorOptions = {}): MemoryExtractor {
  return {
    extract({ message, user, signal }) {
      return withSpan(
        { name: 'memory.extract', kind: SpanKind.CHAIN, input: message },
        async (span) => {
          if (user !== undefined) setSessionAttributes(span, { userId: user });
          const extraction = await extract({ message, signal });
          span.setAttribute('fleet.memory.method', extraction.method);
          if (extraction.skippedLlm === true) span.setAttribute('fleet.memory.llm_skipped', true);
          if (extraction.fallbackReason !== undefined) {
            span.setAttribute('fleet.memory.fallback_reason', extraction.fallbackReason);
          }
          setSpanOutput(span, extraction.update);
          return extraction;
        },
      );
    },
  };

  async function extract({
    message,
    signal,
  }: {
    message: string;
    signal: AbortSignal | undefined;
  }): Promise<Extraction> {
    if (llm === undefined) return { update: extractWithRules(message), method: 'rules' };
    if (!mayHoldMemory(message)) {
      return { update: extractWithRules(message), method: 'rules', skippedLlm: true };
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const update = await extractWithLlm({
        llm,
        message,
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
      return { update, method: 'llm' };
    } catch (error) {
      if (signal?.aborted === true) throw new AbortError('The memory extraction was aborted.');
      const reason = timeout.aborted
        ? `the model did not answer within ${timeoutMs} ms`
        : FleetError.isInstance(error)
          ? error.message
          : 'the model call failed';
      logger?.warn(
        { err: error, model: llm.model, reason },
        'memory extraction fell back to rules',
      );
      return { update: extractWithRules(message), method: 'rules', fallbackReason: reason };
    }
  }
}
