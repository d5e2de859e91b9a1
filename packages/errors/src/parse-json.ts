import type { z } from 'zod';
import { MalformedJsonError, type ValidationError } from './fleet-error';
import { validationErrorFromZod } from './validation';

/** Options for {@link parseJson}. */
export interface ParseJsonOptions<TSchema extends z.ZodType> {
  text: string;
  schema: TSchema;
  /** Names the thing being parsed in error messages. @default 'The request body' */
  subject?: string;
}

/** The result of {@link safeParseJson}. */
export type SafeParseJsonResult<T> =
  { success: true; value: T } | { success: false; error: MalformedJsonError | ValidationError };

/**
 * Parses external JSON text and validates it (house style rule 10). Throws
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
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return { success: false, error: validationErrorFromZod(parsed.error, { subject }) };
  }
  return { success: true, value: parsed.data };
}
