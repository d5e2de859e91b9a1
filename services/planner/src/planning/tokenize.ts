/**
 * Words that say nothing about which agent should act: articles, pronouns, prepositions, polite
 * filler, the ordering words (they shape the plan, not the match) and the fleet's own vocabulary.
 */
const STOPWORDS = new Set([
  'a',
  'about',
  'above',
  'after',
  'afterward',
  'afterwards',
  'again',
  'against',
  'agent',
  'agents',
  'all',
  'also',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'because',
  'been',
  'before',
  'below',
  'between',
  'both',
  'but',
  'by',
  'can',
  'could',
  'did',
  'do',
  'does',
  'doing',
  'down',
  'during',
  'each',
  'else',
  'few',
  'finally',
  'first',
  'for',
  'from',
  'further',
  'get',
  'give',
  'had',
  'has',
  'have',
  'having',
  'he',
  'hello',
  'her',
  'here',
  'hey',
  'hi',
  'him',
  'his',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'just',
  'let',
  'many',
  'me',
  'more',
  'most',
  'much',
  'my',
  'next',
  'no',
  'nor',
  'not',
  'of',
  'off',
  'on',
  'once',
  'one',
  'only',
  'or',
  'other',
  'our',
  'ours',
  'out',
  'over',
  'own',
  'please',
  'said',
  'same',
  'say',
  'saying',
  'says',
  'she',
  'should',
  'so',
  'some',
  'such',
  'tell',
  'than',
  'thank',
  'thanks',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'three',
  'through',
  'to',
  'too',
  'two',
  'under',
  'until',
  'up',
  'us',
  'using',
  'very',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'while',
  'who',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/**
 * Stems that mean what another stem means, as cards and people spell them: "docs" is
 * "documents", "compute" is "calculation", "summarize" is "summarise", a graph is a chart, a
 * folder is a directory (as filesystem tools name it).
 */
const SYNONYMS = new Map([
  ['doc', 'document'],
  ['email', 'mail'],
  ['find', 'search'],
  ['check', 'search'],
  ['calculat', 'calculation'],
  ['comput', 'calculation'],
  ['summariz', 'summaris'],
  ['graph', 'chart'],
  ['histogram', 'chart'],
  ['analyz', 'analys'],
  ['analysi', 'analys'],
  ['analysis', 'analys'],
  ['folder', 'directory'],
  ['dir', 'directory'],
  ['db', 'database'],
]);

const VOWEL = /[aeiouy]/;

function undouble(base: string): string {
  // "plott" → "plot", "runn" → "run"; but "call", "pass", "buzz" keep their double letter.
  return /([b-df-hj-np-tv-z])\1$/.test(base) && !/(ll|ss|zz)$/.test(base)
    ? base.slice(0, -1)
    : base;
}

/**
 * A deliberately small English stemmer: enough to make "emails", "emailing" and "emailed" meet
 * "email", "searches" meet "search", "charts"/"charting" meet "chart" and "documents"/"docs" meet
 * "document"/"doc". Plurals, -ing and -ed are cut, then a final silent "e" ("compare" and
 * "compared" both become "compar").
 *
 * @example
 * stem('libraries'); // 'library'
 * stem('plotting'); // 'plot'
 */
export function stem(word: string): string {
  let base = word;
  if (base.length > 4 && base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (base.length > 5 && base.endsWith('ing') && VOWEL.test(base.slice(0, -3))) {
    base = undouble(base.slice(0, -3));
  } else if (base.length > 4 && base.endsWith('ed') && VOWEL.test(base.slice(0, -2))) {
    base = undouble(base.slice(0, -2));
  } else if (base.length > 4 && /(?:ches|shes|sses|xes|zes)$/.test(base)) base = base.slice(0, -2);
  else if (base.length > 3 && base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) {
    base = base.slice(0, -1);
  }
  if (base.length > 3 && base.endsWith('e') && !base.endsWith('ee')) base = base.slice(0, -1);
  return base;
}

/** One word of a text, as it was written and as it is matched. */
export interface Token {
  /** The stemmed, lowercased form that is compared. */
  term: string;
  /** The word as written (lowercased; "url"/"email address" for addresses). */
  word: string;
}

/**
 * Lowercases, turns URLs into the word "url" and e-mail addresses into "email address", drops
 * punctuation and possessive "'s", splits into words, removes stopwords and one-letter words, and
 * stems what is left. Letters and digits of any script count as word characters.
 *
 * @example
 * analyze('Emailing Bob').map((token) => token.term); // ['email', 'bob']
 */
export function analyze(text: string): Token[] {
  return (
    text
      .toLowerCase()
      // An address is a strong hint at what to do with it, and its pieces ("example", "com") noise.
      .replace(/\bhttps?:\/\/\S+/g, ' url ')
      .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, ' email address ')
      .replace(/['’]s\b/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .split(' ')
      .filter((word) => word.length > 1 && !STOPWORDS.has(word))
      .map((word) => ({ term: SYNONYMS.get(stem(word)) ?? stem(word), word }))
  );
}

/**
 * The terms of {@link analyze}: what the heuristic planner compares.
 *
 * @example
 * tokenize("Search the Web for TypeScript's latest releases"); // ['search', 'web', 'typescript', 'latest', 'releas']
 */
export function tokenize(text: string): string[] {
  return analyze(text).map((token) => token.term);
}
