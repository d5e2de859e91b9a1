import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

/** What checking a value against a server's JSON Schema says. */
export type SchemaCheck = { valid: true } | { valid: false; reason: string };

/** Most compiled schemas kept per connection; a server that lists more gets them compiled again. */
const MAX_CACHED_VALIDATORS = 256;

/**
 * Checks values against JSON Schemas a server sent (a tool's `outputSchema`, an elicitation's
 * `requestedSchema`) with the SDK's AJV provider, compiling each schema once. A schema that does
 * not compile is reported as a failed check, never thrown.
 */
export class SchemaValidator {
  private readonly provider = new AjvJsonSchemaValidator();
  private readonly compiled = new Map<object, (value: unknown) => SchemaCheck>();

  check(schema: object, value: unknown): SchemaCheck {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.compile(schema);
      if (this.compiled.size >= MAX_CACHED_VALIDATORS) this.compiled.clear();
      this.compiled.set(schema, validate);
    }
    return validate(value);
  }

  private compile(schema: object): (value: unknown) => SchemaCheck {
    try {
      const validator = this.provider.getValidator(schema);
      return (value) => {
        const result = validator(value);
        return result.valid
          ? { valid: true }
          : { valid: false, reason: result.errorMessage.slice(0, 300) };
      };
    } catch (error) {
      const reason = `the schema does not compile: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`;
      return () => ({ valid: false, reason });
    }
  }
}
