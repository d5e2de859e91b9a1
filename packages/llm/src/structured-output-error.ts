import { ValidationError, type FleetErrorOptions } from '@fleet/errors';

/** Options for {@link StructuredOutputError}. */
export interface StructuredOutputErrorOptions extends FleetErrorOptions {
  /** The model's answer, exactly as it came. */
  text: string;
}

/**
 * The model's structured output was not JSON, did not fit the schema, or was a refusal. A
 * {@link ValidationError} (code `VALIDATION_FAILED`) that keeps the model's raw text in `text`
 * (and in `details.text`, with the schema issues in `details.issues`), so a caller can show it,
 * log it, or quote it back to the model when it asks again.
 */
export class StructuredOutputError extends ValidationError {
  /** The model's raw answer. */
  readonly text: string;

  constructor(message: string, { text, details, ...options }: StructuredOutputErrorOptions) {
    super(message, { ...options, details: { ...details, text } });
    this.text = text;
  }
}
