/** The answer evaluation: `pnpm eval answers`. */
export async function runAnswersEval(argv: readonly string[]): Promise<number> {
  void argv;
  process.stderr.write('The answer evaluation is not built yet.\n');
  return 1;
}
