import { citationSchema, type Citation } from '@fleet/a2a';
import { z } from 'zod';

/** One step's answer and the sources its `[n]` markers point at (n from 1). */
export interface CitedStep {
  id: string;
  agent: string;
  summary: string;
  sources: readonly Citation[];
}

/** The steps with their markers rewritten into one global list. */
export interface RenumberedCitations {
  steps: { id: string; agent: string; summary: string }[];
  /** The global list: `[n]` in any rewritten summary is `citations[n - 1]`. */
  citations: Citation[];
}

// `[2]`, and grouped forms such as `[1, 3]` or `[1,2]`.
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * Rewrites each step's local `[n]` citation markers into one numbering across all steps, in step
 * order, and returns that global list. A source cited by several steps (same URL, or same title
 * when it has no URL) gets one number. Markers that point past a step's own sources are left as
 * they were: they are not citations this step can back.
 *
 * @example
 * renumberCitations([
 *   { id: 'a', agent: 'web-agent', summary: 'X [1].', sources: [{ title: 'X', url: 'https://x' }] },
 *   { id: 'b', agent: 'rag-agent', summary: 'Y [1][2].', sources: [{ title: 'Y' }, { title: 'X', url: 'https://x' }] },
 * ]);
 * // steps: 'X [1].', 'Y [2][1].'; citations: X (web-agent), Y (rag-agent)
 */
export function renumberCitations(steps: readonly CitedStep[]): RenumberedCitations {
  const citations: Citation[] = [];
  const numberByKey = new Map<string, number>();
  const rewritten = steps.map((step) => {
    const local = step.sources.map((source) => {
      const key =
        source.url !== undefined && source.url !== ''
          ? `url:${source.url}`
          : `title:${source.title}`;
      let global = numberByKey.get(key);
      if (global === undefined) {
        citations.push({ ...source, agent: source.agent ?? step.agent });
        global = citations.length;
        numberByKey.set(key, global);
      }
      return global;
    });
    const summary = step.summary.replace(MARKER, (marker, list: string) => {
      const numbers = list.split(',').map((item) => Number(item.trim()));
      if (!numbers.every((n) => n >= 1 && n <= local.length)) return marker;
      return numbers.map((n) => `[${local[n - 1] ?? n}]`).join('');
    });
    return { id: step.id, agent: step.agent, summary };
  });
  return { steps: rewritten, citations };
}

const looseSourceSchema = z.object({
  title: z.string().nullish(),
  name: z.string().nullish(),
  url: z.string().nullish(),
  snippet: z.string().nullish(),
});

/**
 * The sources an agent's result data lists (`sources`, or `citations`), in marker order. Each is
 * read leniently — agents are upstream output (CONTRIBUTING.md convention 9) — and one without a title is
 * named by its URL; entries with neither are kept as "untitled" so the numbering stays aligned.
 */
export function sourcesFromData(data: unknown): Citation[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const list = Array.isArray(record['sources'])
    ? record['sources']
    : Array.isArray(record['citations'])
      ? record['citations']
      : [];
  return list.map((entry: unknown) => {
    const strict = citationSchema.safeParse(entry);
    if (strict.success) return strict.data;
    const loose = looseSourceSchema.safeParse(entry);
    if (!loose.success) return { title: typeof entry === 'string' ? entry : 'untitled source' };
    const { title, name, url, snippet } = loose.data;
    return {
      title: title ?? name ?? url ?? 'untitled source',
      ...(url == null ? {} : { url }),
      ...(snippet == null ? {} : { snippet }),
    };
  });
}
