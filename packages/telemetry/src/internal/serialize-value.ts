/** MIME types Phoenix understands for `input.mime_type` / `output.mime_type`. */
export type ValueMimeType = 'text/plain' | 'application/json';

/** A value rendered for a span attribute. */
export interface SerializedValue {
  text: string;
  mimeType: ValueMimeType;
}

/** 32 KiB: large enough for a prompt or an answer, small enough to keep export batches cheap. */
export const DEFAULT_MAX_VALUE_LENGTH = 32 * 1024;

let processMaxValueLength = DEFAULT_MAX_VALUE_LENGTH;

/** Sets the process-wide cap used when a call passes no `maxValueLength` of its own. */
export function setDefaultMaxValueLength(maxValueLength: number): void {
  processMaxValueLength = normalizeMaxLength(maxValueLength);
}

/** The process-wide cap (see {@link setDefaultMaxValueLength}). */
export function getDefaultMaxValueLength(): number {
  return processMaxValueLength;
}

/**
 * Renders `value` for `input.value`/`output.value`: strings stay as they are (`text/plain`),
 * everything else becomes JSON (`application/json`, which Phoenix pretty-prints). Values that
 * cannot be serialised (cycles, BigInt) fall back to `String(value)`. Text longer than
 * `maxLength` is cut and marked; a cut JSON document is no longer JSON, so it is labelled
 * `text/plain`.
 */
export function serializeValue(value: unknown, maxLength = processMaxValueLength): SerializedValue {
  let serialized: SerializedValue;
  if (typeof value === 'string') {
    serialized = { text: value, mimeType: 'text/plain' };
  } else {
    const json = tryStringify(value);
    serialized =
      json === undefined
        ? { text: String(value), mimeType: 'text/plain' }
        : { text: json, mimeType: 'application/json' };
  }
  const limit = normalizeMaxLength(maxLength);
  if (serialized.text.length <= limit) return serialized;
  return { text: truncateText(serialized.text, limit), mimeType: 'text/plain' };
}

/** Serialises to a JSON string, or a plain string as it is, capped like {@link serializeValue}. */
export function toJsonString(value: unknown, maxLength = processMaxValueLength): string {
  return serializeValue(value, maxLength).text;
}

/** Cuts `text` to `maxLength` characters and appends a marker naming how much was dropped. */
export function truncateText(text: string, maxLength = processMaxValueLength): string {
  const limit = normalizeMaxLength(maxLength);
  if (text.length <= limit) return text;
  let end = limit;
  // Never split a surrogate pair: half an emoji is an invalid UTF-16 string on the wire.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…[truncated ${text.length - end} characters]`;
}

function tryStringify(value: unknown): string | undefined {
  try {
    // JSON.stringify returns undefined for undefined, functions and symbols.
    const json: string | undefined = JSON.stringify(value);
    return json;
  } catch {
    return undefined;
  }
}

function normalizeMaxLength(maxLength: number): number {
  if (!Number.isFinite(maxLength) || maxLength < 1) return DEFAULT_MAX_VALUE_LENGTH;
  return Math.floor(maxLength);
}
