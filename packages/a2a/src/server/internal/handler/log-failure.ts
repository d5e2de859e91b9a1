import { FleetError } from '@fleet/errors';
import { A2AError } from '../../../errors/a2a-errors';
import type { A2ALogger } from '../../handler-types';

/**
 * Logs a failed request or turn by what it says about this server: the caller's mistakes (A2A
 * errors other than -32603) at debug, other expected fleet errors at warn, the rest in full at
 * error.
 */
export function logFailure(
  logger: A2ALogger | undefined,
  error: unknown,
  where: Record<string, unknown>,
): void {
  if (A2AError.isA2AError(error) && error.jsonRpcCode !== -32603) {
    logger?.debug({ ...where, code: error.jsonRpcCode }, error.message);
  } else if (FleetError.isInstance(error) && error.code !== 'INTERNAL') {
    logger?.warn({ ...where, code: error.code }, error.message);
  } else {
    logger?.error({ ...where, err: error }, 'A2A request failed');
  }
}
