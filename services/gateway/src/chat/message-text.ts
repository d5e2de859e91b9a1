/**
 * The text of an OpenAI message's `content`: the string itself, or its text parts joined (image
 * and audio parts carry no text). Anything else reads as ''.
 */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
          ? part.text
          : '',
      )
      .join('');
  }
  return '';
}
