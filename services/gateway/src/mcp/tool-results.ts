import type { CallToolResult } from '@modelcontextprotocol/server';
import { toFleetError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';

/**
 * A tool's answer: the value as `structuredContent` and, for clients that read text only, the same
 * JSON as a text block. The value goes through JSON once, so it is exactly what the wire carries.
 */
export function structuredResult(value: object): CallToolResult {
  const text = JSON.stringify(value);
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/**
 * A tool's failure as a result the model can read (`isError: true`), not a protocol error: the
 * fleet's message (a 404's "not found", a 503's "the RAG agent is unreachable") and its code.
 * Unexpected errors say only that the call failed.
 */
export function toolError(error: unknown, logger?: HttpLogger): CallToolResult {
  const fleetError = toFleetError(error);
  const internal = fleetError.code === 'INTERNAL';
  if (internal) logger?.error({ err: error }, 'an MCP tool call failed');
  const message = internal
    ? 'The tool failed inside the gateway; the gateway log has the details.'
    : fleetError.message;
  return {
    isError: true,
    content: [{ type: 'text', text: `${fleetError.code}: ${message}` }],
  };
}

/** Runs a tool's body and answers its failure as {@link toolError}. */
export async function runTool(
  body: () => Promise<object>,
  logger?: HttpLogger,
): Promise<CallToolResult> {
  try {
    return structuredResult(await body());
  } catch (error) {
    return toolError(error, logger);
  }
}
