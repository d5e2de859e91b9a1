import type { z } from 'zod';
import { ValidationError } from './fleet-error';

/** One validation problem, as clients see it in `details.issues`. */
export interface ValidationIssue {
  /** Where, in OpenAI's `param` notation: `messages[0].role`. */
  path: string;
  message: string;
}

/** Formats a zod path as `messages[0].content`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let formatted = '';
  for (const segment of path) {
    if (typeof segment === 'number') formatted += `[${segment}]`;
    else formatted += formatted === '' ? String(segment) : `.${String(segment)}`;
  }
  return formatted;
}

/** Options for {@link validationErrorFromZod}. */
export interface ValidationErrorFromZodOptions {
  /** Names what failed, e.g. 'The request body'. @default 'The request body' */
  subject?: string;
}

/**
 * Turns a zod error into a {@link ValidationError} whose message names the first problem and whose
 * `details.issues` lists all of them.
 */
export function validationErrorFromZod(
  error: z.ZodError,
  { subject = 'The request body' }: ValidationErrorFromZodOptions = {},
): ValidationError {
  const issues: ValidationIssue[] = error.issues.map((issue) => ({
    path: formatIssuePath(issue.path),
    message: issue.message,
  }));
  const first = issues[0];
  const where = first && first.path !== '' ? ` at '${first.path}'` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new ValidationError(
    `${subject} is invalid${where}: ${first?.message ?? 'unknown'}${more}`,
    {
      details: { issues },
      ...(first && first.path !== '' ? { param: first.path } : {}),
      cause: error,
    },
  );
}
