import type { DocumentInfo } from '@fleet/a2a';

/** A document type the RAG agent stores. */
export type DocumentType = DocumentInfo['docType'];

/**
 * Search filters taken from a question: the same shape as the store's `SearchFilters`. Every field
 * is optional; an empty object filters nothing.
 */
export interface QueryFilters {
  docTypes?: DocumentType[];
  /** Filenames of the tenant's documents the question names. */
  filenames?: string[];
  /** ISO time: documents stored at or after it. */
  createdAfter?: string;
  /** ISO time: documents stored before it. */
  createdBefore?: string;
}

/** What {@link extractFilters} found, with the phrases that produced each filter. */
export interface ExtractedFilters {
  filters: QueryFilters;
  /** The phrases of the question that became filters, e.g. `['in the PDF', 'since 2025']`. */
  mentions: string[];
}

/** Options for {@link extractFilters}. */
export interface ExtractFiltersOptions {
  /** The question. */
  text: string;
  /** The tenant's document filenames, to recognise the ones the question names. */
  filenames?: readonly string[];
  /** "this year", "last year" are relative to it. @default new Date() */
  now?: Date;
}

// A type word counts only where it names a document: after an article, possessive or
// preposition ("in the PDF", "my spreadsheets", "from CSV files"), or before a document noun
// ("PDF files"). "Does it support PDF export?" filters nothing.
const LEAD = String.raw`(?:\b(?:the|a|an|my|our|your|this|that|these|those|in|from|per|across|within|to\s+the)\s+(?:(?:uploaded|attached|latest|last|new|old)\s+)?)`;
const TRAIL = String.raw`(?:\s+(?:files?|documents?|docs?|reports?|sheets?|attachments?))`;

const TYPE_WORDS: readonly { pattern: string; types: DocumentType[] }[] = [
  { pattern: String.raw`pdfs?`, types: ['pdf'] },
  { pattern: String.raw`(?:word|docx)(?:\s+(?:files?|documents?|docs?))?`, types: ['docx'] },
  { pattern: String.raw`csvs?`, types: ['csv'] },
  {
    pattern: String.raw`(?:excel(?:\s+(?:files?|sheets?|workbooks?))?|xlsx|workbooks?)`,
    types: ['xlsx'],
  },
  { pattern: String.raw`spreadsheets?`, types: ['xlsx', 'csv'] },
  { pattern: String.raw`(?:txt|text\s+files?|plain[-\s]text\s+files?)`, types: ['txt'] },
  { pattern: String.raw`(?:markdown|md\s+files?)`, types: ['md'] },
  { pattern: String.raw`(?:html|web\s*pages?)`, types: ['html'] },
];

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;

const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const YEAR = String.raw`(?:19|20|21)\d{2}`;
/** A date a question may name: 2024, March 2026, Mar 2026, 2026-03, 2026-03-15, this/last year. */
const DATE = String.raw`(?:${MONTH}\.?\s+${YEAR}|${YEAR}-\d{2}(?:-\d{2})?|${YEAR}|this\s+year|last\s+year)`;

/** A span of time, [start, end). */
interface Period {
  start: Date;
  end: Date;
}

function utc(year: number, month = 0, day = 1): Date {
  return new Date(Date.UTC(year, month, day));
}

function monthIndex(word: string): number {
  const prefix = word.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((month) => month.startsWith(prefix));
}

/** The period a date phrase names, or undefined when it is not a date. */
function parsePeriod(phrase: string, now: Date): Period | undefined {
  const text = phrase.trim().toLowerCase();
  const thisYear = now.getUTCFullYear();
  if (/^this\s+year$/.test(text)) return { start: utc(thisYear), end: utc(thisYear + 1) };
  if (/^last\s+year$/.test(text)) return { start: utc(thisYear - 1), end: utc(thisYear) };
  const iso = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(text);
  if (iso) {
    const year = Number(iso[1]);
    const month = Number(iso[2]) - 1;
    if (month < 0 || month > 11) return undefined;
    if (iso[3] === undefined) return { start: utc(year, month), end: utc(year, month + 1) };
    const day = Number(iso[3]);
    return { start: utc(year, month, day), end: utc(year, month, day + 1) };
  }
  const monthYear = /^([a-z]+)\.?\s+(\d{4})$/.exec(text);
  if (monthYear) {
    const month = monthIndex(monthYear[1] ?? '');
    const year = Number(monthYear[2]);
    if (month < 0) return undefined;
    return { start: utc(year, month), end: utc(year, month + 1) };
  }
  if (/^\d{4}$/.test(text)) {
    const year = Number(text);
    return { start: utc(year), end: utc(year + 1) };
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Lower-case words of a filename stem: `employee-handbook_v2` → `employee handbook v2`. */
function stemWords(filename: string): string {
  return filename
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const DOCUMENT_NOUN = String.raw`(?:file|document|doc|sheet|spreadsheet|workbook|page|report)`;

/** The tenant's filenames the question names, with the phrase that named each. */
function mentionedFilenames(
  text: string,
  filenames: readonly string[],
): { filename: string; phrase: string }[] {
  const lower = text.toLowerCase();
  const words = ` ${lower.replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const found: { filename: string; phrase: string }[] = [];
  for (const filename of filenames) {
    const name = filename.toLowerCase();
    if (name !== '' && lower.includes(name)) {
      found.push({ filename, phrase: filename });
      continue;
    }
    const stem = stemWords(filename);
    if (stem.length < 3) continue;
    // A one-word stem ("pricing") is also an ordinary word: it counts only followed by a document
    // noun ("the pricing sheet"). A stem of several words or with digits is specific enough alone.
    const specific = stem.includes(' ') || /\d/.test(stem);
    const pattern = specific
      ? new RegExp(` ${escapeRegExp(stem)} `)
      : new RegExp(` ${escapeRegExp(stem)} ${DOCUMENT_NOUN}s? `);
    const match = pattern.exec(words);
    if (match) found.push({ filename, phrase: match[0].trim() });
  }
  return found;
}

/** Document types the question restricts the search to, with the phrases that did. */
function mentionedTypes(text: string): { types: DocumentType[]; phrases: string[] } {
  const types = new Set<DocumentType>();
  const phrases: string[] = [];
  for (const word of TYPE_WORDS) {
    const pattern = new RegExp(
      String.raw`${LEAD}(?:${word.pattern})\b|\b(?:${word.pattern})${TRAIL}\b`,
      'gi',
    );
    for (const match of text.matchAll(pattern)) {
      word.types.forEach((type) => types.add(type));
      phrases.push(match[0].trim());
    }
  }
  return { types: [...types], phrases };
}

/** The creation-time window the question asks for, with the phrases that set it. */
function mentionedDates(
  text: string,
  now: Date,
): { after?: Date; before?: Date; phrases: string[] } {
  let after: Date | undefined;
  let before: Date | undefined;
  const phrases: string[] = [];
  const narrowAfter = (date: Date) => {
    if (after === undefined || date > after) after = date;
  };
  const narrowBefore = (date: Date) => {
    if (before === undefined || date < before) before = date;
  };
  const between = new RegExp(String.raw`\bbetween\s+(${DATE})\s+and\s+(${DATE})\b`, 'gi');
  let rest = text;
  for (const match of text.matchAll(between)) {
    const from = parsePeriod(match[1] ?? '', now);
    const to = parsePeriod(match[2] ?? '', now);
    if (!from || !to) continue;
    narrowAfter(from.start);
    narrowBefore(to.end);
    phrases.push(match[0]);
    rest = rest.replace(match[0], ' ');
  }
  const relation = new RegExp(
    String.raw`\b(since|after|from|before|until|till|prior\s+to|in|during|of)\s+(?:the\s+year\s+)?(${DATE})\b`,
    'gi',
  );
  for (const match of rest.matchAll(relation)) {
    const period = parsePeriod(match[2] ?? '', now);
    if (!period) continue;
    const word = (match[1] ?? '').toLowerCase().replace(/\s+/g, ' ');
    if (word === 'of' && !/^\d{4}$|year$/.test((match[2] ?? '').trim())) continue;
    switch (word) {
      case 'since':
      case 'from':
        narrowAfter(period.start);
        break;
      case 'after':
        narrowAfter(period.end);
        break;
      case 'before':
      case 'prior to':
        narrowBefore(period.start);
        break;
      case 'until':
      case 'till':
        narrowBefore(period.end);
        break;
      default:
        narrowAfter(period.start);
        narrowBefore(period.end);
    }
    phrases.push(match[0]);
  }
  return {
    ...(after === undefined ? {} : { after }),
    ...(before === undefined ? {} : { before }),
    phrases,
  };
}

/**
 * Reads search filters out of a question, the way the reference pipeline's entity extraction does,
 * with no LLM:
 *
 * - document types where a type word names a document: "in the PDF", "my spreadsheets" (xlsx and
 *   csv), "CSV files", "the Word document", "markdown", "web pages";
 * - the tenant's filenames the question names: the whole filename anywhere ("pricing-2026.xlsx"),
 *   or its stem as words ("employee handbook" for `employee-handbook.md`; a one-word stem only
 *   before a document noun: "the pricing sheet");
 * - when documents were stored: "since 2025", "after March 2026", "before 2026-03", "until 2025",
 *   "in 2024", "during last year", "between 2024 and 2025" (UTC, `createdBefore` exclusive).
 *
 * The caller searches without the filters when they leave nothing.
 *
 * @example
 * extractFilters({ text: 'What does the PDF say since 2025?', filenames: [] });
 * // { filters: { docTypes: ['pdf'], createdAfter: '2025-01-01T00:00:00.000Z' }, mentions: ['the PDF', 'since 2025'] }
 */
export function extractFilters({
  text,
  filenames = [],
  now = new Date(),
}: ExtractFiltersOptions): ExtractedFilters {
  const filters: QueryFilters = {};
  const mentions: string[] = [];
  const named = mentionedFilenames(text, filenames);
  if (named.length > 0) {
    filters.filenames = [...new Set(named.map((entry) => entry.filename))];
    mentions.push(...named.map((entry) => entry.phrase));
  }
  // A named file already says which document; its extension is not a type filter on top.
  const typeText = named.reduce(
    (rest, entry) => rest.split(entry.phrase).join(' '),
    text.replace(/\S+\.(pdf|docx|csv|xlsx|txt|md|html?)\b/gi, ' '),
  );
  const types = mentionedTypes(typeText);
  if (types.types.length > 0) {
    filters.docTypes = types.types;
    mentions.push(...types.phrases);
  }
  const dates = mentionedDates(text, now);
  if (dates.after) filters.createdAfter = dates.after.toISOString();
  if (dates.before) filters.createdBefore = dates.before.toISOString();
  mentions.push(...dates.phrases);
  return { filters, mentions };
}

/** True when the filters restrict nothing. */
export function hasFilters(filters: QueryFilters): boolean {
  return (
    (filters.docTypes?.length ?? 0) > 0 ||
    (filters.filenames?.length ?? 0) > 0 ||
    filters.createdAfter !== undefined ||
    filters.createdBefore !== undefined
  );
}

/** The filters in words, for the answer's lead line: `PDF documents, stored since 2025-01-01`. */
export function describeFilters(filters: QueryFilters): string {
  const parts: string[] = [];
  if (filters.filenames?.length) parts.push(filters.filenames.join(', '));
  if (filters.docTypes?.length) {
    parts.push(`${filters.docTypes.map((type) => type.toUpperCase()).join('/')} documents`);
  }
  const day = (iso: string) => iso.slice(0, 10);
  if (filters.createdAfter && filters.createdBefore) {
    parts.push(`stored from ${day(filters.createdAfter)} to before ${day(filters.createdBefore)}`);
  } else if (filters.createdAfter) {
    parts.push(`stored since ${day(filters.createdAfter)}`);
  } else if (filters.createdBefore) {
    parts.push(`stored before ${day(filters.createdBefore)}`);
  }
  return parts.join(', ');
}
