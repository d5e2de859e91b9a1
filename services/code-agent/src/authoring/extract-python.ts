/** A fenced block: ``` or ~~~, an info string, the body, the same fence. */
const FENCE = /^(?<fence>`{3,}|~{3,})[ \t]*(?<info>[^\n`]*)\n(?<body>[\s\S]*?)^\k<fence>[ \t]*$/gm;

const PYTHON_INFO = /^(python3?|py)\b/i;

/** The fenced code blocks of a text, with their language (the info string's first word). */
export function fencedBlocks(text: string): { language: string; code: string }[] {
  const blocks: { language: string; code: string }[] = [];
  for (const match of text.replaceAll('\r\n', '\n').matchAll(FENCE)) {
    const info = match.groups?.['info']?.trim() ?? '';
    blocks.push({ language: info.split(/\s+/)[0] ?? '', code: match.groups?.['body'] ?? '' });
  }
  return blocks;
}

/**
 * The Python program a text contains: its first fenced block marked `python`, `python3` or `py`,
 * trimmed of blank lines at the ends. With `allowUnlabelled`, an unmarked block counts too (a model
 * reply). Undefined when there is none or it is empty.
 *
 * @example
 * extractPython('Run this:\n```python\nprint(1)\n```'); // 'print(1)\n'
 */
export function extractPython(
  text: string,
  { allowUnlabelled = false }: { allowUnlabelled?: boolean } = {},
): string | undefined {
  const blocks = fencedBlocks(text);
  const block =
    blocks.find((entry) => PYTHON_INFO.test(entry.language)) ??
    (allowUnlabelled ? blocks.find((entry) => entry.language === '') : undefined);
  if (block === undefined) return undefined;
  const code = block.code.replace(/^\s*\n/, '').trimEnd();
  return code === '' ? undefined : `${code}\n`;
}
