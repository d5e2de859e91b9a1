/**
 * The logging surface the HTTP plumbing needs. A pino logger from `@fleet/telemetry`'s
 * `createLogger` satisfies it; tests can pass a silent one.
 */
export interface HttpLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  debug(object: object, message?: string): void;
  /** pino's check; lets hot paths skip building a line nobody will see. */
  isLevelEnabled?(level: string): boolean;
}

/** A logger that drops everything. */
export const silentLogger: HttpLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  isLevelEnabled: () => false,
};
