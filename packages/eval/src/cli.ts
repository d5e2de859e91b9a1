/**
 * `pnpm eval <name>`: evaluations of what the fleet decides, against checked-in cases, printing
 * the share right per category and every miss.
 */
import { runAnswersEval } from './answers';
import { runPlannerEval } from './planner';

const HELP = `Usage: pnpm eval <evaluation> [options]

Evaluations:
  planner   The plans the planner draws for requests a person would write, against the plan each
            must get (agents or skills, which steps wait for which, what each step carries).
            Offline against the heuristic planner; with --llm against the LLM planner of the
            configured upstream (OPENAI_BASE_URL, OPENAI_API_KEY, LLM_MODEL).
  answers   Answers to questions over the demo corpus, phrased as people phrase them, against
            the facts each answer must state. Offline (extractive answers), or with --llm
            against the configured upstream.

Run \`pnpm eval <evaluation> --help\` for the options of one.
`;

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  switch (name) {
    case 'planner':
      return runPlannerEval(rest);
    case 'answers':
      return runAnswersEval(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(HELP);
      return name === undefined ? 1 : 0;
    default:
      process.stderr.write(`Unknown evaluation "${name}".\n\n${HELP}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
