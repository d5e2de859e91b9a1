import { chunkBody, leadingNotes, type Retrieval, type RetrievedChunk } from '../retrieval';
import type { Answer } from './answer';
import { groupSources, keepCitedSources } from './group-sources';
import {
  contentTerms,
  documentWording,
  isStopword,
  removePhrases,
  shorten,
  splitQuestion,
  splitSentences,
  words,
} from '../text';

/** Options for {@link composeExtractiveAnswer}. */
export interface ComposeExtractiveAnswerOptions {
  question: string;
  retrieval: Retrieval;
  /** Most sentences quoted in all (at least one per part of the question). @default 4 */
  maxSentences?: number;
}

/** Most sentences quoted from one source (for one part of the question). */
const PER_SOURCE = 2;
/** Most sentences quoted for one part of a question that asks several things. */
const PER_PART = 2;
/** Longest sentence quoted, in characters. */
const MAX_SENTENCE_LENGTH = 400;
/** Longest answer text (without a filter note), in characters; later sentences are left out. */
const MAX_ANSWER_LENGTH = 1600;
/** Longest heading put before a quoted sentence, in characters. */
const MAX_HEADING_LENGTH = 80;
/** How much a question term found only in the section's headings counts, against the sentence. */
const HEADING_WEIGHT = 0.5;
/**
 * How much a subject of an earlier part counts ("Project Heron" for "who owns it"): it says what
 * the part is about, but alone it does not answer the part.
 */
const CONTEXT_WEIGHT = 0.35;
/** How much a term of the documents' wording for the question counts, against its own terms. */
const WORDING_WEIGHT = 0.8;
/**
 * Share of a part's own term weight a sentence must match to answer that part, when the question
 * has several: one shared common word ("capital") does not answer "what is the capital of France".
 */
const PART_COVERAGE = 0.4;
/** Score lost per rank of the sentence's source (the retrieval's order is evidence too). */
const SOURCE_RANK_PENALTY = 0.06;
/** Share of the best sentence's score a further sentence needs: one question, several parts. */
const SINGLE_FOCUS = 0.5;
const MULTI_PART_FOCUS = 0.7;
/** Below this retrieval confidence the answer warns that the passages may not answer. */
const LOW_CONFIDENCE = 0.3;

const WANTS_NUMBER =
  /\b(how\s+(many|much|long|often|old)|when|what\s+(year|date|time|day|price|percentage|number)|price|cost|fee|limit|deadline|date|amount|number|budget)\b/i;
const WANTS_PERSON = /\b(who|whom|whose)\b/i;
/** A length of time answers it: how long, how soon, a deadline, how much warning. */
const WANTS_DURATION =
  /\b(how\s+(long|soon|quickly|fast|often|far\s+in\s+advance)|deadline|by\s+when|until\s+when|within\s+how|how\s+much\s+(warning|notice|time)|at\s+what\s+point|from\s+(which|what)\s+day|after\s+how\s+many)\b/i;
/** A clock time answers it. */
const WANTS_TIME = /\b(what\s+time|which\s+hours|by\s+what\s+time|during\s+which\s+hours)\b/i;
/** A clock time: `9:30`, `08:12`. */
const CLOCK_TIME = /\b\d{1,2}:\d{2}\b/;
/** Who answers it: a role, a team or an address, not only a person's name. */
const ROLE =
  /\b(manager|team|officer|lead|head|operations|owner|department|finance|people|ciso|cto|ceo)\b|@/i;
/** A day counted from a start: `from the fourth day`, `the 3rd day`. */
const DAY_COUNT =
  /\b(first|second|third|fourth|fifth|sixth|seventh|\d+(st|nd|rd|th))\s+(day|week|month)\b/i;
/** How much answers it: an amount of money or a share. */
const WANTS_AMOUNT = /\b(how\s+much|cost|price|budget|allowance|discount|fee|credit)\b/i;
/** An amount: `1,200 EUR`, `25%`, `EUR 89`, `Price (EUR): 89`. */
const AMOUNT = /(\d[\d,.]*\s*(%|eur|euro|usd|\$|€)|(eur|€|\$)\s*\)?\s*:?\s*\d)/i;
const WANTS_DATE = /\b(when|what\s+(year|date|day))\b/i;
/** A length of time: `47 minutes`, `18 weeks`, `four months`. */
const DURATION =
  /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)[\s-](minute|hour|day|week|month|year)s?\b/i;
/** A date: `14 March 2026`, `2026-03-14`, `March 2026`. */
const DATE =
  /\b(\d{4}-\d{2}-\d{2}|(january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{4}|\d{1,2}\s+(january|february|march|april|may|june|july|august|september|october|november|december))\b/i;
/** Two capitalised words not opening the sentence: a name ("owned by Maria Keller"). */
const PERSON_NAME = /.\b\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+/u;
/** Irregular forms that the term stemmer does not meet. */
const IRREGULAR: Readonly<Record<string, string>> = {
  paid: 'pay',
  spent: 'spend',
  sold: 'sell',
  bought: 'buy',
  made: 'make',
  led: 'lead',
  ran: 'run',
  won: 'win',
  held: 'hold',
};

interface Candidate {
  sentence: string;
  /** The last heading of the sentence's section, `''` for none. */
  heading: string;
  /** Match keys of the whole heading trail. */
  headingTerms: ReadonlySet<string>;
  /** Match keys of the sentence, in order. */
  terms: string[];
  source: number;
  /** Position among all candidates, for stable ordering. */
  order: number;
}

interface Scored {
  candidate: Candidate;
  score: number;
}

/** The terms one part of the question is scored by. */
interface PartTerms {
  /** The part's own terms: a sentence must contain one to answer it. */
  own: string[];
  /** The earlier parts' subjects (`subjectKeys`), worth {@link CONTEXT_WEIGHT}. */
  context: string[];
  wantsNumber: boolean;
  wantsPerson: boolean;
  wantsDuration: boolean;
  wantsDate: boolean;
  wantsTime: boolean;
  wantsAmount: boolean;
  /**
   * The documents' wording for the part (`documentWording`): a sentence containing one of these
   * answers the part as if it contained a term of the part's own.
   */
  wording: string[];
}

/** The standard answers when nothing was found. */
export function emptyAnswerText(retrieval: Pick<Retrieval, 'documents'>): string {
  return retrieval.documents === 0
    ? 'There are no documents in this library yet, so there is nothing to answer from.'
    : 'I found nothing about this in the documents.';
}

/**
 * A content term reduced further for matching a question against sentences, so that "owns" meets
 * "owner", "paid" meets "pays" and "submitting" meets "submit": irregular forms, then `-ership`,
 * `-er`, a final `-e` and a doubled final consonant removed.
 */
function matchKey(term: string): string {
  let key = IRREGULAR[term] ?? term;
  if (/\d/.test(key)) return key;
  if (key.length > 7 && key.endsWith('ership')) key = key.slice(0, -6);
  else if (key.length > 4 && key.endsWith('er')) key = key.slice(0, -2);
  if (key.length > 4 && key.endsWith('e')) key = key.slice(0, -1);
  // "submitted"/"submitting" stem to "submitt": the doubled consonant of the inflection goes.
  if (key.length > 4 && /([bdgmnprt])\1$/.test(key)) key = key.slice(0, -1);
  return key;
}

function matchKeys(text: string): string[] {
  return contentTerms(text).map(matchKey);
}

/**
 * What a part of a question is about, for the parts after it that refer back ("it"): its names
 * and codes ("Project Heron", "KST-1042"), or all its terms when it has none.
 */
function subjectKeys(part: string): string[] {
  const names = words(part)
    .slice(1)
    .filter((word) => /^\p{Lu}|\d/u.test(word));
  const keys = matchKeys(names.join(' '));
  return keys.length > 0 ? keys : matchKeys(part);
}

/** `ROOT CAUSE` → `Root cause`; other headings as they are, without trailing punctuation. */
function readableHeading(heading: string): string {
  const trimmed = heading.replace(/[.:;,\s]+$/, '');
  return /\p{Ll}/u.test(trimmed)
    ? trimmed
    : `${trimmed.charAt(0)}${trimmed.slice(1).toLowerCase()}`;
}

/** How headings are put before quoted sentences. */
interface HeadingContext {
  /** Match keys of the whole question. */
  questionTerms: ReadonlySet<string>;
  /** Headings already put before a sentence of this answer: each is said once. */
  shown: Set<string>;
  /** Words the documents write in lower case, so "Planned maintenance" may continue a phrase. */
  lowerCaseWords: ReadonlySet<string>;
}

/**
 * The sentence, led by its section's heading when the heading states something the sentence does
 * not (a version or a date: `Under “Beacon 4.1 (4 November 2025)”, SAML single sign-on …`) or
 * names a question term the sentence lacks; each heading once per answer.
 */
function withHeading(candidate: Candidate, context: HeadingContext): string {
  if (candidate.heading === '' || context.shown.has(candidate.heading)) return candidate.sentence;
  const terms = new Set(candidate.terms);
  const headingTerms = matchKeys(candidate.heading).filter((term) => !terms.has(term));
  const adds = headingTerms.some((term) => /\d/.test(term) || context.questionTerms.has(term));
  if (!adds) return candidate.sentence;
  context.shown.add(candidate.heading);
  const [, first = '', next = ''] = /^(\p{L}+)\s*(\S?)/u.exec(candidate.sentence) ?? [];
  // "Some Gateway G3 units …" continues the phrase as "some Gateway G3 units …"; names and
  // acronyms ("Kestrel", "SAML") keep their capital.
  const lower = first.toLowerCase();
  const sentence =
    first !== '' &&
    first !== first.toUpperCase() &&
    first.slice(1) === first.slice(1).toLowerCase() &&
    (isStopword(first) ||
      // "Planned maintenance …", but not "Gateway G3 …": a name some sentences write in lower case.
      (context.lowerCaseWords.has(lower) && !/[\p{Lu}\p{N}]/u.test(next)))
      ? `${lower}${candidate.sentence.slice(first.length)}`
      : candidate.sentence;
  return `Under “${readableHeading(candidate.heading)}”, ${sentence}`;
}

/** Puts the marker before the sentence's closing punctuation: `It costs 12 EUR [1].` */
function cite(sentence: string, source: number): string {
  // The document's own bracketed numbers would read as citations.
  const text = shorten(sentence.replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ''), MAX_SENTENCE_LENGTH);
  const match = /^(.*?)([.!?…]*)$/s.exec(text);
  const body = (match?.[1] ?? text).replace(/[\s,;:]+$/, '');
  const end = match?.[2] === '' || match?.[2] === undefined ? '.' : match[2];
  return `${body} [${source}]${end}`;
}

/** The candidate sentences of the retrieved chunks: their sentences, and factual headings. */
function collectCandidates(
  groups: readonly (readonly RetrievedChunk[])[],
  questionTerms: ReadonlySet<string>,
): Candidate[] {
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  groups.forEach((group, index) => {
    for (const chunk of group) {
      const trail = chunk.section.split(' > ').filter((heading) => heading.trim() !== '');
      const heading = shorten(trail.at(-1) ?? '', MAX_HEADING_LENGTH);
      const headingTerms = new Set(matchKeys(trail.join(' ')));
      // A heading with a number the question does not have often states a fact itself:
      // "Beacon 4.2 (10 February 2026)" answers "When was 4.2 released?".
      const factualHeading = matchKeys(heading).some(
        (term) => /\d/.test(term) && !questionTerms.has(term),
      )
        ? [heading]
        : [];
      for (const sentence of [...factualHeading, ...splitSentences(chunkBody(chunk))]) {
        const key = sentence.toLowerCase();
        if (seen.has(key) || sentence.length < 3) continue;
        seen.add(key);
        candidates.push({
          sentence,
          heading: sentence === heading ? '' : heading,
          headingTerms,
          terms: matchKeys(sentence),
          source: index + 1,
          order: candidates.length,
        });
      }
    }
  });
  return candidates;
}

/**
 * Scores every candidate for one part of the question: the inverse-document-frequency weight of
 * the part's terms the sentence contains (half for terms only in the section's headings, a third
 * for the earlier parts' subjects), a bonus per pair of consecutive terms, for a number or a name when
 * the part asks for one, and less for lower-ranked sources. A sentence without one of the part's
 * own terms scores 0; with `coverage`, so does one that matches less than that share of them.
 */
function scoreCandidates({
  candidates,
  part,
  weight,
  coverage,
}: {
  candidates: readonly Candidate[];
  part: PartTerms;
  weight: (term: string) => number;
  coverage: number;
}): Scored[] {
  const ownTotal = part.own.reduce((sum, term) => sum + weight(term), 0);
  return candidates.map((candidate) => {
    const present = new Set(candidate.terms);
    let score = 0;
    let matched = 0;
    for (const term of part.own) {
      if (present.has(term)) {
        score += weight(term);
        matched += weight(term);
      } else if (candidate.headingTerms.has(term)) {
        // The section's heading says what the sentence is about ("Parental leave", "Beacon 4.1").
        score += HEADING_WEIGHT * weight(term);
        matched += HEADING_WEIGHT * weight(term);
      }
    }
    for (const term of part.wording) {
      if (present.has(term)) {
        score += WORDING_WEIGHT * weight(term);
        matched += WORDING_WEIGHT * weight(term);
      }
    }
    const inSentence =
      part.own.some((term) => present.has(term)) || part.wording.some((term) => present.has(term));
    // A section whose headings name the whole part ("Root cause") answers it in its sentences.
    const inHeading =
      part.own.length > 0 && part.own.every((term) => candidate.headingTerms.has(term));
    if ((!inSentence && !inHeading) || matched < coverage * ownTotal) {
      return { candidate, score: 0 };
    }
    for (const term of part.context) {
      if (present.has(term) || candidate.headingTerms.has(term)) {
        score += CONTEXT_WEIGHT * weight(term);
      }
    }
    const joined = ` ${candidate.terms.join(' ')} `;
    for (let position = 0; position + 1 < part.own.length; position++) {
      if (joined.includes(` ${part.own[position]} ${part.own[position + 1]} `)) score += 0.5;
    }
    if (part.wantsNumber && /\d/.test(candidate.sentence)) score *= 1.25;
    if (part.wantsPerson && (PERSON_NAME.test(candidate.sentence) || ROLE.test(candidate.sentence)))
      score *= 1.25;
    if (
      part.wantsDuration &&
      (DURATION.test(candidate.sentence) || DAY_COUNT.test(candidate.sentence))
    )
      score *= 1.5;
    if (part.wantsTime && CLOCK_TIME.test(candidate.sentence)) score *= 1.5;
    if (part.wantsAmount && AMOUNT.test(candidate.sentence)) score *= 1.25;
    if (part.wantsDate && DATE.test(candidate.sentence)) score *= 1.25;
    // Very long sentences match by volume; short headings match without saying anything.
    if (candidate.terms.length > 40) score *= 0.8;
    if (candidate.terms.length <= 2 && !/\d/.test(candidate.sentence)) score *= 0.5;
    return {
      candidate,
      score: score * (1 - SOURCE_RANK_PENALTY * Math.min(candidate.source - 1, 8)),
    };
  });
}

/**
 * The best sentences for one part: best first, at most `limit` and {@link PER_SOURCE} per source,
 * none far weaker than the best (`focus` of its score), none already quoted for an earlier part. When
 * the best sentence was already quoted, that quote answers the part too and nothing is added.
 */
function selectForPart({
  scored,
  limit,
  used,
  focus,
  context,
}: {
  scored: readonly Scored[];
  limit: number;
  used: ReadonlySet<Candidate>;
  /** Share of the best score a further sentence needs. */
  focus: number;
  /** The earlier parts' subjects: a further sentence must name those the best one names. */
  context: readonly string[];
}): { chosen: Candidate[]; answered: boolean } {
  const ranked = scored
    .filter((entry) => entry.score > 0)
    .sort(
      (left, right) => right.score - left.score || left.candidate.order - right.candidate.order,
    );
  const best = ranked[0];
  if (best === undefined) return { chosen: [], answered: false };
  if (used.has(best.candidate)) return { chosen: [], answered: true };
  const names = (candidate: Candidate) =>
    context.filter((term) => candidate.terms.includes(term) || candidate.headingTerms.has(term));
  const subject = names(best.candidate);
  const chosen: Candidate[] = [];
  const perSource = new Map<number, number>();
  for (const { candidate, score } of ranked) {
    if (chosen.length >= limit) break;
    // Keep the answer focused: stop at sentences far weaker than the best one.
    if (score < best.score * focus) break;
    if (used.has(candidate)) continue;
    // "who owns it": another project's owner is not its owner.
    if (candidate !== best.candidate && names(candidate).length < subject.length) continue;
    const count = perSource.get(candidate.source) ?? 0;
    if (count >= PER_SOURCE) continue;
    chosen.push(candidate);
    perSource.set(candidate.source, count + 1);
  }
  return { chosen, answered: true };
}

/**
 * Inverse document frequency over the candidate sentences: a term every sentence has (the
 * product's name) says little; a rare one ("parental") says a lot.
 */
function idfWeight(candidates: readonly Candidate[]): (term: string) => number {
  const frequency = new Map<string, number>();
  for (const candidate of candidates) {
    for (const term of new Set(candidate.terms)) {
      frequency.set(term, (frequency.get(term) ?? 0) + 1);
    }
  }
  return (term) => Math.log(1 + candidates.length / (1 + (frequency.get(term) ?? 0)));
}

/** The words the candidate sentences write in lower case (the first 60 of each). */
function lowerCaseWords(candidates: readonly Candidate[]): Set<string> {
  return new Set(
    candidates.flatMap((candidate) =>
      (candidate.sentence.match(/(?<![\p{L}\p{N}])\p{Ll}+/gu) ?? []).slice(0, 60),
    ),
  );
}

/** A part of the question restated for "I found nothing in the documents that answers …". */
function quotePart(part: string): string {
  const text = part.trim().replace(/[?.!\s]+$/, '');
  return `“${text.charAt(0).toUpperCase()}${text.slice(1)}?”`;
}

/**
 * The offline answer (docs/architecture.md §8: answers composed from the results, no model), as
 * prose: the documents' own sentences, each followed by its `[n]`, joined into a paragraph.
 *
 * The question is split into its parts (`splitQuestion`: "What is the budget for Heron and who
 * owns it?" has two). For each part, every sentence of the retrieved chunks is scored by the
 * inverse-document-frequency weight of the part's terms it contains (terms found only in the
 * section's headings count half, the earlier parts' subjects a third, the phrases that became filters
 * not at all), plus a bonus for consecutive terms, for a number, a name, a duration or a date when
 * the part asks for one, and for better-ranked sources. A sentence must contain one of the part's
 * terms, or sit in a section whose headings name them all. Each part gets its best sentences, in
 * the order of the parts: one question at most `maxSentences` (two per source, none under half
 * the best score); several parts at most {@link PER_PART} each (none under 0.7 of the part's best,
 * and only sentences matching {@link PART_COVERAGE} of the part's term weight). A sentence quoted
 * for an earlier part is not repeated; a part no sentence answers is named ("I found nothing in
 * the documents that answers “Who owns it?”"). A sentence is led by its section's heading (once)
 * when that states a version or a date, or a question term, that the sentence lacks. The answer
 * stops at {@link MAX_ANSWER_LENGTH} characters. When no sentence answers any part, the best
 * source's opening sentence stands in, and the answer says the documents may not answer the
 * question. Only the cited sources are kept, numbered in retrieval order.
 *
 * @example
 * composeExtractiveAnswer({ question: 'How many leave days?', retrieval }).text;
 * // 'Employees get 28 days of paid leave a year [1].'
 */
export function composeExtractiveAnswer({
  question,
  retrieval,
  maxSentences = 4,
}: ComposeExtractiveAnswerOptions): Answer {
  const { sources, groups, chunks } = groupSources(retrieval.chunks);
  const base = {
    sources,
    confidence: retrieval.confidence,
    chunks,
    answeredBy: 'extractive' as const,
  };
  const note = leadingNotes(retrieval, '\n');
  if (sources.length === 0) return { ...base, text: `${note}${emptyAnswerText(retrieval)}` };

  // The phrases that became search filters ("in the PDF") say where to look, not what to find.
  const asked = removePhrases(question, retrieval.filters.mentions);
  const parts = splitQuestion(asked);
  const partKeys = parts.map((part) => [...new Set(matchKeys(part))]);
  const questionTerms = new Set(partKeys.flat());
  const candidates = collectCandidates(groups, questionTerms);

  const weight = idfWeight(candidates);
  const several = parts.length > 1;
  const limit = several
    ? Math.max(1, Math.min(PER_PART, Math.floor(maxSentences / parts.length)))
    : maxSentences;
  const used = new Set<Candidate>();
  const headings: HeadingContext = {
    questionTerms,
    shown: new Set(),
    lowerCaseWords: lowerCaseWords(candidates),
  };
  const paragraphs: string[] = [];
  let length = 0;
  let answeredParts = 0;
  parts.forEach((part, index) => {
    const own = partKeys[index] ?? [];
    // "who owns it" refers back: the earlier parts' subjects say what "it" is.
    const context = [...new Set(parts.slice(0, index).flatMap(subjectKeys))].filter(
      (term) => !own.includes(term),
    );
    const scored = scoreCandidates({
      candidates,
      part: {
        own,
        context: several ? context : [],
        wantsNumber: WANTS_NUMBER.test(part),
        wantsPerson: WANTS_PERSON.test(part),
        wantsDuration: WANTS_DURATION.test(part),
        wantsDate: WANTS_DATE.test(part),
        wantsTime: WANTS_TIME.test(part),
        wantsAmount: WANTS_AMOUNT.test(part),
        wording: [...new Set(matchKeys(documentWording(part).join(' ')))].filter(
          (term) => !own.includes(term),
        ),
      },
      weight,
      coverage: several ? PART_COVERAGE : 0,
    });
    const { chosen, answered } = selectForPart({
      scored,
      limit,
      used,
      focus: several ? MULTI_PART_FOCUS : SINGLE_FOCUS,
      context,
    });
    if (!answered) {
      if (several)
        paragraphs.push(`I found nothing in the documents that answers ${quotePart(part)}`);
      return;
    }
    answeredParts += 1;
    for (const candidate of chosen) {
      const sentence = cite(withHeading(candidate, headings), candidate.source);
      if (length > 0 && length + sentence.length > MAX_ANSWER_LENGTH) break;
      used.add(candidate);
      paragraphs.push(sentence);
      length += sentence.length + 1;
    }
  });

  let text: string;
  if (answeredParts === 0) {
    const opening = candidates.find((candidate) => candidate.source === 1);
    const quoted = opening === undefined ? '' : ` ${cite(withHeading(opening, headings), 1)}`;
    text = `The documents may not answer this directly; the closest passage says:${quoted}`;
  } else {
    const caution =
      retrieval.confidence < LOW_CONFIDENCE
        ? 'The documents may not answer this directly, but they say: '
        : '';
    text = `${caution}${paragraphs.join(' ')}`;
  }
  return { ...base, ...keepCitedSources({ text: `${note}${text}`, sources, chunks }) };
}
