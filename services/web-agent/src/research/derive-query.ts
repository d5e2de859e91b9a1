import type { SearchMode } from '../search';

/** What a question asks the web agent to do. */
export type ResearchMode = SearchMode | 'read';

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'()[\]{}]+/gi;

// "Search the web for", "look up", "find the latest news about", … at the start of a task.
const INSTRUCTION_PREFIX =
  /^(?:please\s+)?(?:(?:do\s+(?:a\s+)?)?(?:deep\s+|in-depth\s+|thorough\s+)?(?:web\s+)?(?:search|research|look\s+up|look\s+for|find|google|browse|check)(?:\s+(?:the\s+)?(?:web|internet|online|news))?(?:\s+(?:for|about|on))?|(?:what\s+is\s+)?the\s+(?:latest\s+)?news\s+(?:about|on))\s*[:,-]?\s+/i;

/**
 * The URLs a text names (trailing punctuation dropped), at most `limit`, without repeats.
 *
 * @example
 * urlsIn('summarise https://example.com/post.'); // ['https://example.com/post']
 */
export function urlsIn(text: string, limit = 5): string[] {
  const found = (text.match(URL_PATTERN) ?? []).map((url) => url.replace(/[.,;:!?]+$/, ''));
  return [...new Set(found)].slice(0, limit);
}

/**
 * The search query for a question or plan task: the instruction ("search the web for …") and
 * URLs removed, whitespace collapsed, at most 400 characters (providers cap queries).
 *
 * @example
 * deriveQuery('Search the web for the latest Node.js release'); // 'the latest Node.js release'
 */
export function deriveQuery(text: string): string {
  const flat = text.replace(URL_PATTERN, ' ').replace(/\s+/g, ' ').trim();
  const stripped = flat
    .replace(INSTRUCTION_PREFIX, '')
    .replace(/[?.!\s]+$/, '')
    .trim();
  const query = stripped.length >= 3 ? stripped : flat;
  return query.length <= 400 ? query : query.slice(0, 400).replace(/\s+\S*$/, '');
}

const NEWS =
  /\b(news|latest|today|yesterday|this\s+week|headlines?|breaking|recent(?:ly)?|announced?)\b/i;
const DEEP =
  /\b(in[-\s]depth|deep(?:\s+dive|ly)?|thorough(?:ly)?|comprehensive|detailed\s+research|research|investigate|compare|comparison)\b/i;

/**
 * The research mode for a task: the plan's skill when it names one (`news`, `deep-research`,
 * `read-page`, `web-search`), otherwise read from the text: URLs to read, news words, words that
 * ask for depth, else a basic search.
 *
 * @example
 * chooseMode({ text: 'latest news about the EU AI Act' }); // 'news'
 * chooseMode({ text: 'summarise https://example.com/post' }); // 'read'
 */
export function chooseMode({
  text,
  skill,
}: {
  text: string;
  skill?: string | undefined;
}): ResearchMode {
  switch (skill) {
    case 'news':
      return 'news';
    case 'deep-research':
      return 'deep';
    case 'read-page':
      return urlsIn(text).length > 0 ? 'read' : 'basic';
    case 'web-search':
      return NEWS.test(text) ? 'news' : 'basic';
    case undefined:
    default:
      break;
  }
  if (urlsIn(text).length > 0) return 'read';
  if (NEWS.test(text)) return 'news';
  if (DEEP.test(text)) return 'deep';
  return 'basic';
}
