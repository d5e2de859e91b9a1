import type { Block } from '../types';

function tableCell(cell: string): string {
  return cell.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** One table row as a Markdown line. */
export function renderTableRow(row: readonly string[], width: number): string {
  const cells = Array.from({ length: width }, (_, index) => tableCell(row[index] ?? ''));
  return `| ${cells.join(' | ')} |`;
}

/** A table's header row and the Markdown rule under it. */
export function renderTableHeader(header: readonly string[], width: number): string {
  return `${renderTableRow(header, width)}\n|${' --- |'.repeat(width)}`;
}

/** The width of a table: its widest row. */
export function tableWidth(rows: readonly (readonly string[])[]): number {
  // reduce, not Math.max(...spread): a table can have more rows than a call has arguments.
  return rows.reduce((widest, row) => Math.max(widest, row.length), 1);
}

/** One list item as a Markdown bullet; its further lines are indented under it. */
export function renderListItem(item: string): string {
  return `- ${item.replace(/\n/g, '\n  ')}`;
}

/** Fences code, with a fence longer than any backtick run inside it. */
export function renderCode(text: string): string {
  const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 2);
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/**
 * A block as Markdown: paragraphs as they are, lists as `- ` bullets, code fenced, tables as
 * pipe tables with the first row as header.
 */
export function renderBlock(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return block.text;
    case 'list':
      return block.items.map(renderListItem).join('\n');
    case 'code':
      return renderCode(block.text);
    case 'table': {
      const [header = [], ...rows] = block.rows;
      const width = tableWidth(block.rows);
      return [
        renderTableHeader(header, width),
        ...rows.map((row) => renderTableRow(row, width)),
      ].join('\n');
    }
  }
}
