import { Validator, type SchemaDraft } from '@cfworker/json-schema';
import { safeParseJson } from '@fleet/errors';
import { z } from 'zod';
import { ToolError } from '../tools';

const argumentsSchema = z.record(z.string(), z.unknown(), {
  error: 'the arguments must be a JSON object',
});

/** How many schema violations a message lists. */
const MAX_LISTED = 3;

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const declared = schema['$schema'];
  if (typeof declared !== 'string') return '2020-12';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** Checks one tool's arguments against its input schema. See {@link createArgumentsCheck}. */
export type ArgumentsCheck = (argumentsJson: string) => Record<string, unknown>;

/**
 * A check of a tool's arguments against its MCP `inputSchema` (JSON Schema; the draft its
 * `$schema` names, 2020-12 when it names none, as MCP says), run before the server is called:
 * the arguments must be a JSON object that fits. Returns the parsed object.
 *
 * @param label How messages name the tool, e.g. `memory/search_nodes`.
 * @throws ToolError naming what does not fit (at most three places), for the model to correct.
 * @example
 * const check = createArgumentsCheck('memory/search_nodes', tool.inputSchema);
 * check('{"query":"Ada"}'); // { query: 'Ada' }
 */
export function createArgumentsCheck(
  label: string,
  inputSchema: Record<string, unknown>,
): ArgumentsCheck {
  let validator: Validator | undefined;
  let unusable: unknown;
  try {
    validator = new Validator(inputSchema, draftOf(inputSchema), false);
  } catch (error) {
    // A schema the validator cannot read fails each call (as a tool error), not the listing.
    unusable = error;
  }
  return (argumentsJson) => {
    const parsed = safeParseJson({
      text: argumentsJson.trim() === '' ? '{}' : argumentsJson,
      schema: argumentsSchema,
      subject: `The arguments of ${label}`,
    });
    if (!parsed.success) throw new ToolError(parsed.error.message, { cause: parsed.error });
    let result;
    try {
      if (validator === undefined) throw unusable;
      result = validator.validate(parsed.value);
    } catch (error) {
      throw new ToolError(`The input schema of ${label} cannot be checked, so it is not called.`, {
        cause: error,
      });
    }
    if (result.valid) return parsed.value;
    // The places themselves, not the summaries above them ("#" when "#/query" is wrong).
    const problems = result.errors
      .filter(
        (unit, index, all) =>
          !all.some(
            (other) =>
              other.instanceLocation.length > unit.instanceLocation.length &&
              other.instanceLocation.startsWith(`${unit.instanceLocation}/`),
          ) && all.findIndex((other) => other.instanceLocation === unit.instanceLocation) === index,
      )
      .slice(0, MAX_LISTED)
      .map((unit) => {
        const where = unit.instanceLocation.replace(/^#\/?/, '');
        return `${where === '' ? '' : `${where}: `}${unit.error.replace(/\.?$/, '.')}`;
      });
    throw new ToolError(
      `The arguments of ${label} do not fit its input schema. ${problems.join(' ')}`,
      { details: { tool: label } },
    );
  };
}
