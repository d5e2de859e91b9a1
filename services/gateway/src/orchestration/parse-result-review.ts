import { resultReviewSchema, type ResultReview } from '@fleet/a2a';
import { BadRequestError } from '@fleet/errors';

/** The header that asks for a person's review of the answer before it is sent. */
export const RESULT_REVIEW_HEADER = 'X-Result-Review';

/** The request body field that asks the same, for clients that cannot set headers. */
export const RESULT_REVIEW_FIELD = 'fleet_result_review';

/** The values `X-Result-Review` and `fleet_result_review` accept. */
export const RESULT_REVIEW_VALUES = resultReviewSchema.options;

/**
 * Reads `X-Result-Review` (case-insensitive): `required` makes the run pause after composing for a
 * person to review the answer (`POST /v1/sessions/{id}/review`); `none` sends it at once. Absent
 * or blank: undefined (no review).
 *
 * @throws BadRequestError (400) for any other value, naming the allowed ones.
 */
export function parseResultReviewHeader(value: string | undefined): ResultReview | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = resultReviewSchema.safeParse(value.trim().toLowerCase());
  if (parsed.success) return parsed.data;
  throw new BadRequestError(
    `Unknown ${RESULT_REVIEW_HEADER} '${value.slice(0, 64)}'. Allowed values: ${RESULT_REVIEW_VALUES.join(', ')}.`,
    { param: RESULT_REVIEW_HEADER, details: { allowed: [...RESULT_REVIEW_VALUES] } },
  );
}

/**
 * Reads the body field `fleet_result_review`: `"required"` or `"none"`, as the header. Absent or
 * null: undefined.
 *
 * @throws BadRequestError (400) for anything else, naming the allowed values.
 */
export function parseResultReviewField(value: unknown): ResultReview | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = resultReviewSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const shown = typeof value === 'string' ? `'${value.slice(0, 64)}'` : `a ${typeof value}`;
  throw new BadRequestError(
    `${RESULT_REVIEW_FIELD} is ${shown}. Allowed values: ${RESULT_REVIEW_VALUES.join(', ')}.`,
    { param: RESULT_REVIEW_FIELD, details: { allowed: [...RESULT_REVIEW_VALUES] } },
  );
}

/**
 * The header's and the body's answer together: either alone stands, the same value in both
 * stands, and two that disagree are refused (as a steering name both excluded and required is).
 *
 * @throws BadRequestError (400) when the header and the field disagree.
 */
export function joinResultReview(
  header: ResultReview | undefined,
  body: ResultReview | undefined,
): ResultReview | undefined {
  if (header === undefined) return body;
  if (body === undefined || body === header) return header;
  throw new BadRequestError(
    `${RESULT_REVIEW_HEADER} '${header}' and ${RESULT_REVIEW_FIELD} '${body}' disagree: send one of them, or the same value in both.`,
    { param: RESULT_REVIEW_HEADER, details: { allowed: [...RESULT_REVIEW_VALUES] } },
  );
}
