import { BadRequestError } from '@fleet/errors';
import type { PlanApproval } from './orchestrate';

/** The values `X-Plan-Approval` accepts. */
export const PLAN_APPROVAL_VALUES = ['required', 'none'] as const satisfies readonly PlanApproval[];

/**
 * Reads `X-Plan-Approval` (case-insensitive): `required` makes the orchestrator show the plan and
 * wait for a person's approval before any agent runs; `none` or no header runs it at once.
 *
 * @throws BadRequestError (400) for any other value, naming the allowed ones.
 */
export function parsePlanApprovalHeader(value: string | string[] | undefined): PlanApproval {
  if (value === undefined) return 'none';
  const text = Array.isArray(value) ? value.join(',') : value;
  const normalised = text.trim().toLowerCase();
  if (normalised === '') return 'none';
  if ((PLAN_APPROVAL_VALUES as readonly string[]).includes(normalised)) {
    return normalised as PlanApproval;
  }
  throw new BadRequestError(
    `Unknown X-Plan-Approval '${text.slice(0, 64)}'. Allowed values: ${PLAN_APPROVAL_VALUES.join(', ')}.`,
    { param: 'X-Plan-Approval', details: { allowed: [...PLAN_APPROVAL_VALUES] } },
  );
}
