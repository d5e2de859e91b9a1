import { splitQuestion as splitQuestionParts } from '@fleet/llm';
import { contentTerms } from './text-units';

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

function hasSubject(part: string): boolean {
  return contentTerms(part).some((term) => !REQUEST_WORDS.has(term));
}

/**
 * The parts of a question that asks several things, in order (`splitQuestion` of `@fleet/llm`,
 * with the RAG agent's content terms deciding whether a part names something of its own).
 *
 * @example
 * splitQuestion('What is the total budget for Project Heron and who owns it?');
 * // ['What is the total budget for Project Heron', 'who owns it']
 */
export function splitQuestion(
  question: string,
  { maxParts = 4 }: { maxParts?: number } = {},
): string[] {
  return splitQuestionParts(question, { hasSubject, maxParts });
}
