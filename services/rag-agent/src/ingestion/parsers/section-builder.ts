import type { Block, Section } from '../types';

/** Collapses runs of whitespace (newlines included) to single spaces and trims. */
export function normalizeInline(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A block with its whitespace tidied, or `undefined` when nothing is left of it. */
function tidy(block: Block): Block | undefined {
  switch (block.kind) {
    case 'paragraph': {
      const text = block.text
        .split('\n')
        .map((line) => normalizeInline(line))
        .filter((line) => line !== '')
        .join('\n');
      return text === '' ? undefined : { ...block, text };
    }
    case 'list': {
      const items = block.items.map((item) => item.trim()).filter((item) => item !== '');
      return items.length === 0 ? undefined : { ...block, items };
    }
    case 'code': {
      const text = block.text.replace(/^\s*\n/, '').trimEnd();
      return text.trim() === '' ? undefined : { ...block, text };
    }
    case 'table': {
      const rows = block.rows
        .map((row) => row.map((cell) => normalizeInline(cell)))
        .filter((row) => row.some((cell) => cell !== ''));
      return rows.length === 0 ? undefined : { ...block, rows };
    }
  }
}

/** A heading to open a section with. */
export interface HeadingInput {
  text: string;
  /** 1 for the top level. */
  level: number;
  page?: number;
}

/**
 * Builds {@link Section}s from a stream of headings and blocks in reading order, keeping the
 * heading trail: a heading closes every open heading of the same or a deeper level.
 */
export class SectionBuilder {
  private readonly sections: Section[] = [];
  private readonly trail: { level: number; text: string }[] = [];
  private current: Section | undefined;
  private firstHeadingText: string | undefined;

  /** The text of the first heading seen, if any. */
  get firstHeading(): string | undefined {
    return this.firstHeadingText;
  }

  /** Opens a section under `heading`; a blank heading is ignored. */
  heading({ text, level, page }: HeadingInput): void {
    const clean = normalizeInline(text);
    if (clean === '') return;
    this.firstHeadingText ??= clean;
    while (this.trail.length > 0 && (this.trail[this.trail.length - 1]?.level ?? 0) >= level) {
      this.trail.pop();
    }
    this.trail.push({ level, text: clean });
    this.current = {
      path: this.trail.map((entry) => entry.text),
      level,
      ...(page === undefined ? {} : { page }),
      blocks: [],
    };
    this.sections.push(this.current);
  }

  /** Adds a block to the open section (the preamble before any heading). Blank blocks are dropped. */
  block(block: Block): void {
    const clean = tidy(block);
    if (!clean) return;
    if (!this.current) {
      this.current = { path: [], level: 0, blocks: [] };
      this.sections.push(this.current);
    }
    if (this.current.page === undefined && clean.page !== undefined) this.current.page = clean.page;
    this.current.blocks.push(clean);
  }

  /**
   * The sections with content. A heading with neither blocks nor subsections (a lone last line in
   * capitals, say) keeps its text as a paragraph, so nothing the file says is lost; a heading with
   * only subsections lives on in their paths.
   */
  build(): Section[] {
    return this.sections
      .map((section, index) => {
        if (section.blocks.length > 0) return section;
        const next = this.sections[index + 1];
        const hasChildren =
          next !== undefined &&
          next.path.length > section.path.length &&
          section.path.every((text, depth) => next.path[depth] === text);
        if (hasChildren) return section;
        const text = section.path[section.path.length - 1] ?? '';
        const paragraph: Block = {
          kind: 'paragraph',
          text,
          ...(section.page === undefined ? {} : { page: section.page }),
        };
        return { ...section, blocks: [paragraph] };
      })
      .filter((section) => section.blocks.length > 0);
  }
}
