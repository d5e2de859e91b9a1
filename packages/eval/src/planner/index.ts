/** The planning evaluation: `pnpm eval planner`. */
export async function runPlannerEval(argv: readonly string[]): Promise<number> {
  void argv;
  process.stderr.write('The planning evaluation is not built yet.\n');
  return 1;
}
