import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { classifyFailure } from './classify-failure';
import type { NodeOutcome } from './node-outcome';

/** Options for {@link createAgentBreakers}. */
export interface AgentBreakersOptions {
  /** Consecutive transient failures that open an agent's circuit. @default 5 */
  threshold?: number;
  /** How long an open circuit fails calls fast before it lets one test call through. @default 30000 */
  halfOpenAfterMs?: number;
}

/** One circuit breaker per agent name, shared by every run of one orchestrator process. */
export interface AgentBreakers {
  /** The agent's breaker (created closed on first use). */
  forAgent(agent: string): CircuitBreakerPolicy;
  /** `closed`, `open`, `half-open` or `isolated`. */
  stateOf(agent: string): BreakerState;
  /** The agents that have a breaker (every agent called since start-up). */
  agents(): string[];
}

/** A circuit breaker's state, as {@link AgentBreakers.stateOf} names it. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'isolated';

/** Every {@link BreakerState}, in the order metrics list them. */
export const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half-open', 'isolated'];

const STATE_NAMES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

/** True when the circuit refused the call (open, or half-open with its test call in flight). */
export function isBrokenCircuit(error: unknown): boolean {
  return error instanceof BrokenCircuitError;
}

/**
 * Builds the per-agent circuit breakers (cockatiel `ConsecutiveBreaker`). Only transient failures
 * count — thrown connection errors and time-outs, and outcomes an agent marked retryable — so an
 * agent that answers "FAILED: no such mailbox" stays closed: it is healthy, the request was bad.
 *
 * @example
 * const breakers = createAgentBreakers({ threshold: 5, halfOpenAfterMs: 30_000 });
 * await breakers.forAgent('web-agent').execute(() => callAgent());
 */
export function createAgentBreakers({
  threshold = 5,
  halfOpenAfterMs = 30_000,
}: AgentBreakersOptions = {}): AgentBreakers {
  const breakers = new Map<string, CircuitBreakerPolicy>();
  const policy = handleWhen((error) => classifyFailure(error).transient).orWhenResult(
    (result) =>
      typeof result === 'object' &&
      result !== null &&
      (result as NodeOutcome).status === 'failed' &&
      (result as Extract<NodeOutcome, { status: 'failed' }>).retryable === true,
  );
  const forAgent = (agent: string): CircuitBreakerPolicy => {
    let breaker = breakers.get(agent);
    if (breaker === undefined) {
      breaker = circuitBreaker(policy, {
        halfOpenAfter: halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(threshold),
      });
      breakers.set(agent, breaker);
    }
    return breaker;
  };
  return {
    forAgent,
    stateOf: (agent) => STATE_NAMES[breakers.get(agent)?.state ?? CircuitState.Closed],
    agents: () => [...breakers.keys()],
  };
}
