import type { Fact } from './answer-cases';

/**
 * Text as facts are compared: citation markers (`[2]`) dropped, typographic quotes, dashes and
 * spaces made plain, thousands separators kept (facts list both forms where it matters), lower
 * case, runs of whitespace as one space.
 */
export function normaliseForFacts(text: string): string {
  return text
    .replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ')
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u00a0\u2000-\u200b\u202f]/g, ' ')
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether the (normalised) text states the phrase: it must stand as a whole token run, so `25`
 * does not match inside `250` nor `25.5`, and `open` not inside `opened`.
 */
function states(text: string, phrase: string): boolean {
  const wanted = normaliseForFacts(phrase);
  if (wanted === '') return false;
  const before = /^[\p{L}\p{N}]/u.test(wanted) ? '(?<![\\p{L}\\p{N}])' : '';
  // A trailing `.` or `,` in the answer ends a sentence; a digit or letter would extend the token,
  // except a plural `s` after a word (`sunday` is stated by "on Sundays").
  const after = /\p{L}$/u.test(wanted)
    ? 's?(?![\\p{L}\\p{N}])'
    : /\p{N}$/u.test(wanted)
      ? '(?![\\p{L}\\p{N}]|[.,]\\d)'
      : '';
  return new RegExp(`${before}${escapeRegExp(wanted)}${after}`, 'u').test(text);
}

/** A fact as the report names it: `"60 days"`, or `"manager" or "finance"`. */
export function describeFact(fact: Fact): string {
  const alternatives = typeof fact === 'string' ? [fact] : fact;
  return alternatives.map((alternative) => `"${alternative}"`).join(' or ');
}

/**
 * The facts the answer does not state (empty: it states them all). A fact given as alternatives
 * is stated when any one is.
 *
 * @example
 * missingFacts('Submit claims within 60 days [1].', ['60 days', ['manager', 'finance']]);
 * // [['manager', 'finance']]
 */
export function missingFacts(answer: string, facts: readonly Fact[]): Fact[] {
  const text = normaliseForFacts(answer);
  return facts.filter((fact) => {
    const alternatives = typeof fact === 'string' ? [fact] : fact;
    return !alternatives.some((alternative) => states(text, alternative));
  });
}
