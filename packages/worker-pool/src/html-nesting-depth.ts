/**
 * A linear-time estimate of how deep HTML nests its elements, run before a parser or a DOM walk
 * that would recurse or slow down as deep as the input says (Readability's scoring walks every
 * element's ancestors: 400 nested `<div>`s took 1 s, 2,000 about a minute; parse5 overflowed the
 * stack at 50,000). The RAG agent's document reader and the web agent's page reader both run it.
 */

/** Elements that never have content. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/**
 * Elements whose end tag may be left out (a new `<p>` or `<li>` closes the open one): counting
 * them would take a page of unclosed paragraphs for a deep one.
 */
const OPTIONAL_END = new Set([
  'html',
  'head',
  'body',
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'caption',
  'option',
  'optgroup',
  'rt',
  'rp',
]);

/** Elements whose content is raw text, not markup. */
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'plaintext',
]);

/** The end of the tag that starts at `open` (the index of its `>`), quoted values skipped. */
interface TagScanner {
  /** Index of the `>` ending the tag whose name ends at `from`; -1 when there is none. */
  tagEnd(from: number): number;
}

/**
 * Finds the `>` ending tags in linear time overall: quoted attribute values may hold `>`; an
 * unterminated quote makes the tag end at the next `>`.
 */
function tagScanner(html: string): TagScanner {
  // The next occurrence of each character at or after `from`, remembered: the scan only moves
  // forward, so each character's occurrences are searched once in all.
  const found = new Map<string, { from: number; at: number }>();
  const next = (character: string, from: number): number => {
    const known = found.get(character);
    if (known !== undefined && known.from <= from && (known.at < 0 || known.at >= from)) {
      return known.at;
    }
    const at = html.indexOf(character, from);
    found.set(character, { from, at });
    return at;
  };
  return {
    tagEnd(from) {
      let position = from;
      for (;;) {
        const close = next('>', position);
        if (close < 0) return -1;
        const double = next('"', position);
        const single = next("'", position);
        const quoteAt = Math.min(
          double < 0 || double > close ? Infinity : double,
          single < 0 || single > close ? Infinity : single,
        );
        if (quoteAt === Infinity) return close;
        const partner = next(html[quoteAt] ?? '"', quoteAt + 1);
        // An unterminated quote: the tag ends at the next `>`.
        if (partner < 0) return close;
        position = partner + 1;
      }
    },
  };
}

const TAG_NAME = /^[a-zA-Z][a-zA-Z0-9:-]*/;

/**
 * Whether HTML nests elements more than `max` deep, as a browser would build it, roughly: void
 * elements and those whose end tag is optional do not count, `/>` closes only inside SVG and
 * MathML, raw-text elements and comments are skipped. Linear in the length of the text.
 */
export function htmlNestsDeeperThan(html: string, max: number): boolean {
  const scanner = tagScanner(html);
  let depth = 0;
  let foreign = 0;
  let position = 0;
  for (;;) {
    const open = html.indexOf('<', position);
    if (open < 0) return false;
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      if (close < 0) return false;
      position = close + 3;
      continue;
    }
    const closing = html[open + 1] === '/';
    const nameStart = open + (closing ? 2 : 1);
    const name = TAG_NAME.exec(html.slice(nameStart, nameStart + 64))?.[0]?.toLowerCase();
    if (name === undefined) {
      position = open + 1;
      continue;
    }
    const end = scanner.tagEnd(nameStart + name.length);
    if (end < 0) return false;
    position = end + 1;
    if (VOID_ELEMENTS.has(name) || OPTIONAL_END.has(name)) continue;
    if (closing) {
      depth = Math.max(0, depth - 1);
      if ((name === 'svg' || name === 'math') && foreign > 0) foreign--;
      continue;
    }
    if (foreign > 0 && html[end - 1] === '/') continue;
    if (name === 'svg' || name === 'math') foreign++;
    depth++;
    if (depth > max) return true;
    if (RAW_TEXT.has(name)) {
      // The content up to the element's end tag is text, whatever it looks like.
      const endTag = new RegExp(`</${name}`, 'ig');
      endTag.lastIndex = position;
      if (endTag.exec(html) === null) return false;
      position = endTag.lastIndex - name.length - 2;
    }
  }
}
