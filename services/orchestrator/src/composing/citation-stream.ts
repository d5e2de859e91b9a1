/** Resolves one complete `[n]` / `[n, m]` marker; `list` is what sits between the brackets. */
export type ResolveMarker = (marker: string, list: string) => string;

/** A text stream whose citation markers are resolved as they arrive. */
export interface CitationStream {
  /** Takes the next piece of text; returns what can be sent now (possibly empty). */
  push(text: string): string;
  /** The text held back at the end (an unfinished `[…`), as it stands. */
  end(): string;
}

// `[2]`, and grouped forms such as `[1, 3]` or `[1,2]` (the same grammar as renumberCitations).
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
// The tail of a text that may still become a marker: `[`, `[1`, `[1,`, `[1, 3` …
const OPEN_MARKER_TAIL = /\[[\d\s,]*$/;
/** Longest tail held back waiting for its `]`: anything longer is not a citation. */
const MAX_HELD = 32;

/**
 * Resolves citation markers in a stream of text pieces (model tokens, agent chunks) as they
 * arrive. Only an unfinished marker at the end of a piece (`… Paris [1` waiting for `]`) is held
 * back, never the text before it, so the reader sees the answer as soon as it exists; the held
 * text goes out with the next piece, or from {@link CitationStream.end}.
 *
 * @example
 * const stream = createCitationStream((marker, list) => (list === '1' ? '[3]' : marker));
 * stream.push('Paris [');   // 'Paris '
 * stream.push('1] is …');   // '[3] is …'
 */
export function createCitationStream(resolve: ResolveMarker): CitationStream {
  let held = '';
  return {
    push(text) {
      const pending = held + text;
      const open = OPEN_MARKER_TAIL.exec(pending);
      const cut =
        open === null || pending.length - open.index > MAX_HELD ? pending.length : open.index;
      held = pending.slice(cut);
      return pending.slice(0, cut).replace(MARKER, resolve);
    },
    end() {
      const rest = held.replace(MARKER, resolve);
      held = '';
      return rest;
    },
  };
}

/**
 * A marker resolver from one step's local numbering to the run's global one (`local[n - 1]` is the
 * global number of the step's source n); markers that point past the step's sources stay as they
 * are, as in renumberCitations.
 */
export function localToGlobal(local: readonly number[]): ResolveMarker {
  return (marker, list) => {
    const numbers = list.split(',').map((item) => Number(item.trim()));
    if (!numbers.every((n) => n >= 1 && n <= local.length)) return marker;
    return numbers.map((n) => `[${local[n - 1] ?? n}]`).join('');
  };
}
