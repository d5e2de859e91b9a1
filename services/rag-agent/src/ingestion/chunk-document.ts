import { ValidationError } from '@fleet/errors';
import {
  renderBlock,
  renderCode,
  renderListItem,
  renderTableHeader,
  renderTableRow,
  tableWidth,
} from './chunking/render-block';
import { pack, splitByTokens, splitProse } from './chunking/split-text';
import { countTokens } from './count-tokens';
import type { Block, Chunk, ChunkOptions, ParsedDocument, Section } from './types';

/** Default token budget of a child chunk. */
export const DEFAULT_MAX_TOKENS = 350;

/** Default token budget of a parent chunk. */
export const DEFAULT_PARENT_MAX_TOKENS = 1200;

/** The smallest `maxTokens` accepted: room for a heading prefix and a sentence. */
const MIN_MAX_TOKENS = 32;

/** Tokens held back from every budget: joined text can count a token or two more than its parts. */
const MARGIN = 4;

/** Separator between blocks in a chunk. */
const BLOCK_SEPARATOR = '\n\n';

/** A block, or a piece of one, that is never split further. */
interface Unit {
  text: string;
  tokens: number;
  kind: Block['kind'];
  page?: number;
  /** A piece of a block too big for one chunk. */
  partial: boolean;
}

/** A child before ordinals: its body (the text after the prefix) and the units in it. */
interface Draft {
  body: string;
  /** Sum of the units' tokens and separators: within a token or two of the body's count. */
  bodyTokens: number;
  units: Unit[];
}

function withTokens(text: string): { text: string; tokens: number } {
  return { text, tokens: countTokens(text) };
}

function tableUnits(rows: readonly string[][], budget: number): string[] {
  const [header = [], ...data] = rows;
  const width = tableWidth(rows);
  const headerText = renderTableHeader(header, width);
  const headerTokens = countTokens(headerText);
  const lines = data.map((row) => renderTableRow(row, width));
  if (data.length === 0 || headerTokens > budget / 2) {
    // A header too big to repeat: the table goes as plain lines.
    return pack({
      parts: [...headerText.split('\n'), ...lines]
        .flatMap((line) => splitByTokens(line, budget))
        .map(withTokens),
      separator: '\n',
      budget,
    });
  }
  const rowBudget = budget - headerTokens - 1;
  const parts = lines.flatMap((line) => splitByTokens(line, rowBudget)).map(withTokens);
  return pack({ parts, separator: '\n', budget: rowBudget }).map(
    (piece) => `${headerText}\n${piece}`,
  );
}

function listUnits(items: readonly string[], budget: number): string[] {
  const parts = items.flatMap((item) => {
    const rendered = withTokens(renderListItem(item));
    if (rendered.tokens <= budget) return [rendered];
    return splitProse(item, budget - 2).map((piece, index) =>
      withTokens(index === 0 ? `- ${piece}` : `  ${piece}`),
    );
  });
  return pack({ parts, separator: '\n', budget });
}

function codeUnits(text: string, budget: number): string[] {
  const lineBudget = budget - countTokens(renderCode('')) - 2;
  const parts = text
    .split('\n')
    .flatMap((line) => (countTokens(line) <= lineBudget ? [line] : splitByTokens(line, lineBudget)))
    .map(withTokens);
  return pack({ parts, separator: '\n', budget: lineBudget }).map(renderCode);
}

/**
 * A block as units of at most `budget` tokens: whole if it fits; otherwise a paragraph by
 * sentences, a list by items, code by lines, a table by rows with the header repeated.
 */
function blockUnits(block: Block, budget: number, sectionPage: number | undefined): Unit[] {
  const page = block.page ?? sectionPage;
  const whole = withTokens(renderBlock(block));
  const unit = (text: string, tokens: number, partial: boolean): Unit => ({
    text,
    tokens,
    kind: block.kind,
    ...(page === undefined ? {} : { page }),
    partial,
  });
  if (whole.tokens <= budget) return [unit(whole.text, whole.tokens, false)];
  let pieces: string[];
  switch (block.kind) {
    case 'paragraph':
      pieces = splitProse(block.text, budget);
      break;
    case 'list':
      pieces = listUnits(block.items, budget);
      break;
    case 'code':
      pieces = codeUnits(block.text, budget);
      break;
    case 'table':
      pieces = tableUnits(block.rows, budget);
      break;
  }
  return pieces.map((piece) => unit(piece, countTokens(piece), true));
}

/** Packs units into child drafts of at most `budget` body tokens, whole units only. */
function draftChildren(units: readonly Unit[], budget: number): Draft[] {
  const separatorTokens = countTokens(BLOCK_SEPARATOR);
  const drafts: Draft[] = [];
  let current: Unit[] = [];
  let tokens = 0;
  const finish = (): void => {
    if (current.length === 0) return;
    const body = current.map((unit) => unit.text).join(BLOCK_SEPARATOR);
    drafts.push({ body, bodyTokens: tokens, units: current });
    current = [];
    tokens = 0;
  };
  for (const unit of units) {
    if (current.length > 0 && tokens + separatorTokens + unit.tokens > budget) finish();
    tokens += (current.length > 0 ? separatorTokens : 0) + unit.tokens;
    current.push(unit);
  }
  finish();
  return drafts;
}

/** Consecutive drafts grouped into parents of at most `budget` body tokens. */
function groupParents(drafts: readonly Draft[], budget: number): Draft[][] {
  const separatorTokens = countTokens(BLOCK_SEPARATOR);
  const groups: Draft[][] = [];
  let current: Draft[] = [];
  let tokens = 0;
  for (const draft of drafts) {
    if (current.length > 0 && tokens + separatorTokens + draft.bodyTokens > budget) {
      groups.push(current);
      current = [];
      tokens = 0;
    }
    tokens += (current.length > 0 ? separatorTokens : 0) + draft.bodyTokens;
    current.push(draft);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * The light context put before every chunk's text, so that a search for a heading or the
 * document's name finds its chunks: `Document: <title>` (unless the title is the first heading)
 * and `Section: A > B`, one line each. It is dropped to the last heading, then to nothing, if it
 * would take more than a quarter of the budget.
 */
function contextPrefix(
  title: string | undefined,
  path: readonly string[],
  maxTokens: number,
): string {
  const lines: string[] = [];
  if (title && title !== path[0]) lines.push(`Document: ${title}`);
  if (path.length > 0) lines.push(`Section: ${path.join(' > ')}`);
  const candidates = [
    lines,
    path.length > 0 ? [`Section: ${path[path.length - 1] ?? ''}`] : [],
    [],
  ];
  for (const candidate of candidates) {
    const prefix = candidate.length > 0 ? `${candidate.join('\n')}\n\n` : '';
    if (countTokens(prefix) <= maxTokens / 4) return prefix;
  }
  return '';
}

function kindsOf(units: readonly Unit[]): Block['kind'][] {
  return [...new Set(units.map((unit) => unit.kind))];
}

function pageSpan(units: readonly Unit[]): { page?: number; lastPage?: number } {
  const pages = units.flatMap((unit) => (unit.page === undefined ? [] : [unit.page]));
  const [first] = pages;
  const last = pages[pages.length - 1];
  if (first === undefined) return {};
  return last !== undefined && last !== first ? { page: first, lastPage: last } : { page: first };
}

function sectionChunks(
  { section, title, ordinal }: { section: Section; title: string | undefined; ordinal: number },
  { maxTokens, parentMaxTokens }: { maxTokens: number; parentMaxTokens: number },
): Chunk[] {
  const prefix = contextPrefix(title, section.path, maxTokens);
  const prefixTokens = countTokens(prefix);
  const sectionName = section.path.join(' > ');
  const units = section.blocks.flatMap((block) =>
    blockUnits(block, maxTokens - prefixTokens - MARGIN, section.page),
  );
  const drafts = draftChildren(units, maxTokens - prefixTokens - MARGIN);
  const chunks: Chunk[] = [];
  let next = ordinal;
  for (const group of groupParents(drafts, parentMaxTokens - prefixTokens - MARGIN)) {
    const parentOrdinal = next++;
    const parentUnits = group.flatMap((draft) => draft.units);
    const parentText = prefix + group.map((draft) => draft.body).join(BLOCK_SEPARATOR);
    const parentPages = pageSpan(parentUnits);
    chunks.push({
      ordinal: parentOrdinal,
      kind: 'parent',
      text: parentText,
      tokens: countTokens(parentText),
      section: sectionName,
      ...(parentPages.page === undefined ? {} : { page: parentPages.page }),
      metadata: {
        blockKinds: kindsOf(parentUnits),
        bodyOffset: prefix.length,
        children: group.length,
        ...(parentPages.lastPage === undefined ? {} : { lastPage: parentPages.lastPage }),
      },
    });
    for (const draft of group) {
      const text = prefix + draft.body;
      const pages = pageSpan(draft.units);
      chunks.push({
        ordinal: next++,
        kind: 'child',
        parentOrdinal,
        text,
        tokens: countTokens(text),
        section: sectionName,
        ...(pages.page === undefined ? {} : { page: pages.page }),
        metadata: {
          blockKinds: kindsOf(draft.units),
          bodyOffset: prefix.length,
          ...(pages.lastPage === undefined ? {} : { lastPage: pages.lastPage }),
          ...(draft.units.some((unit) => unit.partial) ? { partial: true } : {}),
        },
      });
    }
  }
  return chunks;
}

/**
 * Cuts a parsed document into parent and child chunks, section by section.
 *
 * Children (what is embedded and searched) hold whole blocks packed up to `maxTokens`: a
 * paragraph is split only when it does not fit, between sentences (a single sentence too long,
 * between words); a list keeps its items together and splits between items; a table stays whole
 * when it fits, else is split between rows with the header row repeated; code splits between
 * lines. Each child's text starts with a light context prefix, `Document: <title>` and
 * `Section: A > B` lines then a blank line, so a search for a heading finds its chunks;
 * `metadata.bodyOffset` is where the content starts. Parents are section-sized: consecutive
 * children of one section joined, up to `parentMaxTokens` (a long section gets several). Every
 * child's `parentOrdinal` names its parent; ordinals run densely from 0 in document order, each
 * parent right before its children.
 *
 * Metadata: `blockKinds` (the block kinds in the chunk), `bodyOffset`, `lastPage` (when the chunk
 * spans pages), `partial` (a child holding a piece of a split block), `children` (on parents).
 *
 * @param doc - A document from {@link parseDocument}.
 * @param options - Token budgets, and where to stop.
 * @returns The chunks, parents and children interleaved in document order.
 * @throws {@link ValidationError} for a budget below 32 tokens.
 *
 * @example
 * const chunks = chunkDocument(await parseDocument({ filename, bytes }), { maxTokens: 350 });
 * const searchable = chunks.filter((chunk) => chunk.kind === 'child');
 */
export function chunkDocument(
  doc: ParsedDocument,
  {
    maxTokens = DEFAULT_MAX_TOKENS,
    parentMaxTokens = DEFAULT_PARENT_MAX_TOKENS,
    stopAfterChildren = Number.POSITIVE_INFINITY,
  }: ChunkOptions = {},
): Chunk[] {
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS) {
    throw new ValidationError(
      `maxTokens must be an integer of at least ${MIN_MAX_TOKENS}; got ${maxTokens}.`,
    );
  }
  const budgets = { maxTokens, parentMaxTokens: Math.max(parentMaxTokens, maxTokens) };
  const chunks: Chunk[] = [];
  let children = 0;
  for (const section of doc.sections) {
    if (children > stopAfterChildren) break;
    // A loop, not push(...spread): one long section can yield more chunks than a call takes arguments.
    for (const chunk of sectionChunks(
      { section, title: doc.title, ordinal: chunks.length },
      budgets,
    )) {
      chunks.push(chunk);
      if (chunk.kind === 'child') children++;
    }
  }
  return chunks;
}
