import type { z } from 'zod';
import { MalformedJsonError, ValidationError } from './fleet-error';
import { validationErrorFromZod } from './validation';

/** Options for {@link parseJson}. */
export interface ParseJsonOptions<TSchema extends z.ZodType> {
  text: string;
  schema: TSchema;
  /** Names the thing being parsed in error messages. @default 'The request body' */
  subject?: string;
  /**
   * Deepest nesting of arrays and objects accepted: deeper input is a {@link ValidationError}, so
   * no later `JSON.stringify` or recursive walk over it can overflow the stack.
   * @default {@link MAX_JSON_DEPTH}
   */
  maxDepth?: number;
}

/** The deepest nesting of arrays and objects the fleet accepts in external JSON. */
export const MAX_JSON_DEPTH = 100;

/**
 * True when `value` nests arrays and objects deeper than `maxDepth` levels (a scalar is depth 0).
 * Iterative, so it cannot itself overflow the stack however deep the input.
 *
 * @example
 * jsonDepthExceeds({ a: [1] }, 1); // true: depth 2
 */
export function jsonDepthExceeds(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/** The result of {@link safeParseJson}. */
export type SafeParseJsonResult<T> =
  { success: true; value: T } | { success: false; error: MalformedJsonError | ValidationError };

/**
 * Parses external JSON text and validates it (CONTRIBUTING.md convention 10). Throws
 * {@link MalformedJsonError} for bad JSON and {@link ValidationError} for a schema mismatch.
 *
 * @example
 * const body = parseJson({ text, schema: chatCompletionRequestSchema });
 */
export function parseJson<TSchema extends z.ZodType>(
  options: ParseJsonOptions<TSchema>,
): z.output<TSchema> {
  const result = safeParseJson(options);
  if (!result.success) throw result.error;
  return result.value;
}

/** Like {@link parseJson}, but returns the error instead of throwing it. */
export function safeParseJson<TSchema extends z.ZodType>({
  text,
  schema,
  subject = 'The request body',
  maxDepth = MAX_JSON_DEPTH,
}: ParseJsonOptions<TSchema>): SafeParseJsonResult<z.output<TSchema>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return {
      success: false,
      error: new MalformedJsonError(`${subject} is not valid JSON: ${reason}`, { cause }),
    };
  }
  if (jsonDepthExceeds(raw, maxDepth)) {
    return {
      success: false,
      error: new ValidationError(
        `${subject} nests arrays and objects deeper than ${maxDepth} levels.`,
      ),
    };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return { success: false, error: validationErrorFromZod(parsed.error, { subject }) };
  }
  return { success: true, value: parsed.data };
}
