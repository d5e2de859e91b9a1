import { ServiceUnavailableError } from '@fleet/errors';

/**
 * No replica of the agent is known to be up (its card or health check fails), so nothing was
 * sent: even the continuation of a task that may have acted can safely be tried again.
 */
export class AgentUnavailableError extends ServiceUnavailableError {
  constructor(agent: string) {
    super(`${agent} is not available right now (its card or health check fails).`, {
      retryable: true,
    });
  }
}
