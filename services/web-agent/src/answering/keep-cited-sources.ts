import { renumberCitations } from '@fleet/llm';
import type { WebSource } from './web-source';

/**
 * Renumbers an answer's `[n]` markers so that only cited sources are listed, in the order they
 * are first cited; markers that point at no source are dropped (`renumberCitations`), and the
 * spaces left before punctuation or doubled are tidied.
 *
 * @example
 * keepCitedSources({ text: 'B [2]. A [1]. X [9].', sources: [a, b] });
 * // { text: 'B [1]. A [2]. X.', sources: [b, a] }
 */
export function keepCitedSources({
  text,
  sources,
}: {
  text: string;
  sources: readonly WebSource[];
}): { text: string; sources: WebSource[] } {
  const { text: rewritten, cited } = renumberCitations({
    text,
    sourceCount: sources.length,
    order: 'first-cited',
    trimRemoved: false,
  });
  return {
    text: rewritten
      .replace(/ +([.,;:!?])/g, '$1')
      .replace(/ {2,}/g, ' ')
      .trim(),
    sources: cited.flatMap((number) => sources[number - 1] ?? []),
  };
}

/**
 * The tidying of {@link keepCitedSources} for a text that arrives in pieces: spaces before
 * punctuation or doubled are removed and the whole is trimmed, holding back only trailing
 * whitespace (what follows decides whether it stays). The pieces it returns join to what the
 * tidying of the whole text gives.
 *
 * @example
 * const tidy = createCitationTidier();
 * tidy.push('X '); // 'X'
 * tidy.push('. Y'); // '. Y'
 */
export function createCitationTidier(): { push(piece: string): string; end(): string } {
  let started = false;
  let held = '';
  return {
    push(piece) {
      let text = held + piece;
      if (!started) text = text.trimStart();
      const body = text.trimEnd();
      held = text.slice(body.length);
      if (body === '') return '';
      started = true;
      return body.replace(/ +([.,;:!?])/g, '$1').replace(/ {2,}/g, ' ');
    },
    end() {
      held = '';
      return '';
    },
  };
}
