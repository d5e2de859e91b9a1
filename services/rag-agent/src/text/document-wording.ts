/**
 * How people ask, mapped to how documents state it: a question says "expense report", "boss" or
 * "trial period", a handbook "expense claim", "manager" and "probation". Each entry is a pattern
 * over the lower-cased question and the document phrases it adds to the search and to the terms
 * an answer's sentences are scored by. General workplace, policy and product wording, not any one
 * document's sentences.
 */
const WORDING: readonly (readonly [RegExp, readonly string[]])[] = [
  [/\bexpense reports?\b/, ['expense claims']],
  [/\b(deadline|by when|until when|due date)\b/, ['within', 'due', 'expire']],
  [
    /\bwho (do|should|can) i (contact|ask|talk to|go to)\b|\bcontact about\b/,
    ['approved by', 'goes to', 'email'],
  ],
  [/\b(allowance|stipend)\b/, ['budget']],
  [/\b(training|courses?|upskilling)\b/, ['learning budget']],
  [/\b(trial period|trial)\b/, ['probation']],
  [/\b(annual leave|holidays?|time off|pto|days off)\b/, ['vacation']],
  [/\b(leftover|left over|unused|carry (it )?over|into next year)\b/, ['carried over', 'unused']],
  [/\b(boss|line manager|supervisor|team lead)\b/, ['manager']],
  [/\b(sick|unwell|ill)\b/, ['ill', 'sick leave', 'absence']],
  [
    /\b(doctor'?s? note|sick note|medical note|note from (the|a|my) doctor)\b/,
    ['doctor certificate'],
  ],
  [/\b(laptops?|phones?|computers?|tablets?)\b/, ['devices']],
  [/\b(lost|lose|left|misplaced|stolen)\b/, ['lost or stolen', 'reported']],
  [/\b(own phone|own device|own laptop|personal (phone|laptop|device))\b/, ['personal devices']],
  [/\b(suppliers?|third part(y|ies))\b/, ['vendors']],
  [/\b(spared|unaffected|not affected|weren'?t affected)\b/, ['not affected']],
  [/\b(availability|available)\b/, ['uptime']],
  [/\b(guarantee[ds]?|promised?)\b/, ['commits']],
  [/\bscheduled\b/, ['planned']],
  [/\b(warning|advance notice|heads up|how far in advance)\b/, ['announced in advance']],
  [/\b(sign in|log in|login|signing in|logging in)\b/, ['login', 'single sign-on']],
  [/\b(responsible|in charge|accountable)\b/, ['owner', 'owned by']],
  [/\b(wrote|written|author)\b/, ['authors']],
  [/\b(signed off|approved|sign-off)\b/, ['approved by']],
  [/\bidentity providers?\b|\bsso\b/, ['single sign-on']],
  [/\b(recalibrate|recalibration)\b/, ['calibrate']],
  [/\b(patch(es)?|os updates?|operating system updates?)\b/, ['security updates']],
  [/\badmins?\b/, ['administrators']],
  [/\b(oldest|minimum|lowest) (android|ios|version)\b/, ['requires', 'or later']],
  [/\b(valid|expires?)\b/, ['expiry']],
  [/\b(lose|lost|losing) (any )?(sensor )?data\b|\bdata loss\b/, ['data was lost']],
  [/\b(sorted|fixed|resolved|solved)\b/, ['status', 'closed']],
  [/\b(max|maximum|limit|cap)\b/, ['maximum', 'up to']],
  [/\b(kept|keep|stored|retained)\b/, ['retention']],
  [/\b(cost|costs|price|pay|charge)\b/, ['price']],
  [/\bhandle\b/, ['connects up to']],
  [/\b(abroad|another country|other countr(y|ies)|overseas)\b/, ['working from abroad']],
  [/\b(breach|hack(ed)?|attack)\b/, ['security incident']],
  [/\b(confirm|acknowledge)\b/, ['acknowledges']],
  [/\b(upfront|up front|in advance)\b/, ['paid in advance']],
  [/\b(charit(y|ies)|non-?profits?|ngos?)\b/, ['nonprofit', 'registered charities']],
  [/\b(be around|be online|be available|be at work|be in the office)\b/, ['core hours']],
  [/\b(get back to|respond|reply|response)\b/, ['response', 'hour']],
  [
    /\b(stop(ped)? getting updates|no longer (get|receive) updates|end of support)\b/,
    ['no longer receive updates', 'end of support'],
  ],
];

/**
 * The document phrases for a question's wording (empty when it uses the documents' own words).
 *
 * @example
 * documentWording('Who do I contact about expense reports?');
 * // ['expense claims', 'approved by', 'goes to', 'email']
 */
export function documentWording(question: string): string[] {
  const text = question.toLowerCase().replace(/[’]/g, "'");
  const phrases: string[] = [];
  for (const [pattern, added] of WORDING) {
    if (!pattern.test(text)) continue;
    for (const phrase of added) if (!phrases.includes(phrase)) phrases.push(phrase);
  }
  return phrases;
}
