/** A part of the request that runs after the parts before it. */
export interface RequestClause {
  text: string;
  /** The ordering word that put this clause after the previous one ("then", "based on", …). */
  marker?: string;
}

/** A span of a clause, as offsets into the clause text. */
export interface ClauseSegment {
  start: number;
  end: number;
}

/**
 * Ordering words: what follows runs after what comes before. "next" counts only at the start of a
 * sentence or after a comma or "and", so that "the next release" stays one clause.
 */
const FORWARD_MARKERS = new RegExp(
  // The look-behind catches a marker right after another one ("then, finally").
  String.raw`(?:^|[,.;:!?]\s*|\s+|(?<=[\s,.;:!?]))(` +
    [
      String.raw`and\s+then`,
      String.raw`and\s+finally`,
      String.raw`and\s+afterwards?`,
      String.raw`after\s+that`,
      String.raw`afterwards?`,
      'then',
      'finally',
      String.raw`(?:using|with|from)\s+(?:the|those|these|its|their|that)\s+results?(?:\s+of\s+that)?`,
    ].join('|') +
    String.raw`)\b[\s,:]*` +
    String.raw`|(?:^|[.;!?]\s+|,\s*|\band\s+)(next)\b[\s,:]*`,
  'gi',
);

/** "A based on B" means B first; so does "Based on B, A". */
const BASED_ON = /\bbased\s+on\b/i;

/** Where a clause splits into parts that may go to different agents. */
const SEGMENT_BREAK = /\s*(?:[,;]|[.!?](?=\s|$)|\band\b|\balso\b|\bplus\b)\s*/gi;

function clean(text: string): string {
  return text.replace(/^[\s,.;:!?]+|[\s,;:]+$/g, '').trim();
}

function splitBasedOn(clause: RequestClause): RequestClause[] {
  const match = BASED_ON.exec(clause.text);
  if (!match) return [clause];
  const before = clean(clause.text.slice(0, match.index));
  const after = clean(clause.text.slice(match.index + match[0].length));
  const marker = match[0].toLowerCase().replace(/\s+/g, ' ');
  if (before === '') {
    // "Based on B, A."
    const comma = after.indexOf(',');
    if (comma === -1) return [{ ...clause, text: after }];
    const first = clean(after.slice(0, comma));
    const second = clean(after.slice(comma + 1));
    return [
      { ...clause, text: first },
      { text: second, marker },
    ].filter((part) => part.text !== '');
  }
  // "A based on B." When B only names a source ("our handbook"), its step needs A's subject.
  const sourceOnly = after.split(/\s+/).length <= 3;
  return [
    { ...clause, text: sourceOnly ? `Find what ${after} says for this: ${before}` : after },
    { text: before, marker },
  ].filter((part) => part.text !== '');
}

/**
 * Splits a request into clauses that must run in order, at ordering words ("then", "and then",
 * "after that", "afterwards", "finally", "next", "using the results") and around "based on"
 * (whose object runs first). A request without them is one clause.
 *
 * @example
 * splitIntoClauses('find X in our docs, then email a summary to bob@example.com');
 * // [{ text: 'find X in our docs' }, { text: 'email a summary to bob@example.com', marker: 'then' }]
 */
export function splitIntoClauses(request: string): RequestClause[] {
  const text = request.replace(/\s+/g, ' ').trim();
  const clauses: RequestClause[] = [];
  let start = 0;
  let marker: string | undefined;
  for (const match of text.matchAll(FORWARD_MARKERS)) {
    const piece = clean(text.slice(start, match.index));
    if (piece !== '')
      clauses.push(marker === undefined ? { text: piece } : { text: piece, marker });
    marker = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\s+/g, ' ');
    start = match.index + match[0].length;
  }
  const last = clean(text.slice(start));
  if (last !== '') clauses.push(marker === undefined ? { text: last } : { text: last, marker });
  return clauses.flatMap(splitBasedOn);
}

/**
 * Splits a clause into the parts that may go to different agents, at commas, semicolons, sentence
 * ends, "and", "also" and "plus". Parts are offsets, so neighbours can be merged back into the
 * exact original text.
 *
 * @example
 * splitIntoSegments('search the web for X and look up our docs on Y').map(({ start, end }) => clause.slice(start, end));
 * // ['search the web for X', 'look up our docs on Y']
 */
export function splitIntoSegments(clause: string): ClauseSegment[] {
  const segments: ClauseSegment[] = [];
  let start = 0;
  const push = (end: number): void => {
    const piece = clause.slice(start, end);
    const leading = piece.length - piece.trimStart().length;
    const trimmed = piece.trim();
    if (trimmed !== '')
      segments.push({ start: start + leading, end: start + leading + trimmed.length });
  };
  for (const match of clause.matchAll(SEGMENT_BREAK)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(clause.length);
  return segments;
}
