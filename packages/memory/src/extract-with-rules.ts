import type { MemoryUpdate } from './memory-schema';

/** Longest message the rules read, in characters (what follows is ignored). */
const MAX_TEXT = 4000;

/** One to three capitalised words: a person's name. */
const NAME = String.raw`(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2})`;
/** One to four words starting with a capital or a digit: an organisation's name. */
const ORGANISATION = String.raw`([\p{Lu}\d][\p{L}\d&'’-]*(?:\.[\p{L}\d]+)*(?:\s+(?:&\s+)?[\p{Lu}\d][\p{L}\d&'’-]*(?:\.[\p{L}\d]+)*){0,3})`;
/** "I'm", "I’m", "I am", "im" at a word start. */
const I_AM = String.raw`(?:^|[^\p{L}])(?:[Ii]['’]?m|[Ii]\s+am)\s+`;

/** Capitalised words after "I'm" that are not names. */
const NOT_NAMES = new Set([
  'a',
  'an',
  'the',
  'not',
  'sure',
  'here',
  'back',
  'done',
  'sorry',
  'happy',
  'glad',
  'from',
  'in',
  'at',
  'on',
  'working',
  'looking',
  'trying',
  'going',
  'interested',
  'new',
  'just',
  'also',
  'currently',
  'still',
  'very',
  'really',
  'so',
  'writing',
  'asking',
  'planning',
  'using',
  'building',
  'based',
  'located',
  'fine',
  'good',
  'ok',
  'okay',
  'curious',
  'stuck',
  'confused',
]);

/** Job titles end in one of these when no company follows ("I'm a data scientist"). */
const ROLE_WORDS =
  /(?:engineer|developer|programmer|manager|scientist|designer|analyst|architect|lead|director|consultant|researcher|student|teacher|professor|founder|co-founder|ceo|cto|cfo|coo|cio|vp|officer|administrator|admin|writer|editor|owner|intern|accountant|lawyer|doctor|nurse|marketer|recruiter|specialist|strategist|head|president|partner|associate|coordinator|technician|operator|sre|devops)$/i;

const LANGUAGES = new Map(
  [
    'English',
    'French',
    'German',
    'Spanish',
    'Italian',
    'Portuguese',
    'Dutch',
    'Swedish',
    'Norwegian',
    'Danish',
    'Finnish',
    'Polish',
    'Czech',
    'Slovak',
    'Hungarian',
    'Romanian',
    'Greek',
    'Turkish',
    'Russian',
    'Ukrainian',
    'Arabic',
    'Hebrew',
    'Persian',
    'Hindi',
    'Bengali',
    'Urdu',
    'Chinese',
    'Mandarin',
    'Cantonese',
    'Japanese',
    'Korean',
    'Vietnamese',
    'Thai',
    'Indonesian',
    'Malay',
    'Tagalog',
    'Swahili',
    'Catalan',
    'Basque',
    'Irish',
    'Welsh',
  ].map((language) => [language.toLowerCase(), language]),
);

function firstMatch(text: string, patterns: readonly RegExp[]): RegExpExecArray | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match;
  }
  return undefined;
}

function trimValue(value: string | undefined): string | undefined {
  const text = value
    ?.replace(/\s+/g, ' ')
    .replace(/^(?:a|an|the|my|our)\s+/i, '')
    .replace(/[\s.,;:!?)"'’]+$/, '')
    .trim();
  return text === undefined || text === '' ? undefined : text;
}

function extractName(text: string): string | undefined {
  const explicit = firstMatch(text, [
    new RegExp(String.raw`[Mm]y\s+(?:first\s+|full\s+)?name\s+is\s+${NAME}`, 'u'),
    new RegExp(String.raw`(?:^|[^\p{L}])[Cc]all\s+me\s+${NAME}`, 'u'),
    new RegExp(
      String.raw`(?:^|[^\p{L}])(?:[Tt]his\s+is|[Ii]t['’]s)\s+${NAME}\s+(?:here|speaking)`,
      'u',
    ),
  ]);
  if (explicit?.[1] !== undefined) return explicit[1];
  const casual = new RegExp(`${I_AM}${NAME}`, 'gu');
  for (const match of text.matchAll(casual)) {
    const name = match[1];
    if (name === undefined) continue;
    const words = name.split(/\s+/);
    const first = words[0]?.toLowerCase() ?? '';
    // "I'm German" is a nationality, not a name.
    if (NOT_NAMES.has(first) || LANGUAGES.has(first)) continue;
    // "I'm Ada Lovelace" — stop at the first word that is not a name ("I'm Ada From Kestrel").
    const kept: string[] = [];
    for (const word of words) {
      if (NOT_NAMES.has(word.toLowerCase())) break;
      kept.push(word);
    }
    return kept.join(' ');
  }
  return undefined;
}

function extractWork(text: string): { company?: string; jobTitle?: string } {
  const found: { company?: string; jobTitle?: string } = {};
  // "I'm a senior engineer at Kestrel", "I work as the CTO for Kestrel".
  const titled = new RegExp(
    String.raw`(?:${I_AM}|(?:^|[^\p{L}])[Ii]\s+work\s+as\s+)(?:an?|the)\s+((?:[\p{L}-]+\s+){0,4}?[\p{L}-]+)\s+(?:at|for|with|of)\s+${ORGANISATION}`,
    'u',
  ).exec(text);
  if (titled?.[1] !== undefined) {
    found.jobTitle = titled[1];
    if (titled[2] !== undefined) found.company = titled[2];
  }
  if (found.company === undefined) {
    const company = firstMatch(text, [
      new RegExp(
        String.raw`(?:^|[^\p{L}])[Ii]\s+(?:currently\s+)?work\s+(?:at|for|with)\s+${ORGANISATION}`,
        'u',
      ),
      new RegExp(String.raw`[Mm]y\s+(?:company|employer)\s+is\s+${ORGANISATION}`, 'u'),
      new RegExp(
        String.raw`(?:^|[^\p{L}])[Ii]['’]?m\s+(?:working\s+)?(?:at|with)\s+${ORGANISATION}`,
        'u',
      ),
    ]);
    if (company?.[1] !== undefined) found.company = company[1];
  }
  if (found.jobTitle === undefined) {
    const title = firstMatch(text, [
      /\bmy\s+(?:job\s+title|title|role|job|position)\s+is\s+(?:an?\s+|the\s+)?([^.,;:!?\n]{2,60})/i,
      new RegExp(
        String.raw`(?:${I_AM}|(?:^|[^\p{L}])[Ii]\s+work\s+as\s+)(?:an?|the)\s+((?:[\p{L}-]+\s+){0,3}[\p{L}-]+)`,
        'u',
      ),
    ]);
    const candidate = title?.[1]?.trim();
    if (
      candidate !== undefined &&
      (title?.[0].toLowerCase().includes('my ') || ROLE_WORDS.test(candidate))
    ) {
      found.jobTitle = candidate.replace(/\s+(?:at|for|with|and|in)\s+.*$/i, '');
    }
  }
  return found;
}

function extractProject(text: string): string | undefined {
  const match = firstMatch(text, [
    /\bmy\s+(?:current\s+|main\s+)?project\s+is\s+(?:called\s+)?([^.,;:!?\n]{2,80})/i,
    /\bour\s+(?:current\s+|main\s+)?project\s+is\s+(?:called\s+)?([^.,;:!?\n]{2,80})/i,
    new RegExp(String.raw`${I_AM}(?:currently\s+)?working\s+on\s+([^.,;:!?\n]{2,80})`, 'iu'),
  ]);
  const project = match?.[1]?.replace(/\s+(?:and|but|so)\s+.*$/i, '');
  return trimValue(project);
}

function extractDetailLevel(text: string): string | undefined {
  if (
    /\b(?:be|keep\s+it|keep\s+(?:your\s+)?(?:answers|replies)|make\s+it)\s+(?:very\s+|more\s+|really\s+)?(?:brief|concise|short|terse|succinct)\b|\b(?:brief|short|concise)\s+(?:answers|replies|responses)\b/i.test(
      text,
    )
  ) {
    return 'brief';
  }
  if (
    /\b(?:be|keep\s+it|make\s+it)\s+(?:very\s+)?(?:detailed|thorough|comprehensive|in-depth)\b|\b(?:detailed|thorough|in-depth|long)\s+(?:answers|replies|responses|explanations)\b|\b(?:explain|answer)\s+in\s+(?:great\s+)?detail\b/i.test(
      text,
    )
  ) {
    return 'detailed';
  }
  return undefined;
}

function extractTone(text: string): string | undefined {
  const match =
    /\b(?:keep\s+it|be|stay|sound|use\s+an?|in\s+an?|write\s+in\s+an?)\s+(?:more\s+|very\s+)?(formal|informal|casual|friendly|professional|playful|neutral)\b(?:\s+tone)?|\b(formal|informal|casual|friendly|professional|playful|neutral)\s+tone\b/i.exec(
      text,
    );
  const tone = (match?.[1] ?? match?.[2])?.toLowerCase();
  return tone === 'informal' ? 'casual' : tone;
}

function extractLanguage(text: string): string | undefined {
  const pattern =
    /\b(?:answer|reply|respond|write|speak|talk|answers|replies|responses)(?:\s+to\s+me)?\s+(?:only\s+)?in\s+([A-Za-z]+)\b|\bin\s+([A-Za-z]+)\s+please\b|\bmy\s+(?:preferred\s+)?language\s+is\s+([A-Za-z]+)\b/gi;
  for (const match of text.matchAll(pattern)) {
    const word = (match[1] ?? match[2] ?? match[3])?.toLowerCase();
    const language = word === undefined ? undefined : LANGUAGES.get(word);
    if (language !== undefined) return language;
  }
  return undefined;
}

/**
 * Finds personal facts and preferences in a message with rules, for offline mode and as the
 * fallback when the LLM extractor fails. It knows the common phrasings:
 * - name: "my name is Ada", "I'm Ada", "I am Ada Lovelace", "call me Ada";
 * - company and job title: "I work at/for Kestrel", "I'm a data engineer at Kestrel",
 *   "I work as the CTO of Kestrel", "my role is …", "my company is …";
 * - projects: "my project is Falcon", "I'm working on Falcon";
 * - detail level: "please be brief/concise", "keep it short", "be detailed", "explain in detail";
 * - language: "answer in French", "reply in German", "in Spanish please";
 * - tone: "keep it formal/casual", "be friendly", "casual tone".
 * Anything else is left to the LLM extractor. Pure and synchronous.
 *
 * @example
 * extractWithRules('My name is Ada and I work at Kestrel. Please be brief.');
 * // { facts: { name: 'Ada', company: 'Kestrel' }, preferences: { detailLevel: 'brief' } }
 */
export function extractWithRules(message: string): MemoryUpdate {
  const text = message.slice(0, MAX_TEXT);
  const update: MemoryUpdate = { facts: {}, preferences: {} };
  const name = trimValue(extractName(text));
  if (name !== undefined) update.facts.name = name;
  const work = extractWork(text);
  const company = trimValue(work.company);
  if (company !== undefined) update.facts.company = company;
  const jobTitle = trimValue(work.jobTitle);
  if (jobTitle !== undefined) update.facts.jobTitle = jobTitle;
  const project = extractProject(text);
  if (project !== undefined) update.facts.projects = [project];
  const detailLevel = extractDetailLevel(text);
  if (detailLevel !== undefined) update.preferences.detailLevel = detailLevel;
  const tone = extractTone(text);
  if (tone !== undefined) update.preferences.tone = tone;
  const language = extractLanguage(text);
  if (language !== undefined) update.preferences.language = language;
  return update;
}
