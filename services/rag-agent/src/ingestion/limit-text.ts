import type { Truncation } from './limits';
import type { ParsedBody } from './parsers/parsed-body';
import type { Block, Section } from './types';

function blockLength(block: Block): number {
  switch (block.kind) {
    case 'table':
      return block.rows.reduce(
        (sum, row) => sum + row.reduce((cells, cell) => cells + cell.length, 0),
        0,
      );
    case 'list':
      return block.items.reduce((sum, item) => sum + item.length, 0);
    case 'paragraph':
    case 'code':
      return block.text.length;
  }
}

/** The first `budget` characters of a block (whole rows and items; text cut at a space). */
function cutBlock(block: Block, budget: number): Block | undefined {
  switch (block.kind) {
    case 'table': {
      const rows: string[][] = [];
      let used = 0;
      for (const row of block.rows) {
        const length = row.reduce((cells, cell) => cells + cell.length, 0);
        if (used + length > budget) {
          // The header and the first data row are cut to fit rather than dropped: a table whose
          // first row is longer than the budget still has its start indexed.
          if (rows.length < 2) rows.push(cutRow(row, budget - used));
          break;
        }
        used += length;
        rows.push(row);
      }
      // A header alone says nothing.
      return rows.length > 1 ? { ...block, rows } : undefined;
    }
    case 'list': {
      const items: string[] = [];
      let used = 0;
      for (const item of block.items) {
        used += item.length;
        if (used > budget) break;
        items.push(item);
      }
      return items.length > 0 ? { ...block, items } : undefined;
    }
    case 'paragraph':
    case 'code': {
      const text = cutText(block.text, budget);
      return text.trim() === '' ? undefined : { ...block, text };
    }
  }
}

/** A row's cells, left to right, within `budget` characters in all (the rest of the row empty). */
function cutRow(row: readonly string[], budget: number): string[] {
  let left = Math.max(budget, 0);
  return row.map((cell) => {
    const kept = cell.length <= left ? cell : cutText(cell, left);
    left -= kept.length;
    return kept;
  });
}

/** The first `budget` characters of `text`, cut back to the last space if one is near. */
export function cutText(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const head = text.slice(0, budget);
  const space = head.search(/\s\S*$/);
  return space > budget * 0.9 ? head.slice(0, space) : head;
}

/**
 * Keeps the first `maxChars` characters of a parsed document's text (cells, items, paragraphs,
 * in reading order) and drops the rest, adding a `maxTextChars` truncation with the total, unless
 * the parser already reported one (it stopped reading early and knows no total).
 */
export function limitText(body: ParsedBody, maxChars: number): ParsedBody {
  let total = 0;
  for (const section of body.sections) {
    for (const block of section.blocks) total += blockLength(block);
  }
  if (total <= maxChars) return body;
  const sections: Section[] = [];
  let used = 0;
  for (const section of body.sections) {
    if (used >= maxChars) break;
    const blocks: Block[] = [];
    for (const block of section.blocks) {
      if (used >= maxChars) break;
      const length = blockLength(block);
      if (used + length <= maxChars) {
        blocks.push(block);
        used += length;
        continue;
      }
      const cut = cutBlock(block, maxChars - used);
      if (cut) blocks.push(cut);
      used = maxChars;
    }
    if (blocks.length > 0) sections.push({ ...section, blocks });
  }
  const known = body.truncations?.some((truncation) => truncation.limit === 'maxTextChars');
  const truncations: Truncation[] = [
    ...(body.truncations ?? []),
    ...(known ? [] : [{ limit: 'maxTextChars' as const, kept: maxChars, total }]),
  ];
  return { ...body, sections, truncations };
}
