import { z } from 'zod';
import { dataPart, type Part } from '@fleet/a2a';
import type { CallToolResult, JsonSchemaChecker } from '@fleet/mcp';
import type { CatalogTool } from '../servers';
import { ToolOutputMismatchError, ToolReportedError } from './tool-errors';

/** Longest tool text quoted in an error message. */
const MAX_ERROR_WORDS = 2000;

// Tolerant of what servers send (CONTRIBUTING.md convention 9): unknown block types are skipped.
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const mediaBlock = z.looseObject({
  type: z.enum(['image', 'audio']),
  data: z.string(),
  mimeType: z.string().min(1),
});
const resourceBlock = z.looseObject({
  type: z.literal('resource'),
  resource: z.looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
});
const linkBlock = z.looseObject({
  type: z.literal('resource_link'),
  uri: z.string(),
  name: z.string().optional(),
  mimeType: z.string().optional(),
});
const blockSchema = z.union([textBlock, mediaBlock, resourceBlock, linkBlock]);

/** One call's result as parts of the `result` artifact. */
export interface MappedResult {
  /** The text blocks joined ('' when there were none). */
  text: string;
  /** The checked `structuredContent` as a data part, if the tool gave one. */
  data: Part | undefined;
  /** Images, audio and resources as file parts (bytes or a URI). */
  files: Part[];
}

function fileName(uri: string, fallback: string): string {
  const last = uri
    .split(/[/\\]/)
    .filter((piece) => piece !== '')
    .at(-1);
  return last === undefined || last.includes(':') ? fallback : decodeURIComponentSafe(last);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
};

/**
 * Maps one tool result into the `result` artifact's parts: text content → the text, checked
 * `structuredContent` → a data part, image and audio → file parts (bytes, media type), embedded
 * resources → file parts with their bytes, resource links → file parts with their URI. Every data
 * and file part carries `metadata.tool` (`<server>/<tool>`).
 *
 * @throws ToolReportedError when the result says `isError: true` (its message is the tool's words);
 *   ToolOutputMismatchError when `structuredContent` does not fit the tool's `outputSchema`
 * @example
 * const mapped = mapToolResult({ entry, result, checker });
 */
export function mapToolResult({
  entry,
  result,
  checker,
}: {
  entry: CatalogTool;
  result: CallToolResult;
  checker: JsonSchemaChecker;
}): MappedResult {
  const metadata = { tool: entry.skillId };
  const texts: string[] = [];
  const files: Part[] = [];
  const content: unknown[] = Array.isArray(result.content) ? result.content : [];
  content.forEach((raw, index) => {
    const parsed = blockSchema.safeParse(raw);
    if (!parsed.success) return;
    const block = parsed.data;
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        return;
      case 'image':
      case 'audio': {
        const extension = EXTENSIONS[block.mimeType] ?? 'bin';
        files.push({
          raw: block.data,
          mediaType: block.mimeType,
          filename: `${block.type}-${index + 1}.${extension}`,
          metadata,
        });
        return;
      }
      case 'resource': {
        const { uri, mimeType, text, blob } = block.resource;
        const raw = blob ?? Buffer.from(text ?? '', 'utf8').toString('base64');
        files.push({
          raw,
          mediaType: mimeType ?? (blob === undefined ? 'text/plain' : 'application/octet-stream'),
          filename: fileName(uri, `resource-${index + 1}`),
          metadata: { ...metadata, uri },
        });
        return;
      }
      case 'resource_link':
        files.push({
          url: block.uri,
          ...(block.mimeType === undefined ? {} : { mediaType: block.mimeType }),
          filename: block.name ?? fileName(block.uri, `resource-${index + 1}`),
          metadata,
        });
        return;
    }
  });
  const text = texts.join('\n');
  if (result.isError === true) {
    const words = text.trim() === '' ? 'it gave no reason' : text.trim();
    throw new ToolReportedError(
      `${entry.skillId} failed: ${words.length > MAX_ERROR_WORDS ? `${words.slice(0, MAX_ERROR_WORDS)}…` : words}`,
      { details: { tool: entry.skillId } },
    );
  }
  let data: Part | undefined;
  if (result.structuredContent !== undefined) {
    const schema = entry.tool.outputSchema;
    if (schema !== undefined) {
      const checked = checker.check(schema, result.structuredContent);
      if (!checked.valid) {
        throw new ToolOutputMismatchError(
          `${entry.skillId} returned structured content that does not fit its output schema: ${checked.message}`,
          { details: { tool: entry.skillId, fields: checked.fields } },
        );
      }
    }
    data = { ...dataPart(result.structuredContent), metadata };
  }
  return { text, data, files };
}
