import type { z } from 'zod';

/** The outcome of {@link parseJsonText}: the validated value, or a message fit for a 400 body. */
export type ParseJsonTextResult<T> =
  { success: true; value: T } | { success: false; message: string; param?: string };

/**
 * Parses text a client sent and validates it with a zod schema. The one place this package calls
 * `JSON.parse` (CONTRIBUTING.md convention 10); it never throws, because a test server answers bad input with
 * an error body instead of crashing.
 */
export function parseJsonText<TSchema extends z.ZodType>(
  text: string,
  schema: TSchema,
): ParseJsonTextResult<z.output<TSchema>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return { success: false, message: `The request body is not valid JSON: ${reason}` };
  }
  return validateValue(raw, schema);
}

function validateValue<TSchema extends z.ZodType>(
  value: unknown,
  schema: TSchema,
): ParseJsonTextResult<z.output<TSchema>> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { success: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const param = issue?.path.map(String).join('.');
  return {
    success: false,
    message: `Invalid request body: ${param ? `${param}: ` : ''}${issue?.message ?? 'invalid value'}`,
    ...(param ? { param } : {}),
  };
}

/**
 * Like {@link parseJsonText} for a body already parsed by {@link tryParseJson}: validates `value`,
 * and only re-parses `text` (for the error message) when it was not JSON.
 */
export function validateParsedJson<TSchema extends z.ZodType>(options: {
  text: string;
  value: unknown;
  schema: TSchema;
}): ParseJsonTextResult<z.output<TSchema>> {
  const { text, value, schema } = options;
  return value === undefined ? parseJsonText(text, schema) : validateValue(value, schema);
}

/** Parses JSON text without validation; `undefined` when the text is empty or not JSON. */
export function tryParseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
