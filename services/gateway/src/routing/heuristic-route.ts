/** The routes `auto` chooses between; it never picks `reasoning` (docs/architecture.md §3). */
export const AUTO_ROUTES = ['passthrough', 'orchestration'] as const;
export type AutoRoute = (typeof AUTO_ROUTES)[number];

/** A route and the short reason for it. */
export interface AutoRouteChoice {
  route: AutoRoute;
  reason: string;
}

/** Options for {@link heuristicRoute}. */
export interface HeuristicRouteOptions {
  /** The last user message. */
  text: string;
  /** True when there is no upstream LLM, so passthrough could only answer 503. */
  offline: boolean;
}

interface Rule {
  reason: string;
  patterns: readonly RegExp[];
}

// What only the fleet's agents can do: the user's documents, mail, running code, the live web,
// and requests of several steps. Patterns are matched against the lower-cased message.
const ORCHESTRATION_RULES: readonly Rule[] = [
  {
    reason: 'needs documents',
    patterns: [
      /\b(our|my|internal|uploaded|company|team)\s+(\w+\s+)?(documents?|docs|files?|pdfs?|polic(y|ies)|handbook|wiki|knowledge base|notes|contracts?|reports?|records)\b/,
      /\b(in|from|across|search)\s+(the|my|our)\s+(uploaded\s+)?(documents?|docs|files?|pdfs?)\b/,
    ],
  },
  {
    reason: 'needs email',
    patterns: [
      /\b(e-?mails?|inbox|mailbox|unread mail)\b/,
      /\b(send|write and send|forward)\s+(an?\s+)?(mail|message)\s+to\b/,
    ],
  },
  {
    reason: 'needs code execution',
    patterns: [
      /\b(run|execute|eval(uate)?)\b[^.?!]*\b(code|script|snippet|program|python|javascript|node|bash|shell)\b/,
      /\b(using|with|in)\s+python\b/,
    ],
  },
  {
    reason: 'needs the web',
    patterns: [
      /\b(search|look up|lookup|browse|google)\b[^.?!]*\b(web|internet|online|news)\b/,
      /\b(latest|today'?s|current|recent|breaking|this week'?s)\s+(news|headlines|version|release|prices?|weather|events?|scores?|results?)\b/,
      /\bnews\b/,
      /https?:\/\/\S+/,
    ],
  },
  {
    reason: 'multi-step request',
    patterns: [
      /\bfirst\b[^]*\bthen\b/,
      /\b(and then|after that|afterwards|once (that'?s|you'?re|it'?s) done)\b/,
    ],
  },
];

/**
 * Decides `auto` routing without an LLM: orchestration when the message asks for something only
 * the agents can do (documents, email, running code, the web, several steps), passthrough for
 * everything else (chat, writing, general knowledge). In offline mode passthrough can only
 * answer 503, so everything goes to orchestration, which works offline.
 *
 * @example
 * heuristicRoute({ text: 'Summarise our travel policy documents', offline: false });
 * // { route: 'orchestration', reason: 'needs documents' }
 */
export function heuristicRoute({ text, offline }: HeuristicRouteOptions): AutoRouteChoice {
  const message = text.toLowerCase();
  for (const rule of ORCHESTRATION_RULES) {
    if (rule.patterns.some((pattern) => pattern.test(message))) {
      return { route: 'orchestration', reason: rule.reason };
    }
  }
  if (offline) {
    return {
      route: 'orchestration',
      reason: 'no upstream LLM for passthrough; orchestration works offline',
    };
  }
  return { route: 'passthrough', reason: 'general request the model answers directly' };
}
