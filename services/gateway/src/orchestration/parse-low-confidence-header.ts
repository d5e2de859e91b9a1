import { BadRequestError } from '@fleet/errors';
import type { LowConfidence } from './orchestrate';

/** The values `X-Low-Confidence` accepts. */
export const LOW_CONFIDENCE_VALUES = [
  'run',
  'approve',
  'ask',
] as const satisfies readonly LowConfidence[];

/**
 * Reads `X-Low-Confidence` (case-insensitive): what the orchestrator does with a plan whose
 * confidence is below its threshold — `run` it anyway, `approve` (show it and wait for a person's
 * approval) or `ask` (ask the person a question first; the reply re-plans, "go ahead" runs it). No
 * header (or an empty one): the orchestrator's default, ORCHESTRATOR_LOW_CONFIDENCE.
 *
 * @throws BadRequestError (400) for any other value, naming the allowed ones.
 */
export function parseLowConfidenceHeader(
  value: string | string[] | undefined,
): LowConfidence | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  const normalised = text.trim().toLowerCase();
  if (normalised === '') return undefined;
  if ((LOW_CONFIDENCE_VALUES as readonly string[]).includes(normalised)) {
    return normalised as LowConfidence;
  }
  throw new BadRequestError(
    `Unknown X-Low-Confidence '${text.slice(0, 64)}'. Allowed values: ${LOW_CONFIDENCE_VALUES.join(', ')}.`,
    { param: 'X-Low-Confidence', details: { allowed: [...LOW_CONFIDENCE_VALUES] } },
  );
}
