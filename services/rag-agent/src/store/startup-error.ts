import { ConfigError, type FleetErrorOptions } from '@fleet/errors';

/**
 * The RAG store cannot start as configured: the database lacks pgvector, holds embeddings of
 * another model or size, or is in use by another process. A {@link ConfigError}
 * (`CONFIG_INVALID`): the message says what is wrong and what to do, and the service exits.
 */
export class StartupError extends ConfigError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, options);
  }
}
