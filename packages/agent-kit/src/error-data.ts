import { errorBodySchema, toFleetError, type ErrorBody } from '@fleet/errors';

/**
 * The data part of a FAILED or REJECTED status message, beside its text: the fleet's error body
 * (`errorBodySchema`), so callers see the same `{ error: { code, message, details? } }` an HTTP
 * error would carry. The code is one of the fleet's `ERROR_CODES`.
 */
export const errorDataSchema = errorBodySchema;
/** See {@link errorDataSchema}. */
export type ErrorData = ErrorBody;

/**
 * The error data part for any error. A retryable failure says when to try again:
 * `details.retryAfterSeconds` (the gateway's Retry-After).
 *
 * @example
 * errorData(new ValidationError('empty question')); // { error: { code: 'VALIDATION_FAILED', message: 'empty question' } }
 */
export function errorData(error: unknown): ErrorData {
  const fleetError = toFleetError(error);
  const details =
    fleetError.retryAfterSeconds === undefined
      ? fleetError.details
      : { retryAfterSeconds: fleetError.retryAfterSeconds, ...fleetError.details };
  return {
    error: {
      code: fleetError.code,
      message: fleetError.message,
      ...(details === undefined ? {} : { details }),
    },
  };
}
