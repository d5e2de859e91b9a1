/**
 * Linear-time estimates of how deep a document nests, run before the parsers that would recurse
 * (or slow down quadratically) as deep as the input says: mammoth's and exceljs's XML readers,
 * parse5 and the HTML walker, marked's list, quote and emphasis nesting. Measured before the
 * bound: 50,000 nested `<div>`s took 77 s and then overflowed the stack; 5,000 nested Markdown
 * emphases 4 s.
 */
import { DocumentParseError } from './document-parse-error';
import { LIMIT_NAMES } from './limits';

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

const COMMENT_START = Buffer.from('<!--', 'latin1');
const CDATA_START = Buffer.from('<![CDATA[', 'latin1');

function startsAt(bytes: Buffer, index: number, prefix: Buffer): boolean {
  return bytes.subarray(index, index + prefix.length).equals(prefix);
}

/** The `DocumentParseError` (400) of a document nested deeper than the limit. */
export function nestingTooDeep(filename: string, max: number, entry?: string): DocumentParseError {
  const where = entry === undefined ? '' : ` (in ${entry})`;
  return new DocumentParseError(
    filename,
    `Cannot index "${filename}": its content is nested more than ${max} levels deep${where} (${LIMIT_NAMES.maxNestingDepth}); documents are not written that way, and reading it could exhaust the agent.`,
    {
      details: {
        limit: LIMIT_NAMES.maxNestingDepth,
        max,
        ...(entry === undefined ? {} : { entry }),
      },
    },
  );
}

/**
 * Whether XML nests elements more than `max` deep. Comments, CDATA, processing instructions and
 * the DOCTYPE are skipped; quoted attribute values may hold `>`.
 */
export function xmlNestsDeeperThan(xml: Uint8Array, max: number): boolean {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  const end = bytes.length;
  let depth = 0;
  let position = 0;
  while (position < end) {
    const open = bytes.indexOf(LT, position);
    if (open < 0) return false;
    const next = bytes[open + 1];
    if (next === SLASH) {
      depth = Math.max(0, depth - 1);
      const close = bytes.indexOf(GT, open);
      position = close < 0 ? end : close + 1;
      continue;
    }
    if (next === QUESTION || next === BANG) {
      const terminator = startsAt(bytes, open, COMMENT_START)
        ? '-->'
        : startsAt(bytes, open, CDATA_START)
          ? ']]>'
          : next === QUESTION
            ? '?>'
            : '>';
      const close = bytes.indexOf(terminator, open + 2, 'latin1');
      position = close < 0 ? end : close + terminator.length;
      continue;
    }
    let index = open + 1;
    let quote = 0;
    for (; index < end; index++) {
      const byte = bytes[index];
      if (quote !== 0) {
        if (byte === quote) quote = 0;
      } else if (byte === DOUBLE_QUOTE || byte === SINGLE_QUOTE) {
        quote = byte;
      } else if (byte === GT) {
        break;
      }
    }
    if (bytes[index - 1] !== SLASH) {
      depth++;
      if (depth > max) return true;
    }
    position = index + 1;
  }
  return false;
}

const FENCE = /^\s*(`{3,}|~{3,})/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;

/** List and quote nesting of one line: its container markers plus its indentation in pairs of columns. */
function lineDepth(line: string): number {
  let columns = 0;
  let markers = 0;
  let index = 0;
  for (;;) {
    const character = line[index];
    if (character === ' ') {
      columns++;
      index++;
    } else if (character === '\t') {
      columns += 4 - (columns % 4);
      index++;
    } else if (character === '>') {
      markers++;
      columns++;
      index++;
    } else {
      const marker = LIST_MARKER.exec(line.slice(index, index + 11));
      if (!marker) break;
      markers++;
      columns += marker[0].length;
      index += marker[0].length;
    }
  }
  // Indentation alone (code, continuation lines) is not nesting.
  return markers === 0 ? 0 : markers + Math.floor((columns - markers) / 2);
}

/**
 * The text with its code spans blanked out: a backtick run opens a span closed by the next run of
 * the same length. Linear: each run's next run of its length is found in one backward pass.
 */
function withoutCodeSpans(text: string): string {
  const runs = [...text.matchAll(/`+/g)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
    length: match[0].length,
  }));
  if (runs.length < 2) return text;
  const next: (number | undefined)[] = new Array<number | undefined>(runs.length);
  const seen = new Map<number, number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index];
    if (run === undefined) continue;
    next[index] = seen.get(run.length);
    seen.set(run.length, index);
  }
  let out = '';
  let copied = 0;
  for (let index = 0; index < runs.length;) {
    const partner = next[index];
    const opener = runs[index];
    const closer = partner === undefined ? undefined : runs[partner];
    if (opener === undefined || partner === undefined || closer === undefined) {
      index++;
      continue;
    }
    out += `${text.slice(copied, opener.start)} `;
    copied = closer.end;
    index = partner + 1;
  }
  return out + text.slice(copied);
}

const DELIMITER_RUN = /(?<!\\)(\*+|_+)/g;

/**
 * How deep emphasis nests in a paragraph: delimiter runs that can open (followed by a non-space)
 * and runs that can close (preceded by one) are paired like brackets, each pair as deep as its
 * shorter run, and the deepest overlap of matched pairs is returned. Code spans are left out.
 */
function emphasisDepth(paragraph: string): number {
  const text = withoutCodeSpans(paragraph);
  const openers: { index: number; weight: number }[] = [];
  const changes: number[] = [];
  DELIMITER_RUN.lastIndex = 0;
  for (let match = DELIMITER_RUN.exec(text); match !== null; match = DELIMITER_RUN.exec(text)) {
    const run = match[0];
    const before = text[match.index - 1];
    const after = text[match.index + run.length];
    const canOpen = after !== undefined && !/\s/.test(after);
    const canClose = before !== undefined && !/\s/.test(before);
    if (canOpen && !canClose) {
      openers.push({ index: changes.length, weight: run.length });
      changes.push(0);
    } else if (canClose && !canOpen) {
      const opener = openers.pop();
      if (opener === undefined) continue;
      const weight = Math.min(opener.weight, run.length);
      changes[opener.index] = weight;
      changes.push(-weight);
    }
  }
  let depth = 0;
  let deepest = 0;
  for (const change of changes) {
    depth += change;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/**
 * Whether Markdown nests lists, quotes or emphasis more than `max` deep (fenced code is skipped;
 * a table row is its own paragraph, as its cells are).
 */
export function markdownNestsDeeperThan(markdown: string, max: number): boolean {
  let fence: string | undefined;
  let paragraph: string[] = [];
  const paragraphTooDeep = (): boolean => {
    const deep = paragraph.length > 0 && emphasisDepth(paragraph.join('\n')) > max;
    paragraph = [];
    return deep;
  };
  for (const line of markdown.split(/\r\n?|\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch?.[1]?.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fenceMatch?.[1] !== undefined) {
      if (paragraphTooDeep()) return true;
      fence = fenceMatch[1].slice(0, 3);
      continue;
    }
    if (line.trim() === '' || THEMATIC_BREAK.test(line)) {
      if (paragraphTooDeep()) return true;
      continue;
    }
    if (lineDepth(line) > max) return true;
    if (line.includes('|')) {
      if (paragraphTooDeep()) return true;
      paragraph.push(line);
      if (paragraphTooDeep()) return true;
    } else {
      paragraph.push(line);
    }
  }
  return paragraphTooDeep();
}
