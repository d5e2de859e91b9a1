/**
 * What a part of a request says about itself, beyond which agent's words it uses: whether it
 * starts a new piece of work, whether it only refers back to the one before, whether it asks
 * about the organisation's own rules and documents, and which concepts its figures imply.
 */

/** Words that open a question. */
const QUESTION_WORD =
  /^(?:what|what's|whats|who|whom|whose|which|when|where|why|how|is|are|was|were|do|does|did|can|could|should|will|would|may|must|am|has|have|any)\b/i;

/**
 * Verbs a person opens a piece of work with ("search …", "email …", "plot …"). Only used to tell
 * a new part of the request from the continuation of a list ("the mean, median and mode"), never
 * to choose an agent.
 */
const WORK_VERB = new RegExp(
  String.raw`^(?:please\s+)?(?:` +
    [
      'search',
      'find',
      'look',
      'get',
      'check',
      'email',
      'e-mail',
      'mail',
      'send',
      'forward',
      'reply',
      'respond',
      'answer',
      'draft',
      'write',
      'compose',
      'prepare',
      'compute',
      'calculate',
      'count',
      'total',
      'sum',
      'plot',
      'chart',
      'graph',
      'draw',
      'run',
      'execute',
      'summari[sz]e',
      'read',
      'open',
      'research',
      'investigate',
      'compare',
      'list',
      'show',
      'give',
      'tell',
      'explain',
      'fetch',
      'pull',
      'google',
      'translate',
      'analy[sz]e',
      'convert',
      'make',
      'create',
      'generate',
      'save',
      'notify',
      'let',
      'ask',
      'fix',
      'simulate',
      'visuali[sz]e',
    ].join('|') +
    String.raw`)\b`,
  'i',
);

const PLACEHOLDER_ONLY =
  /^(?:⟦code-block-\d+⟧|https?:\/\/\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)[\s.,;:!?]*$/i;

/** Whether a part of a request is a question (it ends with "?" or opens like one). */
export function isQuestion(text: string): boolean {
  const trimmed = text.trim();
  return /\?\s*$/.test(trimmed) || QUESTION_WORD.test(trimmed);
}

/**
 * Whether a part of a request starts a new piece of work: a question, or an instruction that
 * opens with a verb. A part that does neither ("median and mode", "000 EUR at 4%", "MySQL
 * replication", a lone URL or program) continues the part before it.
 *
 * @example
 * startsNewPart('what is the deadline for submitting them?'); // true
 * startsNewPart('MySQL replication in depth'); // false
 */
export function startsNewPart(text: string): boolean {
  const trimmed = text.trim().replace(/^(?:and|also|plus|then|so|now|first)\b[\s,]*/i, '');
  if (trimmed === '' || PLACEHOLDER_ONLY.test(trimmed)) return false;
  return isQuestion(trimmed) || WORK_VERB.test(trimmed);
}

/**
 * Whether a part points back at what an earlier part produced: an object pronoun ("email it",
 * "forward them", "based on it") or "the result(s)/answer/output/summary/findings".
 *
 * @example
 * refersBack('email it to bob@example.com'); // true
 */
export function refersBack(text: string): boolean {
  return (
    /\b(?:it|them)\b(?!\s+(?:is|are|was|were|'s)\b)|\b(?:this|that|those|these)\b(?=\s*(?:$|[.,;:!?]|to\b|as\b|with\b|and\b))/i.test(
      text.replace(
        /^(?:what|who|how|which|when|where|why|is|are|does|do|can)\b.*?\b(?:is|are)\b/i,
        '',
      ),
    ) ||
    /\b(?:the|those|these|its|their)\s+(?:results?|answers?|outputs?|summary|findings|totals?|counts?|numbers|figures|key changes|main points)\b/i.test(
      text,
    )
  );
}

/**
 * Kinds of documents an organisation keeps and people ask about: what the document agent's own
 * card calls "policies, handbooks, reports, spreadsheets, notes", and their everyday names.
 */
const DOCUMENT_KIND =
  /\b(?:handbook|policy|policies|docs?|documents?|wiki|guidelines?|rules|sla|service level agreement|contract|pricing (?:sheet|spreadsheet|table|list)|price list|spreadsheet|post-?mortem|incident report|release notes|changelog|support (?:tickets?|export)|tickets?|onboarding|checklist|manual|faq|intranet|knowledge base)\b/i;

/** "our …", "the company's …", "internal …": the tenant's own things. */
const OWN_THINGS = /\b(?:our|the company'?s|internal|in-house)\b/i;

/**
 * A question about what people here may, must or get ("can I …", "do I need …", "who has to
 * approve …", "how long may we …"): answered by the organisation's rules, so by its documents.
 */
const RULE_QUESTION = new RegExp(
  [
    String.raw`\b(?:can|may|must|should|do|does|am|are|is)\s+(?:i|we|employees?|staff|new hires?|my\s+\w+|part-time\w*|full-time\w*)\b`,
    String.raw`\b(?:i|we|employees?|staff)\s+(?:have|has|need|needs|must|may|can|am|are)\s+(?:to\s+|allowed\b|entitled\b)?`,
    String.raw`\bwho\s+(?:has|have|needs?|must|should|do\s+i\s+\w+|approves?|signs?)\b`,
    String.raw`\bfrom\s+which\s+day\b`,
    String.raw`\b(?:how\s+(?:long|many\s+days|much|far\s+in\s+advance))\b.*\b(?:i|we|employees?|staff|my|our)\b`,
  ].join('|'),
  'i',
);

/** Whether a part asks about the organisation's own documents or rules (policy, handbook, "can I …"). */
export function asksOwnDocuments(text: string): boolean {
  return (
    DOCUMENT_KIND.test(text) ||
    (isQuestion(text) && (RULE_QUESTION.test(text) || OWN_THINGS.test(text)))
  );
}

/** Figures that only a calculation answers: percentages, operators, roots and powers. */
const ARITHMETIC =
  /\d\s*%|\bpercent\b|\d\s*[-+*/×÷^]\s*\d|\*\*|\bsquare root\b|\bsqrt\b|\bfactorial\b|\bcompound interest\b|\baverage of\b/i;

/** A clock time, a calendar date or a weekday. */
const DATE_OR_TIME =
  /\b\d{1,2}:\d{2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}\b|\bweekday\b|\bright now\b/i;

/** Asking for a date, a time or a span to be worked out. */
const DATE_QUESTION =
  /\b(?:how many|how long|what (?:day|weekday|time|date)|when (?:does|will|do|did|must|should|is)|until|between|since|ago|from now|right now|weekday)\b/i;

/** A file path or name with an extension of a text format (`notes/todo.md`, `data.csv`). */
const TEXT_FILE =
  /(?:^|[\s"'`(])[\w./~-]*[\w-]\.(?:md|markdown|txt|text|rst|csv|tsv|json|jsonl|ya?ml|toml|ini|xml|log|html?|css|js|mjs|ts|py|rb|go|rs|java|sql|sh)(?=$|[\s"'`),;:!?]|\.(?:\s|$))/i;

/** A file path or name with an extension of an image, audio or video format. */
const MEDIA_FILE =
  /(?:^|[\s"'`(])[\w./~-]*[\w-]\.(?:png|jpe?g|gif|webp|svg|bmp|mp3|wav|ogg|m4a|flac|mp4|mov|webm)(?=$|[\s"'`),;:!?]|\.(?:\s|$))/i;

/**
 * Concept words the request implies without saying them, as card tags say them: "calculation"
 * and "math" for figures to work out, "date" and "time" for clock times and dates, "text file"
 * or "media file" for a file named by its extension (not in a URL).
 *
 * @example
 * impliedConcepts('What is 17% of 2,340?'); // ['calculation', 'math']
 * impliedConcepts('read notes/todo.md'); // ['text', 'file']
 */
export function impliedConcepts(text: string): string[] {
  const concepts: string[] = [];
  if (ARITHMETIC.test(text)) concepts.push('calculation', 'math');
  if (DATE_OR_TIME.test(text) && DATE_QUESTION.test(text)) concepts.push('date', 'time');
  const withoutUrls = text.replace(/\bhttps?:\/\/\S+/gi, ' ');
  if (TEXT_FILE.test(withoutUrls)) concepts.push('text', 'file');
  else if (MEDIA_FILE.test(withoutUrls)) concepts.push('media', 'file');
  return concepts;
}
