import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseJson } from '@fleet/errors';

/** Where the case files live: `packages/eval/cases/answers-*.json`. */
export const ANSWER_CASES_DIR = path.resolve(__dirname, '..', '..', 'cases');

/** The case files, in the order they are reported: the honest part first. */
export const ANSWER_CASE_FILES = ['answers-held-out.json', 'answers-tuning.json'] as const;

/** Longest question or fact a case may carry, in characters. */
const MAX_TEXT = 2000;
/** Most facts or alternatives in one case. */
const MAX_ITEMS = 20;

const phraseSchema = z.string().trim().min(1).max(MAX_TEXT);

/** A fact an answer must state: a phrase, or alternatives any one of which counts. */
export const factSchema = z.union([phraseSchema, z.array(phraseSchema).min(1).max(MAX_ITEMS)]);
export type Fact = z.infer<typeof factSchema>;

/** How a question is put, so results can be read per kind of phrasing. */
export const phrasingSchema = z.enum(['direct', 'indirect', 'colloquial', 'reworded', 'two-part']);
export type Phrasing = z.infer<typeof phrasingSchema>;

/** One question of a case file. */
export const answerCaseSchema = z.strictObject({
  id: z.string().min(1).max(100),
  /** The demo corpus document that holds the answer. */
  document: z.string().min(1).max(300),
  phrasing: phrasingSchema,
  question: phraseSchema,
  facts: z.array(factSchema).min(1).max(MAX_ITEMS),
});
export type AnswerCase = z.infer<typeof answerCaseSchema>;

/** A case file: which part it is and its questions. */
export const answerCaseFileSchema = z.strictObject({
  part: z.enum(['held-out', 'tuning']),
  about: z.string().max(MAX_TEXT),
  cases: z.array(answerCaseSchema).min(1).max(1000),
});
export type AnswerCasePart = z.infer<typeof answerCaseFileSchema>['part'];

/** A case with the part it belongs to. */
export type PartCase = AnswerCase & { part: AnswerCasePart };

/**
 * Reads the case files ({@link ANSWER_CASE_FILES} in `directory`), each case tagged with its part.
 * Throws on a malformed file or a duplicated id.
 */
export async function loadAnswerCases(directory: string = ANSWER_CASES_DIR): Promise<PartCase[]> {
  const cases: PartCase[] = [];
  for (const name of ANSWER_CASE_FILES) {
    const text = await readFile(path.join(directory, name), 'utf8');
    const file = parseJson({ text, schema: answerCaseFileSchema, subject: name });
    cases.push(...file.cases.map((entry) => ({ ...entry, part: file.part })));
  }
  const seen = new Set<string>();
  for (const entry of cases) {
    if (seen.has(entry.id)) throw new Error(`The answer case id ${entry.id} appears twice.`);
    seen.add(entry.id);
  }
  return cases;
}
