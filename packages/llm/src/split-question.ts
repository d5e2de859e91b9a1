const WH_WORDS = 'what|who|whom|whose|when|where|why|which|how';
const AUXILIARIES =
  'is|are|was|were|does|do|did|can|could|will|would|should|shall|has|have|had|must|may|might';
/** Words that open a question of their own: `who owns it`, `is it paid`, `within how many hours`. */
const CLAUSE_START = `(?:also\\s+)?(?:(?:in|within|for|from|to|by|at|on|since|until|after|before|with|under|of)\\s+)?(?:${WH_WORDS}|${AUXILIARIES})\\b`;
/** Sub-questions: `?`, `;`, line breaks, or a full stop before a new question. */
const SUB_QUESTION = new RegExp(`[?;]+|\\n+|\\.\\s+(?=${CLAUSE_START})`, 'i');
/** A conjunction before a new question: `…, and who owns it`, `… or is it …`, `… as well as when …`. */
const CONJUNCTION = new RegExp(
  `\\s*,?\\s+(?:and|but|or|as\\s+well\\s+as|plus)\\s+(?=${CLAUSE_START})`,
  'gi',
);
/** A comma before a new question: `What is X, who owns it`. */
const COMMA = new RegExp(`\\s*,\\s+(?=${CLAUSE_START})`, 'gi');
const STARTS_AS_QUESTION = new RegExp(`^${CLAUSE_START}`, 'i');

/** Options for {@link splitQuestion}. */
export interface SplitQuestionOptions {
  /**
   * Whether a part names something of its own; a part that does not ("and why", "Explain") is
   * joined to its neighbour. Each agent passes its own notion of content words.
   */
  hasSubject: (part: string) => boolean;
  /** Most parts returned; the rest is joined to the last one. @default 4 */
  maxParts?: number;
  /** Leave URLs out first (a URL says which page to read, not what to ask). @default false */
  dropUrls?: boolean;
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
 * 2025" never split. A question with one part comes back as one part. Used by the agents' offline
 * (extractive) answers, so that each part of a question gets answered.
 *
 * @example
 * splitQuestion('What is the total budget for Project Heron and who owns it?', { hasSubject });
 * // ['What is the total budget for Project Heron', 'who owns it']
 */
export function splitQuestion(
  question: string,
  { hasSubject, maxParts = 4, dropUrls = false }: SplitQuestionOptions,
): string[] {
  const text = dropUrls ? question.replace(/\bhttps?:\/\/\S+/gi, ' ') : question;
  const pieces = splitAt(text, SUB_QUESTION).flatMap((sentence) =>
    splitAt(sentence, CONJUNCTION).flatMap((clause) => {
      const commaParts = splitAt(clause, COMMA);
      // "In the CSV, who owns …": a comma separates two parts only when both are questions.
      return commaParts.every((part) => STARTS_AS_QUESTION.test(part)) ? commaParts : [clause];
    }),
  );
  const parts: string[] = [];
  let pending = '';
  for (const piece of pieces) {
    const joined = pending === '' ? piece : `${pending} and ${piece}`;
    if (hasSubject(joined)) {
      parts.push(joined.replace(/[\s.,!]+$/, ''));
      pending = '';
    } else {
      pending = joined;
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
