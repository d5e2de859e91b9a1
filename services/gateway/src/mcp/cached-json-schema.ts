import type { z } from 'zod';

/** The options the MCP SDK passes to `~standard.jsonSchema.input/output` (`{ target }`). */
type JsonSchemaOptions = Record<string, unknown> | undefined;

/** One direction of a schema's Standard JSON Schema conversion. */
type Convert = (options: JsonSchemaOptions) => Record<string, unknown>;

/** A zod schema's `~standard` props, as zod 4.2+ defines them (with `jsonSchema`). */
interface StandardWithJsonSchema {
  validate: unknown;
  vendor: string;
  version: number;
  jsonSchema?: { input: Convert; output: Convert };
}

/** Converts once per direction and options, and hands out the same (frozen) JSON Schema after. */
function memoize(convert: Convert): Convert {
  const converted = new Map<string, Record<string, unknown>>();
  return (options) => {
    const key = JSON.stringify(options ?? {});
    let json = converted.get(key);
    if (json === undefined) {
      json = deepFreeze(convert(options));
      converted.set(key, json);
    }
    return json;
  };
}

/** Freezes a JSON value all the way down, so a caller that mutates it fails instead of poisoning the cache. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * A copy of a zod schema whose JSON Schema is converted once, not on every use.
 *
 * The MCP SDK builds a fresh `McpServer` for each request (`createMcpHandler`), and each instance
 * converts its tools' input and output schemas to JSON Schema again, on every `tools/call` (to
 * check `Mcp-Param-*` headers and to project the result) and every `tools/list`: for the fleet's
 * larger schemas that was about half a millisecond per schema per call. The copy validates exactly
 * as the original does (`schema.clone()`, the same definition); only its Standard JSON Schema
 * methods (`~standard.jsonSchema`, which the SDK converts with) remember their answer per options.
 *
 * @example
 * const searchInput = withCachedJsonSchema(searchDocumentsBodySchema); // at module level, once
 * server.registerTool('search_documents', { inputSchema: searchInput, ... }, handler);
 */
export function withCachedJsonSchema<S extends z.ZodType>(schema: S): S {
  const copy = schema.clone();
  const standard = copy['~standard'] as unknown as StandardWithJsonSchema;
  if (standard.jsonSchema === undefined) return copy;
  const cached: StandardWithJsonSchema = {
    ...standard,
    jsonSchema: {
      input: memoize(standard.jsonSchema.input),
      output: memoize(standard.jsonSchema.output),
    },
  };
  (copy as unknown as { '~standard': StandardWithJsonSchema })['~standard'] = cached;
  return copy;
}
