/** A fenced code block (```lang … ```), kept whole: its lines and punctuation are not prose. */
const FENCED_BLOCK = /(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1[ \t]*(?=\n|$)/g;
const PLACEHOLDER = /⟦code-block-(\d+)⟧/g;

/** A request with its code blocks swapped for placeholders, and the way back. */
export interface MaskedRequest {
  /** The request with each fenced block replaced by `⟦code-block-N⟧`. */
  text: string;
  /** Puts the original blocks back, on lines of their own. */
  restore(text: string): string;
}

/**
 * Swaps fenced code blocks for placeholders before the request is split into clauses and
 * whitespace is collapsed, so a program quoted in the request reaches its node intact (newlines
 * included) instead of being cut at its commas and periods. The placeholder's words ("code",
 * "block") still count toward choosing an agent.
 *
 * @example
 * const masked = maskCodeBlocks('Run this:\n```python\nprint(1, 2)\n```');
 * masked.text; // 'Run this:\n⟦code-block-0⟧'
 * masked.restore('Run this: ⟦code-block-0⟧'); // 'Run this:\n```python\nprint(1, 2)\n```'
 */
export function maskCodeBlocks(request: string): MaskedRequest {
  const blocks: string[] = [];
  const text = request.replace(FENCED_BLOCK, (block) => {
    blocks.push(block);
    return `⟦code-block-${blocks.length - 1}⟧`;
  });
  return {
    text,
    restore: (masked) =>
      blocks.length === 0
        ? masked
        : masked
            .replace(PLACEHOLDER, (placeholder, index: string) => {
              const block = blocks[Number(index)];
              return block === undefined ? placeholder : `\n${block}\n`;
            })
            .replace(/[ \t]+\n/g, '\n')
            .trim(),
  };
}
