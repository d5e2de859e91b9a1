import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { agentAvailabilitySchema } from '@fleet/a2a';
import { parseJson, ValidationError } from '@fleet/errors';

/** One agent name, or the agents any of which is right ("reasoning-agent" or "code-agent" for arithmetic). */
const oneOrMore = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(10)]);

/** One step a right plan has. */
export const expectedStepSchema = z.strictObject({
  agent: oneOrMore,
  /** The skill, or the skills any of which is right; absent: any skill. */
  skill: oneOrMore.optional(),
  /** Text the step's task must contain (case-insensitive): the program, the URL, the address, the referent. */
  carries: z.array(z.string().min(1)).max(20).optional(),
  /** Text the step's task must not contain (a program that belongs to another step). */
  notCarries: z.array(z.string().min(1)).max(20).optional(),
  /** The steps (indices into the same plan) this one waits for: exactly these. */
  after: z.array(z.number().int().min(0)).max(10).optional(),
});
export type ExpectedStep = z.infer<typeof expectedStepSchema>;

/** One request and the plans that count as right for it. */
export const plannerCaseSchema = z.strictObject({
  id: z.string().min(1).max(100),
  /** What it tests: `single:<agent>`, `chain`, `back-reference`, `code-block`, `url`, `address`, … */
  categories: z.array(z.string().min(1).max(60)).min(1).max(10),
  request: z.string().min(1).max(4000),
  /** Any one of these plans is right. */
  plans: z.array(z.array(expectedStepSchema).min(1).max(8)).min(1).max(5),
  /** Agents that are not ready in this case: their availability, as their card would say. */
  availability: z.record(z.string(), agentAvailabilitySchema).optional(),
  /** Words the plan's rationale must contain (an agent that was passed over, and why). */
  rationaleMentions: z.array(z.string().min(1)).max(10).optional(),
});
export type PlannerCase = z.infer<typeof plannerCaseSchema>;

/** The two sets: tuning (the heuristics may be tuned on it) and held out (never tuned on). */
export type CaseSet = 'tuning' | 'held-out';

const caseFileSchema = z.strictObject({
  set: z.enum(['tuning', 'held-out']),
  about: z.string().optional(),
  cases: z.array(plannerCaseSchema).max(2000),
});

/** A case with the set it belongs to. */
export type SetCase = PlannerCase & { set: CaseSet };

/** Where the case files live: `packages/eval/cases`, from `src/planner` and from `dist/planner` alike. */
export const CASES_DIR = path.resolve(__dirname, '..', '..', 'cases');

const FILES: Record<CaseSet, string> = {
  tuning: 'planner-tuning.json',
  'held-out': 'planner-held-out.json',
};

/**
 * Reads the checked-in planning cases of the given sets, each validated (ids unique, `after`
 * indices inside their plan and pointing backwards or sideways, never at the step itself).
 *
 * @example
 * const cases = loadPlannerCases({ sets: ['tuning', 'held-out'] });
 */
export function loadPlannerCases({
  sets,
  directory = CASES_DIR,
}: {
  sets: readonly CaseSet[];
  /** @default packages/eval/cases */
  directory?: string;
}): SetCase[] {
  const cases: SetCase[] = [];
  const ids = new Set<string>();
  for (const set of sets) {
    const file = path.join(directory, FILES[set]);
    const parsed = parseJson({
      text: readFileSync(file, 'utf8'),
      schema: caseFileSchema,
      subject: file,
    });
    if (parsed.set !== set)
      throw new ValidationError(`${file} says it is the ${parsed.set} set, not ${set}.`);
    for (const entry of parsed.cases) {
      if (ids.has(entry.id)) throw new ValidationError(`Case id "${entry.id}" appears twice.`);
      ids.add(entry.id);
      for (const plan of entry.plans) {
        plan.forEach((step, index) => {
          for (const after of step.after ?? []) {
            if (after >= plan.length || after === index)
              throw new ValidationError(
                `Case "${entry.id}": step ${index} waits for step ${after}, which it cannot.`,
              );
          }
        });
      }
      cases.push({ ...entry, set });
    }
  }
  return cases;
}
