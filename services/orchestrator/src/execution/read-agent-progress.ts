import { MAX_NODE_PROGRESS_STAGE, MAX_NODE_PROGRESS_TEXT, type Part } from '@fleet/a2a';

/** What a step's agent says it is doing: one line of text, and the stage it named, if any. */
export interface AgentProgress {
  text: string;
  stage?: string | undefined;
}

/**
 * Reads a WORKING status message liberally, from the fleet's agents and foreign ones alike: its
 * text parts joined, whitespace folded to single spaces (a progress line is one line), control
 * characters dropped, cut to {@link MAX_NODE_PROGRESS_TEXT} characters with `…`; the stage from a
 * data part `{ progress: { stage } }` when it is a short string. Undefined when there is no text.
 *
 * @example
 * readAgentProgress([{ text: ' Reading https://example.org…\n' }]);
 * // { text: 'Reading https://example.org…' }
 */
export function readAgentProgress(parts: readonly Part[] | undefined): AgentProgress | undefined {
  if (parts === undefined) return undefined;
  const spaced = parts
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ');
  const joined = [...spaced]
    .filter((char) => !isControl(char))
    .join('')
    .trim();
  if (joined === '') return undefined;
  const text =
    joined.length <= MAX_NODE_PROGRESS_TEXT
      ? joined
      : `${joined.slice(0, MAX_NODE_PROGRESS_TEXT).trimEnd()}…`;
  const stage = stageOf(parts);
  return stage === undefined ? { text } : { text, stage };
}

function stageOf(parts: readonly Part[]): string | undefined {
  for (const part of parts) {
    const data = part.data;
    if (typeof data !== 'object' || data === null) continue;
    const progress = (data as Record<string, unknown>)['progress'];
    if (typeof progress !== 'object' || progress === null) continue;
    const stage = (progress as Record<string, unknown>)['stage'];
    if (typeof stage !== 'string') continue;
    const trimmed = stage.trim();
    if (trimmed !== '' && trimmed.length <= MAX_NODE_PROGRESS_STAGE) return trimmed;
  }
  return undefined;
}

function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code < 0xa0);
}
