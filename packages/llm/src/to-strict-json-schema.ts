import { z } from 'zod';

/** A JSON Schema node, as `z.toJSONSchema` produces it. */
export type JsonSchema = Record<string, unknown>;

/** A zod schema turned into what OpenAI's strict structured output accepts, and back. */
export interface StrictJsonSchema {
  /** The schema to send as `response_format.json_schema.schema` (with `strict: true`). */
  jsonSchema: JsonSchema;
  /**
   * Undoes the one change strict mode forces on the shape of a value: fields that are optional in
   * the zod schema were sent as required-but-nullable, so a `null` the model put there is removed
   * again (the field is then absent, and zod's `.default()` or `.optional()` applies). Returns a
   * copy; run it before the zod schema parses the model's JSON.
   */
  restoreOptionalFields(value: unknown): unknown;
}

/**
 * Keywords strict mode accepts besides the structural ones handled below (OpenAI's "supported
 * schemas" list). Anything else (`default`, `minLength`, `maxLength`, `examples`, `$schema`, …) is
 * dropped from what is sent: zod still enforces every constraint when it parses the answer.
 */
const KEPT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  '$ref',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** The string formats strict mode understands; zod emits others (`uri`, `cuid`, …) too. */
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

const SAFE = Number.MAX_SAFE_INTEGER;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** A strict node must say what it is; `{}` (z.unknown(), z.any()) matches anything. */
const TYPING_KEYWORDS = ['type', 'anyOf', '$ref', 'enum', 'const'];

const cache = new WeakMap<z.ZodType, StrictJsonSchema>();

function isNode(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unsupported(path: string, what: string): TypeError {
  return new TypeError(
    `Strict structured output cannot express ${what} (at ${path || '<root>'}); change the zod schema.`,
  );
}

function isObjectNode(node: JsonSchema): boolean {
  return node['type'] === 'object' || isNode(node['properties']);
}

/** True when the node already lets `null` through. */
function acceptsNull(node: unknown, root: JsonSchema, depth = 0): boolean {
  if (!isNode(node) || depth > 32) return false;
  const type = node['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if ('const' in node && node['const'] === null) return true;
  if (Array.isArray(node['enum']) && node['enum'].includes(null)) return true;
  const resolved = typeof node['$ref'] === 'string' ? resolveRef(node['$ref'], root) : undefined;
  if (resolved !== undefined) return acceptsNull(resolved, root, depth + 1);
  for (const key of ['anyOf', 'oneOf']) {
    const choices = node[key];
    if (Array.isArray(choices) && choices.some((choice) => acceptsNull(choice, root, depth + 1))) {
      return true;
    }
  }
  return false;
}

function makeNullable(node: JsonSchema, root: JsonSchema): JsonSchema {
  if (acceptsNull(node, root)) return node;
  const type = node['type'];
  // Scalars take the short form OpenAI documents; objects and arrays the anyOf one.
  if (
    typeof type === 'string' &&
    SCALAR_TYPES.has(type) &&
    !('enum' in node) &&
    !('const' in node)
  ) {
    return { ...node, type: [type, 'null'] };
  }
  const anyOf: unknown = node['anyOf'];
  if (Array.isArray(anyOf)) return { ...node, anyOf: [...(anyOf as unknown[]), { type: 'null' }] };
  const { description, ...rest } = node;
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

function strictify(options: { node: unknown; root: JsonSchema; path: string }): JsonSchema {
  const { node, root, path } = options;
  if (node === true) throw unsupported(path, 'a value of any type');
  if (!isNode(node)) throw unsupported(path, 'this schema');
  const child = (value: unknown, segment: string): JsonSchema =>
    strictify({ node: value, root, path: `${path}/${segment}` });
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT_KEYWORDS.has(key)) {
      // z.int() states the safe-integer range; it says nothing to a model, and zod checks it.
      if ((key === 'minimum' || key === 'maximum') && Math.abs(Number(value)) === SAFE) continue;
      result[key] = value;
    } else if (key === 'format') {
      if (typeof value === 'string' && STRICT_FORMATS.has(value)) result[key] = value;
    } else if (key === 'anyOf' || key === 'oneOf') {
      // Discriminated unions come out as oneOf; their branches exclude each other, so anyOf
      // (which strict mode supports) means the same.
      if (!Array.isArray(value)) throw unsupported(path, `a malformed ${key}`);
      const branches = value.map((branch, index) => child(branch, `${key}/${index}`));
      const earlier: unknown = result['anyOf'];
      result['anyOf'] = [...(Array.isArray(earlier) ? (earlier as unknown[]) : []), ...branches];
    } else if (key === 'allOf') {
      throw unsupported(path, 'an intersection (allOf)');
    } else if (key === 'items') {
      if (!isNode(value)) throw unsupported(path, 'tuples');
      result[key] = child(value, 'items');
    } else if (key === 'prefixItems') {
      throw unsupported(path, 'tuples');
    } else if (key === '$defs' || key === 'definitions') {
      if (!isNode(value)) continue;
      result[key] = Object.fromEntries(
        Object.entries(value).map(([name, definition]) => [
          name,
          child(definition, `${key}/${name}`),
        ]),
      );
    } else if (key === 'patternProperties' || key === 'propertyNames') {
      throw unsupported(path, 'records (objects with arbitrary keys)');
    }
    // properties, required and additionalProperties are rebuilt below; the rest is dropped.
  }
  if (isObjectNode(node)) {
    const additional = node['additionalProperties'];
    // `{}`/true come from loose objects: strict mode closes them. A schema here is a record.
    if (isNode(additional) && Object.keys(additional).length > 0) {
      throw unsupported(path, 'records (objects with arbitrary keys)');
    }
    const properties = isNode(node['properties']) ? node['properties'] : {};
    const required = new Set(
      Array.isArray(node['required'])
        ? node['required'].filter((key) => typeof key === 'string')
        : [],
    );
    result['type'] = 'object';
    result['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const strictProperty = child(property, `properties/${name}`);
        return [name, required.has(name) ? strictProperty : makeNullable(strictProperty, root)];
      }),
    );
    result['required'] = Object.keys(properties);
    result['additionalProperties'] = false;
  }
  if (!TYPING_KEYWORDS.some((keyword) => keyword in result)) {
    throw unsupported(path, 'a value of any type');
  }
  return result;
}

function resolveRef(ref: string, root: JsonSchema): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const segment of ref.slice(2).split('/')) {
    const key = decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isNode(node) ? node[key] : undefined;
  }
  return node;
}

/**
 * Walks `value` along the original (non-strict) schema and deletes `null`s from properties that
 * were optional there and do not accept null themselves.
 */
function restore(options: {
  value: unknown;
  node: unknown;
  root: JsonSchema;
  depth: number;
}): unknown {
  const { value, root, depth } = options;
  let node = options.node;
  for (let hops = 0; isNode(node) && typeof node['$ref'] === 'string' && hops < 32; hops++) {
    node = resolveRef(node['$ref'], root);
  }
  if (!isNode(node) || depth > 64 || value === null || typeof value !== 'object') return value;
  const next = (child: unknown, childNode: unknown): unknown =>
    restore({ value: child, node: childNode, root, depth: depth + 1 });
  if (Array.isArray(value)) return value.map((item) => next(item, node['items']));
  let current: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const properties = isNode(node['properties']) ? node['properties'] : undefined;
  if (properties) {
    const required = Array.isArray(node['required']) ? node['required'] : [];
    for (const [key, child] of Object.entries(current)) {
      const property = properties[key];
      if (property === undefined) continue;
      if (child === null && !required.includes(key) && !acceptsNull(property, root)) {
        delete current[key];
      } else current[key] = next(child, property);
    }
  }
  // A union's branches are tried in turn; each only touches the properties it declares.
  for (const key of ['anyOf', 'oneOf']) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const restored = next(current, branch);
      if (isNode(restored)) current = restored;
    }
  }
  return current;
}

/**
 * Converts a zod schema into a JSON Schema that OpenAI's strict structured output accepts
 * (`response_format: { type: 'json_schema', json_schema: { strict: true, … } }`):
 *
 * - the schema describes the zod *input* (`io: 'input'`), since the model's JSON is what zod parses;
 * - every object gets `additionalProperties: false` and lists all its properties in `required`;
 * - a property that is optional in zod (`.optional()`, or `.default()`) becomes required but
 *   nullable (`type: [T, 'null']` or `anyOf: [T, { type: 'null' }]`); {@link
 *   StrictJsonSchema.restoreOptionalFields} turns the model's `null` back into an absent field, so
 *   zod's defaults apply and `.optional()` fields stay `undefined`;
 * - `oneOf` (discriminated unions) becomes `anyOf`; keywords strict mode does not take (`default`,
 *   `minLength`, `maxLength`, unknown formats, …) are left out, and zod enforces them afterwards.
 *
 * Records, tuples, intersections and `z.unknown()`/`z.any()` have no strict form and throw. The root
 * must be an object. Results are cached per schema.
 *
 * @throws TypeError when the schema cannot be expressed in strict mode.
 * @example
 * const { jsonSchema, restoreOptionalFields } = toStrictJsonSchema(planSchema);
 */
export function toStrictJsonSchema(schema: z.ZodType): StrictJsonSchema {
  const cached = cache.get(schema);
  if (cached) return cached;
  const original = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  delete original['$schema'];
  if (!isObjectNode(original)) {
    throw new TypeError('Strict structured output needs an object schema at the root.');
  }
  const jsonSchema = strictify({ node: original, root: original, path: '' });
  const strict: StrictJsonSchema = {
    jsonSchema,
    restoreOptionalFields: (value) => restore({ value, node: original, root: original, depth: 0 }),
  };
  cache.set(schema, strict);
  return strict;
}
