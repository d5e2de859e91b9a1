import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';

/** Longest text searched for arguments, and most candidate objects tried. */
const MAX_TEXT = 64 * 1024;
const MAX_CANDIDATES = 32;

/** Where the JSON value starting at `start` (a `{`) ends, strings and escapes respected. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{') {
      depth += 1;
    } else if (character === '}') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/**
 * The first JSON object written in a step's text (bare or in a ```json fence), as the tool's
 * arguments; undefined when there is none.
 *
 * @example
 * findJsonArguments('memory/search_nodes {"query": "Ada"}'); // { query: 'Ada' }
 */
export function findJsonArguments(text: string): Record<string, unknown> | undefined {
  const searched = text.slice(0, MAX_TEXT);
  let from = 0;
  for (let tries = 0; tries < MAX_CANDIDATES; tries += 1) {
    const start = searched.indexOf('{', from);
    if (start === -1) return undefined;
    const end = balancedEnd(searched, start);
    if (end === undefined) return undefined;
    const parsed = safeParseJson({
      text: searched.slice(start, end),
      schema: z.record(z.string(), z.unknown()),
    });
    if (parsed.success) return parsed.value;
    from = start + 1;
  }
  return undefined;
}
