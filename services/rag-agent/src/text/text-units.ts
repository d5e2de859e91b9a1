/**
 * Text helpers for extractive answers: sentences (table rows become "Column: value" sentences) and
 * normalised query terms.
 */
import { segmentSentences } from '@fleet/llm';

const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves also per via get got ' +
    'tell say says said according document documents doc docs file files please us let know ' +
    'many much long often'
  ).split(' '),
);

/** True for the common English words questions and sentences share without meaning much. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/**
 * A word reduced to a rough stem so that "policies"/"policy" and "days"/"day" meet: lower case,
 * possessive and a few plural and verb endings removed.
 */
export function normalizeTerm(word: string): string {
  let term = word.toLowerCase().replace(/['’]s$/, '');
  if (term.length > 4 && term.endsWith('ies')) term = `${term.slice(0, -3)}y`;
  else if (term.length > 4 && /(ches|shes|sses|xes)$/.test(term)) term = term.slice(0, -2);
  else if (term.length > 3 && term.endsWith('s') && !/(ss|us|is)$/.test(term))
    term = term.slice(0, -1);
  if (term.length > 5 && term.endsWith('ing')) term = term.slice(0, -3);
  else if (term.length > 4 && term.endsWith('ed')) term = term.slice(0, -2);
  return term;
}

/** The words of a text: letters and digits, decimals and codes kept whole (`3.2`, `EU-West`). */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:[.,\-/][\p{L}\p{N}]+)*/gu) ?? [];
}

/** The content terms of a text (stopwords dropped), normalised, in order. */
export function contentTerms(text: string): string[] {
  return words(text)
    .map((word) => word.toLowerCase())
    .filter((word) => !STOPWORDS.has(word))
    .map(normalizeTerm)
    .filter((term) => term.length > 1 || /\d/.test(term));
}

/** Splits a table cell row `| a | b |` into its cells. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

const SEPARATOR_ROW = /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/;

/** A Markdown table row as a sentence, with the header's names: `Plan: Team; Price: 12 EUR`. */
function rowSentence(header: readonly string[], row: readonly string[]): string {
  return row
    .map((value, index) => {
      // Column names like `ticket_id` read as words: `ticket id`.
      const name = (header[index] ?? '').replace(/(?<=\p{L})_(?=\p{L})/gu, ' ');
      return name === '' || name === value ? value : `${name}: ${value}`;
    })
    .filter((value) => value !== '')
    .join('; ');
}

/**
 * Sentences of one paragraph of prose: ICU's, common abbreviations mended, and also ended before a
 * number ("… region. 312 customers …") so that a quoted sentence does not carry the one before.
 */
function proseSentences(paragraph: string): string[] {
  const flat = paragraph.replace(/\s+/g, ' ').trim();
  return flat === '' ? [] : segmentSentences(flat, { quoting: true });
}

/**
 * The sentences of a chunk: prose split at sentence ends, list items and headings one each, and
 * each Markdown table row as one "Column: value; …" sentence named by the table's header row.
 *
 * @example
 * splitSentences('| Plan | Price |\n|---|---|\n| Team | 12 EUR |\nBilled monthly. Cancel anytime.');
 * // ['Plan: Team; Price: 12 EUR', 'Billed monthly.', 'Cancel anytime.']
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let header: string[] | undefined;
  let paragraph: string[] = [];
  const flush = () => {
    sentences.push(...proseSentences(paragraph.join(' ')));
    paragraph = [];
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('|')) {
      flush();
      if (SEPARATOR_ROW.test(line)) continue;
      const row = cells(line);
      if (header === undefined) {
        header = row;
        continue;
      }
      const sentence = rowSentence(header, row);
      if (sentence !== '') sentences.push(sentence);
      continue;
    }
    header = undefined;
    if (line === '') {
      flush();
      continue;
    }
    const item = /^(?:[-*+•]|\d+[.)]|#{1,6})\s+(.*)$/.exec(line);
    if (item) {
      flush();
      sentences.push(...proseSentences(item[1] ?? ''));
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return sentences;
}

/** Collapses whitespace and cuts at a word boundary, adding `…` when cut. */
export function shorten(text: string, maxLength: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxLength) return flat;
  const cut = flat.slice(0, maxLength);
  const space = cut.lastIndexOf(' ');
  return `${(space >= maxLength * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/**
 * The text with every occurrence of the phrases removed (case-insensitive), e.g. the phrases of a
 * question that became search filters.
 *
 * @example
 * removePhrases('What does the PDF say?', ['the PDF']); // 'What does   say?'
 */
export function removePhrases(text: string, phrases: readonly string[]): string {
  return phrases.reduce((rest, phrase) => {
    if (phrase === '') return rest;
    const pattern = new RegExp(phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
    return rest.replace(pattern, ' ');
  }, text);
}
