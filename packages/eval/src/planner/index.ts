/** The planning evaluation: `pnpm eval planner`. */
import { parseArgs } from 'node:util';
import { agentModel } from '@fleet/agent-kit';
import { llmEnv, loadConfig } from '@fleet/config';
import { createPlanner } from '@fleet/planner/planning';
import { loadPlannerCases, type CaseSet } from './planner-cases';
import { missedGoals, OFFLINE_GOALS, renderReport } from './render-report';
import { runPlannerCases, summarise, type PlanFunction } from './run-planner-eval';

export { fleetAgents } from './fleet-agents';
export { MCP_TOOLS_FILE, toolsAgentSummary } from './tools-agent-summary';
export {
  loadPlannerCases,
  plannerCaseSchema,
  expectedStepSchema,
  CASES_DIR,
} from './planner-cases';
export type { CaseSet, ExpectedStep, PlannerCase, SetCase } from './planner-cases';
export { scorePlan } from './score-plan';
export type { PlanVerdict } from './score-plan';
export { runPlannerCases, summarise, shareOf } from './run-planner-eval';
export type {
  CaseResult,
  PlanFunction,
  PlannerEvalSummary,
  RunPlannerCasesOptions,
  Tally,
} from './run-planner-eval';
export { missedGoals, OFFLINE_GOALS, renderReport, singleAgentTally } from './render-report';
export type { PlannerGoals } from './render-report';

const HELP = `Usage: pnpm eval planner [options]

Plans each checked-in request (packages/eval/cases/planner-*.json) against the fleet's real agent
cards and compares the plan with the plans that count as right: which agents (and skills), which
steps wait for which, and what each step's task carries (the program, the URL, the address, the
thing a question refers to). Prints the share right per category, tuning and held-out side by
side, overall, and every miss with the request, the expected plans and the plan it got.

Options:
  --set tuning|held-out|all   Which cases (default: all). The held-out set is never tuned on:
                              its number is the honest one.
  --llm                       Plan with the LLM planner instead of the heuristic one, using the
                              planner's own upstream settings (OPENAI_BASE_URL, OPENAI_API_KEY,
                              LLM_MODEL, LLM_TIMEOUT_MS). Progress goes to stderr.
  --concurrency <n>           Requests planned at once with --llm (default 4, at most 16).
  --json                      Print the summary and every result as JSON instead of the report.
  -h, --help                  This help.

Exit code: 0 when the run finished (offline: and met its goals: tuning ≥ 95 %, every single-agent
request of the tuning set, held-out ≥ 80 %); 1 when an offline run missed a goal; 2 for bad options
or --llm without an upstream.
`;

/** Where the evaluation writes: stdout for the report, stderr for progress and problems. */
export interface EvalOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Options for {@link runPlannerEval} beyond the command line. */
export interface RunPlannerEvalOptions {
  /** The environment the LLM planner's settings are read from. @default process.env */
  environment?: NodeJS.ProcessEnv;
  /** @default process.stdout */
  stdout?: EvalOutput;
  /** @default process.stderr */
  stderr?: EvalOutput;
}

const SETS: Record<string, readonly CaseSet[]> = {
  tuning: ['tuning'],
  'held-out': ['held-out'],
  all: ['tuning', 'held-out'],
};

/**
 * `pnpm eval planner [--set tuning|held-out|all] [--llm] [--json]`: runs the planning evaluation
 * and returns the process exit code (see the help text).
 *
 * @example
 * process.exitCode = await runPlannerEval(['--set', 'held-out']);
 */
export async function runPlannerEval(
  argv: readonly string[],
  {
    environment = process.env,
    stdout = process.stdout,
    stderr = process.stderr,
  }: RunPlannerEvalOptions = {},
): Promise<number> {
  let values: { set?: string; llm?: boolean; json?: boolean; help?: boolean; concurrency?: string };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        set: { type: 'string' },
        llm: { type: 'boolean' },
        json: { type: 'boolean' },
        concurrency: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    stdout.write(HELP);
    return 0;
  }
  const sets = SETS[values.set ?? 'all'];
  if (sets === undefined) {
    stderr.write(`--set must be tuning, held-out or all, not "${values.set ?? ''}".\n`);
    return 2;
  }
  const concurrency = Number(values.concurrency ?? '4');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    stderr.write('--concurrency must be a whole number from 1 to 16.\n');
    return 2;
  }

  let plan: PlanFunction;
  let title: string;
  if (values.llm) {
    // The planner's own upstream settings (the LLM group of its config), not the rest of it.
    const config = loadConfig(llmEnv, environment);
    const model = agentModel(config);
    if (model.llm === undefined) {
      stderr.write(
        `--llm needs an upstream LLM, and none is configured: ${model.upstream.offline ? model.upstream.reason : ''}\n` +
          'Set OPENAI_BASE_URL (and OPENAI_API_KEY if the server needs one) and LLM_MODEL, as for the planner service, or run without --llm for the heuristic planner.\n',
      );
      return 2;
    }
    const planner = createPlanner({ llm: model.llm });
    plan = (request) => planner.plan(request);
    title = `Planning evaluation: the LLM planner (${config.llmModel} at ${model.upstream.offline ? '' : model.upstream.baseURL})`;
  } else {
    const planner = createPlanner({});
    plan = (request) => planner.plan(request);
    title = 'Planning evaluation: the heuristic planner (offline)';
  }

  const cases = loadPlannerCases({ sets });
  const started = Date.now();
  const results = await runPlannerCases({
    cases,
    plan,
    concurrency: values.llm ? concurrency : 1,
    ...(values.llm
      ? {
          onResult: (result, done, total) => {
            const line = `[${done}/${total}] ${result.right ? 'right' : 'miss '} ${result.id}`;
            if (stderr.isTTY) stderr.write(`\r\x1b[K${line}${done === total ? '\n' : ''}`);
            else stderr.write(`${line}\n`);
          },
        }
      : {}),
  });
  const summary = summarise(results);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const goals = values.llm ? undefined : OFFLINE_GOALS;
  const missed = goals === undefined ? [] : missedGoals(results, summary, goals);
  if (values.json) {
    stdout.write(
      `${JSON.stringify({ planner: values.llm ? 'llm' : 'heuristic', sets, seconds: Number(seconds), summary, goals: goals ?? null, missedGoals: missed, results }, null, 2)}\n`,
    );
  } else {
    stdout.write(
      renderReport({
        title: `${title}, ${cases.length} requests in ${seconds} s`,
        results,
        summary,
        goals,
      }),
    );
  }
  return missed.length === 0 ? 0 : 1;
}
