import { contentTerms } from './text-units';

const WH_WORDS = 'what|who|whom|whose|when|where|why|which|how';
const AUXILIARIES =
  'is|are|was|were|does|do|did|can|could|will|would|should|shall|has|have|had|must|may|might';
/** Words that open a question of their own: `who owns it`, `is it paid`, `within how many hours`. */
const CLAUSE_START = `(?:also\\s+)?(?:(?:in|within|for|from|to|by|at|on|since|until|after|before|with|under|of)\\s+)?(?:${WH_WORDS}|${AUXILIARIES})\\b`;
/** A conjunction before a new question: `…, and who owns it`, `… or is it …`, `… as well as when …`. */
const CONJUNCTION = new RegExp(
  `\\s*,?\\s+(?:and|but|or|as\\s+well\\s+as|plus)\\s+(?=${CLAUSE_START})`,
  'gi',
);
/** A comma before a new question: `What is X, who owns it`. */
const COMMA = new RegExp(`\\s*,\\s+(?=${CLAUSE_START})`, 'gi');
const STARTS_AS_QUESTION = new RegExp(`^${CLAUSE_START}`, 'i');
/** Request verbs that carry no subject: a part of only these is joined to its neighbour. */
const REQUEST_WORDS = new Set([
  'explain',
  'describe',
  'summarize',
  'summarise',
  'give',
  'show',
  'list',
  'find',
  'detail',
  'see',
  'check',
  'read',
]);

/** Options for {@link splitQuestion}. */
export interface SplitQuestionOptions {
  /** Most parts returned; the rest is joined to the last one. @default 4 */
  maxParts?: number;
}

function hasSubject(part: string): boolean {
  return contentTerms(part).some((term) => !REQUEST_WORDS.has(term));
}

/** Splits at `pattern`, keeping only non-empty pieces. */
function splitAt(text: string, pattern: RegExp): string[] {
  return text
    .split(pattern)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '');
}

/**
 * The parts of a question that asks several things, in order, without their question marks:
 * sub-questions separated by `?`, `;` or a full stop, and clauses joined by a conjunction ("and",
 * "or", "but", "as well as") or a comma when what follows opens a question of its own (a wh-word
 * or an auxiliary verb: "who owns it", "is it paid"). A comma splits only between two questions,
 * so "In the CSV, who owns KST-1042?" stays whole; "schools and universities" or "between 2024 and
 * 2025" never split. A part without a subject of its own ("and why?", "Explain when") is joined to
 * its neighbour. A question with one part comes back as one part.
 *
 * @example
 * splitQuestion('What is the total budget for Project Heron and who owns it?');
 * // ['What is the total budget for Project Heron', 'who owns it']
 */
export function splitQuestion(
  question: string,
  { maxParts = 4 }: SplitQuestionOptions = {},
): string[] {
  const sentences = splitAt(question, new RegExp(`[?;]+|\\n+|\\.\\s+(?=${CLAUSE_START})`, 'i'));
  const pieces = sentences.flatMap((sentence) =>
    splitAt(sentence, CONJUNCTION).flatMap((clause) => {
      const commaParts = splitAt(clause, COMMA);
      // "In the CSV, who owns …": a comma separates two parts only when both are questions.
      return commaParts.every((part) => STARTS_AS_QUESTION.test(part)) ? commaParts : [clause];
    }),
  );
  const parts: string[] = [];
  let pending = '';
  for (const piece of pieces) {
    const text = pending === '' ? piece : `${pending} and ${piece}`;
    if (hasSubject(text)) {
      parts.push(text.replace(/[\s.,!]+$/, ''));
      pending = '';
    } else {
      pending = text;
    }
  }
  if (pending !== '') {
    if (parts.length === 0) parts.push(pending.replace(/[\s.,!]+$/, ''));
    else parts[parts.length - 1] = `${parts.at(-1) ?? ''} and ${pending}`;
  }
  if (parts.length > maxParts) {
    return [...parts.slice(0, maxParts - 1), parts.slice(maxParts - 1).join(' and ')];
  }
  return parts.length === 0 ? [question.trim()] : parts;
}
