import { decodeHTMLStrict } from 'entities';

/**
 * The text of an HTML fragment: comments, scripts, styles and tags removed, character references
 * decoded (every HTML named reference and numeric ones, each ended by `;`; unknown names stay as
 * written).
 */
export function stripTags(html: string): string {
  return decodeHTMLStrict(
    html
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
}
