import { formatIssuePath } from '@fleet/errors';
import type { JsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

/** Longest message a failed check carries; ajv lists every problem and a hostile schema has many. */
const MAX_MESSAGE_LENGTH = 2000;
/** Most field names a failed check lists. */
const MAX_FIELDS = 50;

/** What {@link JsonSchemaChecker.check} found. */
export type JsonSchemaCheck =
  | { valid: true }
  | {
      valid: false;
      /**
       * `mismatch`: the value does not fit the schema. `unusable-schema`: the schema itself cannot be
       * compiled (an unknown dialect, a broken `$ref`), so nothing could be checked.
       */
      reason: 'mismatch' | 'unusable-schema';
      /** Every problem, ajv's words with the JSON paths in dotted form: `path: must be string`. */
      message: string;
      /** The fields at fault, dotted (`entities[0].name`); '' for the value as a whole. */
      fields: string[];
    };

/** Checks values against JSON Schemas, compiling each schema object once. */
export interface JsonSchemaChecker {
  check(schema: object, value: unknown): JsonSchemaCheck;
}

/** A JSON pointer (`/entities/0/name`) as a dotted path (`entities[0].name`). */
function dottedPath(pointer: string): string {
  if (pointer === '') return '';
  const segments = pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
  return formatIssuePath(segments);
}

function join(parent: string, child: string): string {
  return parent === '' ? child : `${parent}.${child}`;
}

/**
 * The fields ajv's message names. ajv's text is `data/a must be string, data must have required
 * property 'b'`; the properties `additionalProperties: false` refuses are not named in it, so the
 * top level's are found here.
 */
function describeProblems(
  errorMessage: string,
  schema: object,
  value: unknown,
): { message: string; fields: string[] } {
  const fields = new Set<string>();
  const pieces = errorMessage.split(/, (?=data[/ ])/);
  const described = pieces.map((piece) => {
    const match = /^data(\/\S*)? (.*)$/s.exec(piece);
    if (match === null) return piece;
    const at = dottedPath(match[1] ?? '');
    const problem = match[2] ?? '';
    const required = /must have required property '([^']+)'/.exec(problem);
    fields.add(required?.[1] === undefined ? at : join(at, required[1]));
    return at === '' ? problem : `${at}: ${problem}`;
  });
  const record = schema as { additionalProperties?: unknown; properties?: unknown };
  if (
    record.additionalProperties === false &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value)
  ) {
    const known =
      typeof record.properties === 'object' && record.properties !== null
        ? Object.keys(record.properties)
        : [];
    const extra = Object.keys(value).filter((key) => !known.includes(key));
    if (extra.length > 0) {
      fields.delete('');
      for (const key of extra) fields.add(key);
      described.push(`unknown field(s): ${extra.join(', ')}`);
    }
  }
  const message = described.join('; ');
  return {
    message:
      message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message,
    fields: [...fields].slice(0, MAX_FIELDS),
  };
}

/**
 * A JSON Schema checker built on the MCP SDK's own validator (`AjvJsonSchemaValidator`: draft
 * 2020-12 by default, 2019-09 and draft-07 when the schema's `$schema` says so, formats checked),
 * so tool arguments and structured results are judged the way MCP servers judge them. Each schema
 * object is compiled once (a `WeakMap`: the schemas of a tool list live as long as the list).
 *
 * @example
 * const checker = createJsonSchemaChecker();
 * const checked = checker.check(tool.inputSchema, args);
 * if (!checked.valid) throw new ValidationError(`Bad arguments: ${checked.message}`);
 */
export function createJsonSchemaChecker(): JsonSchemaChecker {
  const provider = new AjvJsonSchemaValidator();
  const compiled = new WeakMap<object, JsonSchemaValidator<unknown> | { error: string }>();
  const validatorOf = (schema: object): JsonSchemaValidator<unknown> | { error: string } => {
    const known = compiled.get(schema);
    if (known !== undefined) return known;
    let validator: JsonSchemaValidator<unknown> | { error: string };
    try {
      validator = provider.getValidator<unknown>(schema);
    } catch (error) {
      validator = { error: error instanceof Error ? error.message : String(error) };
    }
    compiled.set(schema, validator);
    return validator;
  };
  return {
    check(schema, value) {
      const validator = validatorOf(schema);
      if (typeof validator !== 'function') {
        return {
          valid: false,
          reason: 'unusable-schema',
          message: `The schema cannot be used: ${validator.error.slice(0, MAX_MESSAGE_LENGTH)}`,
          fields: [],
        };
      }
      const result = validator(value);
      if (result.valid) return { valid: true };
      return {
        valid: false,
        reason: 'mismatch',
        ...describeProblems(result.errorMessage, schema, value),
      };
    },
  };
}

const shared = createJsonSchemaChecker();

/**
 * Checks `value` against the JSON Schema `schema` with one shared {@link createJsonSchemaChecker}.
 *
 * @example
 * checkJsonSchema({ type: 'object', required: ['path'] }, {});
 * // { valid: false, reason: 'mismatch', message: "must have required property 'path'", fields: ['path'] }
 */
export function checkJsonSchema(schema: object, value: unknown): JsonSchemaCheck {
  return shared.check(schema, value);
}
