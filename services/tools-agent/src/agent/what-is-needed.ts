import { ValidationError } from '@fleet/errors';
import type { CatalogTool } from '../servers';
import { requiredArguments } from './tools-card';

/** Most tool names listed in an answer that asks the step to name one. */
const MAX_LISTED = 20;

function argumentList(entry: CatalogTool, names: readonly string[]): string {
  const properties = (entry.tool.inputSchema as { properties?: Record<string, { type?: unknown }> })
    .properties;
  return names
    .map((name) => {
      const type = properties?.[name]?.type;
      return typeof type === 'string' ? `${name} (${type})` : name;
    })
    .join(', ');
}

/**
 * The failure of a step that names a tool but gives no arguments for it (offline, nothing can
 * guess them): it names the tool, its required and optional arguments and an example, in the
 * message and in `details.needed`.
 *
 * @example
 * throw argumentsNeeded(entry);
 */
export function argumentsNeeded(entry: CatalogTool): ValidationError {
  const required = requiredArguments(entry.tool);
  const properties = Object.keys(
    (entry.tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {},
  );
  const optional = properties.filter((name) => !required.includes(name));
  const example = Object.fromEntries(required.map((name) => [name, '…']));
  return new ValidationError(
    `To call ${entry.skillId}, give its arguments as a JSON object in the step. Required: ${required.length === 0 ? 'none' : argumentList(entry, required)}.${optional.length === 0 ? '' : ` Optional: ${argumentList(entry, optional)}.`} Example: ${entry.skillId} ${JSON.stringify(example)}`,
    { details: { needed: { tool: entry.skillId, required, optional } } },
  );
}

/**
 * The failure of a step that names no tool the agent can pick without a model: it says how to
 * name one (`<server>/<tool>` and a JSON object of arguments) and lists the tools offered (or the
 * candidates, when several were named).
 *
 * @example
 * throw toolNeeded({ offered: permitted, candidates: [] });
 */
export function toolNeeded({
  offered,
  candidates,
}: {
  offered: readonly CatalogTool[];
  candidates: readonly CatalogTool[];
}): ValidationError {
  const listed = (candidates.length > 0 ? candidates : offered).slice(0, MAX_LISTED);
  const names = listed.map((entry) => entry.skillId);
  const more = (candidates.length > 0 ? candidates : offered).length - listed.length;
  const what =
    candidates.length > 0
      ? `The step names several tools (${names.join(', ')}): name exactly one as "<server>/<tool>"`
      : 'No LLM is configured, so the step must name the tool to call as "<server>/<tool>"';
  const example = listed[0] === undefined ? 'memory/read_graph {}' : `${listed[0].skillId} {…}`;
  return new ValidationError(
    `${what} and give its arguments as a JSON object, e.g. ${example}.${candidates.length > 0 || names.length === 0 ? '' : ` Tools offered: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`}`,
    { details: { needed: { tool: '<server>/<tool>', tools: names } } },
  );
}
