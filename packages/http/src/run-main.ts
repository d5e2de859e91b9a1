/**
 * Runs a service's `main()`: a failure to start is printed with its stack and the process exits 1,
 * so `pnpm fleet up` and container runtimes see the boot fail with the reason.
 *
 * @example
 * runMain('planner', main);
 */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${service} failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
