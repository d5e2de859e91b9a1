import { ServiceUnavailableError, type FleetErrorOptions } from '@fleet/errors';

/**
 * The sandbox cannot run code here (bubblewrap missing or unable to create its namespaces), so
 * nothing runs. The message says why and what to do.
 */
export class SandboxUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, { retryable: false, ...options });
  }
}
