#!/usr/bin/env node
/**
 * Runs a scripted A2A agent as its own process, for benchmarks and e2e fleets. Prints
 * `READY <url>` when listening and exits cleanly on SIGTERM/SIGINT.
 */
// First: parses the arguments and starts telemetry before http and express load.
import { list, setup, telemetry } from './scripted-agent-setup';
import { startScriptedAgent } from '../agents/start-scripted-agent';

async function main(): Promise<void> {
  if (setup.kind === 'exit') {
    process.exitCode = setup.code;
    return;
  }
  const { options } = setup;
  const agent = await startScriptedAgent({
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    skills: [
      {
        id: options.name,
        tags: list(options.tags, ',') ?? [options.name],
        examples: list(options.examples, '|') ?? [],
      },
    ],
    reply: {
      ...(options['latency-ms'] > 0 ? { latencyMs: options['latency-ms'] } : {}),
      ...(options.fail === undefined ? {} : { fail: options.fail }),
    },
    ...(options.token === undefined ? {} : { internalToken: options.token }),
    recordRequests: false,
    port: options.port,
    host: options.host,
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    agent
      .close()
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`READY ${agent.url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
