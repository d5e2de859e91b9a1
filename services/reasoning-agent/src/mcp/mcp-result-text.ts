import type { CallToolResult } from '@fleet/mcp';

/**
 * The text of an MCP tool's result as the model reads it: its text blocks; a resource's text or
 * address; `[image: …]`, `[audio: …]` for media (the model gets no base64); and the structured
 * content as JSON when no block carries text (a server that sends both repeats the JSON in a text
 * block, as MCP asks). Cut to `maxChars` with a note saying how much was left out.
 *
 * @example
 * mcpResultText({ content: [{ type: 'text', text: '42 rows' }] }, 20_000); // '42 rows'
 */
export function mcpResultText(result: CallToolResult, maxChars: number): string {
  const pieces: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        pieces.push(block.text);
        break;
      case 'image':
      case 'audio':
        pieces.push(`[${block.type}: ${block.mimeType}]`);
        break;
      case 'resource':
        pieces.push(
          'text' in block.resource && typeof block.resource.text === 'string'
            ? block.resource.text
            : `[resource: ${block.resource.uri}]`,
        );
        break;
      case 'resource_link':
        pieces.push(`[link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`);
        break;
      default:
        break;
    }
  }
  let text = pieces.join('\n');
  if (text.trim() === '' && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent);
  }
  if (text.length <= maxChars) return text;
  const left = text.length - maxChars;
  return `${text.slice(0, maxChars)}\n[… ${left} more characters of this result were cut]`;
}
