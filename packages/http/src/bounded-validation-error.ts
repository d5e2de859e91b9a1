import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '@fleet/errors';
import type { UncheckedItemsParams } from './bounded-array';

/** Problems the message names (the first in full, the next ones by path and message). */
export const NAMED_ISSUES = 3;

/** Problems `details.issues` lists at most; the rest are only counted (`details.moreIssues`). */
export const MAX_REPORTED_ISSUES = 20;

/** Longest message of one problem; longer ones (a list of every unknown key) are cut. */
export const MAX_ISSUE_MESSAGE_LENGTH = 300;

/** Options for {@link boundedValidationError}. */
export interface BoundedValidationErrorOptions {
  /** Names what failed. @default 'The request body' */
  subject?: string;
}

function formatPath(path: readonly PropertyKey[]): string {
  let formatted = '';
  for (const segment of path) {
    if (typeof segment === 'number') formatted += `[${segment}]`;
    else formatted += formatted === '' ? String(segment) : `.${String(segment)}`;
  }
  return formatted;
}

function uncheckedItemsOf(issue: z.core.$ZodIssue): number | undefined {
  if (issue.code !== 'custom') return undefined;
  const count = (issue.params as Partial<UncheckedItemsParams> | undefined)?.uncheckedItems;
  return typeof count === 'number' ? count : undefined;
}

const where = (issue: ValidationIssue): string => (issue.path === '' ? '' : ` at '${issue.path}'`);

/**
 * A zod error as a {@link ValidationError} of bounded size: the message names the first few
 * problems ({@link NAMED_ISSUES}) and how many more there are, and says when checking stopped
 * early ({@link boundedArray}) and how many items it did not check; `details.issues` lists at most
 * {@link MAX_REPORTED_ISSUES}, each message cut at {@link MAX_ISSUE_MESSAGE_LENGTH}; `param` is the
 * first problem's path.
 *
 * @example
 * const parsed = schema.safeParse(value);
 * if (!parsed.success) throw boundedValidationError(parsed.error);
 */
export function boundedValidationError(
  error: z.ZodError,
  { subject = 'The request body' }: BoundedValidationErrorOptions = {},
): ValidationError {
  let unchecked = 0;
  const problems: z.core.$ZodIssue[] = [];
  for (const issue of error.issues) {
    const count = uncheckedItemsOf(issue);
    if (count === undefined) problems.push(issue);
    else unchecked += count;
  }
  const issues: ValidationIssue[] = problems.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({
    path: formatPath(issue.path).slice(0, MAX_ISSUE_MESSAGE_LENGTH),
    message:
      issue.message.length > MAX_ISSUE_MESSAGE_LENGTH
        ? `${issue.message.slice(0, MAX_ISSUE_MESSAGE_LENGTH)}…`
        : issue.message,
  }));
  const [first, ...next] = issues.slice(0, NAMED_ISSUES);
  const named = next.map((issue) => `;${where(issue)}: ${issue.message}`).join('');
  const more = problems.length - NAMED_ISSUES;
  const stopped =
    unchecked > 0
      ? ` Checking stopped at the first problems; ${unchecked} more items were not checked.`
      : '';
  const problem =
    first === undefined
      ? `${subject} is invalid`
      : `${subject} is invalid${where(first)}: ${first.message}${named}${more > 0 ? ` (and ${more} more)` : ''}`;
  const message = stopped === '' ? problem : `${problem.replace(/\.$/, '')}.${stopped}`;
  return new ValidationError(message, {
    details: {
      issues,
      ...(problems.length > issues.length ? { moreIssues: problems.length - issues.length } : {}),
      ...(unchecked > 0 ? { uncheckedItems: unchecked } : {}),
    },
    ...(first !== undefined && first.path !== '' ? { param: first.path } : {}),
  });
}
