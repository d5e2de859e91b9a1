import { McpResultTooLargeError } from '../mcp-errors';

/**
 * A `fetch` whose response bodies fail with {@link McpResultTooLargeError} once they pass
 * `maxBytes`, so a Streamable HTTP server cannot make the client hold more than that. Only POST
 * answers are counted: the optional GET stream lives as long as the session and carries only
 * notifications.
 */
export function createBoundedFetch(options: { server: string; maxBytes: number }): typeof fetch {
  const { server, maxBytes } = options;
  return async function boundedFetch(input, init) {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || response.body === null) return response;
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          controller.error(
            new McpResultTooLargeError(
              `The MCP server "${server}" sent an answer larger than ${maxBytes} bytes.`,
              { details: { server, maxBytes } },
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
