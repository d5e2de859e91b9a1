import { z } from 'zod';

/**
 * How many invalid items of one array are reported before checking stops: the rest of the array
 * is not looked at, so a body of a million bad items costs what five cost.
 */
export const MAX_ITEM_ISSUES = 5;

/**
 * The `params` of the issue a {@link boundedArray} adds when it stopped checking: how many items
 * it left unchecked. {@link boundedValidationError} names it in the message.
 */
export interface UncheckedItemsParams {
  uncheckedItems: number;
}

/** Options for {@link boundedArray}. */
export interface BoundedArrayOptions {
  /** The message when the value is not an array (or is missing). */
  error: string;
  /** Fewest items; fewer is this issue. */
  min?: { count: number; message: string } | undefined;
  /** Most items; more is one issue, before any item is checked. */
  max?: { count: number; message: string } | undefined;
  /** Invalid items reported before checking stops. @default {@link MAX_ITEM_ISSUES} */
  maxIssues?: number | undefined;
}

type Context = z.RefinementCtx;

/**
 * Adds a nested schema's issue to `context` under `prefix`, keeping the
 * {@link UncheckedItemsParams} of a nested bounded array.
 */
function forwardIssue(
  context: Context,
  issue: z.core.$ZodIssue,
  prefix: readonly PropertyKey[] = [],
): void {
  context.addIssue({
    code: 'custom',
    message: issue.message,
    path: [...prefix, ...issue.path],
    ...(issue.code === 'custom' && issue.params !== undefined ? { params: issue.params } : {}),
  });
}

/**
 * Checks `items` against `item` one by one into `context` and returns the parsed items, or
 * `z.NEVER` once one failed. Stops after `maxIssues` invalid items, with an issue saying how
 * many were left unchecked ({@link UncheckedItemsParams}); each invalid item adds at most
 * `maxIssues` of its own issues (and a nested array's note that it stopped).
 */
function checkItems<T>(
  items: readonly unknown[],
  { item, context, maxIssues }: { item: z.ZodType<T>; context: Context; maxIssues: number },
): T[] {
  const parsed: T[] = [];
  let invalid = 0;
  for (let index = 0; index < items.length; index += 1) {
    const result = item.safeParse(items[index]);
    if (result.success) {
      if (invalid === 0) parsed.push(result.data);
      continue;
    }
    invalid += 1;
    for (const issue of result.error.issues.slice(0, maxIssues + 1)) {
      forwardIssue(context, issue, [index]);
    }
    const unchecked = items.length - index - 1;
    if (invalid >= maxIssues && unchecked > 0) {
      context.addIssue({
        code: 'custom',
        message: `checking stopped after ${invalid} invalid items; ${unchecked} more were not checked`,
        params: { uncheckedItems: unchecked } satisfies UncheckedItemsParams,
      });
      break;
    }
  }
  return invalid === 0 ? parsed : z.NEVER;
}

/**
 * An array whose work is bounded by its first few problems, not by its length: its length is
 * checked first (`max`, one issue), then its items one by one, stopping after `maxIssues` invalid
 * ones. `z.array` checks every item and reports every problem, so a body of 1.6 million bad items
 * made millions of issue objects (a gigabyte, seconds of CPU) for one 400.
 *
 * @example
 * messages: boundedArray(messageSchema, { error: 'messages must be an array of messages' })
 */
export function boundedArray<T>(
  item: z.ZodType<T>,
  { error, min, max, maxIssues = MAX_ITEM_ISSUES }: BoundedArrayOptions,
): z.ZodType<T[], unknown> {
  return z.unknown().transform((value, context): T[] => {
    if (!Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: error });
      return z.NEVER;
    }
    if (max !== undefined && value.length > max.count) {
      context.addIssue({ code: 'custom', message: max.message });
      return z.NEVER;
    }
    if (min !== undefined && value.length < min.count) {
      context.addIssue({ code: 'custom', message: min.message });
      return z.NEVER;
    }
    return checkItems(value, { item, context, maxIssues });
  });
}

/** Options for {@link stringOr}. */
export interface StringOrOptions {
  /** The message for anything that is neither. */
  error: string;
  /** Numbers are accepted as well (an embeddings input item: a text, a token, or tokens). */
  numbers?: boolean;
}

/**
 * A string (or a number, with `numbers`), or what `array` accepts (a {@link boundedArray}), with
 * one message for anything else. Unlike `z.union`, an array's own problems are reported as they
 * are (`input[3]: …`, and where checking stopped), not folded into the union's one message.
 *
 * @example
 * input: stringOr(boundedArray(itemSchema, { error }), { error: 'input must be a string or an array' })
 */
export function stringOr<T>(
  array: z.ZodType<T[], unknown>,
  options: StringOrOptions & { numbers?: false },
): z.ZodType<string | T[], unknown>;
export function stringOr<T>(
  array: z.ZodType<T[], unknown>,
  options: StringOrOptions & { numbers: true },
): z.ZodType<string | number | T[], unknown>;
export function stringOr<T>(
  array: z.ZodType<T[], unknown>,
  { error, numbers = false }: StringOrOptions,
): z.ZodType<string | number | T[], unknown> {
  return z.unknown().transform((value, context): string | number | T[] => {
    if (typeof value === 'string' || (numbers && typeof value === 'number')) return value;
    if (!Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: error });
      return z.NEVER;
    }
    const result = array.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) forwardIssue(context, issue);
    return z.NEVER;
  });
}
