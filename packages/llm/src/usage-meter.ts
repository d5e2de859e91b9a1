import { AsyncLocalStorage } from 'node:async_hooks';
import { AbortError, UpstreamTimeoutError } from '@fleet/errors';
import type { TokenUsage } from './complete-chat';

/**
 * The usage of the model calls a piece of work made: token sums of the calls whose usage the
 * upstream reported, and how many calls there were of each kind. A call whose usage is unknown
 * (the upstream sent none, a stream broke, the call timed out) is counted in `unknownCalls` and
 * adds nothing to the sums: unknown is never reported as zero. The same shape as `TokenUsage` in
 * `@fleet/a2a`, which this package does not depend on.
 */
export interface MeteredUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Calls whose usage is in the sums. */
  calls: number;
  /** Calls whose usage is unknown. */
  unknownCalls: number;
}

/** Counts the model calls made inside {@link UsageMeter.run}. */
export interface UsageMeter {
  /**
   * Runs `work` with this meter active: every `completeChat` and `streamChat` call it makes —
   * awaited, or in a generator whose `next()` is called inside — is counted here and in every
   * meter around this one.
   */
  run<T>(work: () => T): T;
  /** Adds one call by hand (a call made without the helpers); `undefined`: its usage is unknown. */
  record(usage: TokenUsage | undefined): void;
  /** What was counted so far (a copy). */
  usage(): MeteredUsage;
}

/** No calls, nothing known: the start of every meter. */
export function emptyUsage(): MeteredUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, unknownCalls: 0 };
}

interface MeterNode {
  totals: MeteredUsage;
  parent: MeterNode | undefined;
}

// Each meter sees the calls made in the async context it runs: the model calls of one agent turn,
// one orchestration step. Nested meters (a step inside a turn) all count the call.
const active = new AsyncLocalStorage<MeterNode>();

function add(totals: MeteredUsage, usage: TokenUsage | undefined): void {
  if (usage === undefined) {
    totals.unknownCalls += 1;
    return;
  }
  totals.promptTokens += usage.promptTokens;
  totals.completionTokens += usage.completionTokens;
  totals.totalTokens += usage.totalTokens;
  totals.calls += 1;
}

/**
 * Creates a meter for the model calls of one piece of work (an agent turn, a step of a run).
 * Counting is ambient (`AsyncLocalStorage`), so code between the meter and the model call needs no
 * extra parameter. Created inside another meter's `run`, it counts into that one too.
 *
 * @example
 * const meter = createUsageMeter();
 * const plan = await meter.run(() => generateObject({ client, model, schema, schemaName, messages }));
 * meter.usage(); // { promptTokens: 120, completionTokens: 40, totalTokens: 160, calls: 1, unknownCalls: 0 }
 */
export function createUsageMeter(): UsageMeter {
  const node: MeterNode = { totals: emptyUsage(), parent: active.getStore() };
  return {
    run: (work) => active.run(node, work),
    record: (usage) => {
      for (let meter: MeterNode | undefined = node; meter; meter = meter.parent) {
        add(meter.totals, usage);
      }
    },
    usage: () => ({ ...node.totals }),
  };
}

/**
 * Counts one model call in the meters of the current async context (none: nothing happens).
 * `completeChat` and `streamChat` call it; code that calls a model another way calls it too.
 * `undefined`: the call's usage is unknown.
 */
export function recordUsage(usage: TokenUsage | undefined): void {
  for (let meter = active.getStore(); meter; meter = meter.parent) add(meter.totals, usage);
}

/**
 * Counts a model call that failed, when it may have cost tokens: one that timed out or was
 * aborted (the upstream may have done the work) is a call of unknown usage; one the upstream
 * refused (an HTTP error) or never received (no connection) is not counted.
 */
export function recordFailedCall(error: unknown): void {
  if (error instanceof UpstreamTimeoutError || error instanceof AbortError) recordUsage(undefined);
}
