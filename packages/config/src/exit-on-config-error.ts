import { ConfigError } from '@fleet/errors';

/**
 * Loads a service's configuration at boot; when it is invalid, prints the message naming every bad
 * variable and exits 1 (no stack trace: the message is the whole story). Other errors are rethrown.
 *
 * @example
 * export const config = exitOnConfigError('planner', () => loadPlannerConfig());
 */
export function exitOnConfigError<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
