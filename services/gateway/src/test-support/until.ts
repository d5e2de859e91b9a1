/**
 * Polls `check` every 25 ms until it holds; throws "timed out waiting for <what>" after `ms`.
 *
 * @example
 * await until(async () => (await store.get(id))?.status === 'completed', 'the session to complete');
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
