#!/usr/bin/env node
/**
 * Runs the scripted OpenAI-compatible server as its own process, for benchmarks and e2e runs:
 * every chat completion gets the same fixed answer, rendered once. Prints `READY <url>` when
 * listening and exits cleanly on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startScriptedOpenAI } from '../openai/start-scripted-openai';

const USAGE = `Usage: scripted-openai [options]

A scripted OpenAI-compatible server (POST /v1/chat/completions, /v1/embeddings, GET /v1/models)
that answers every chat completion with the same content.

Options:
  --port <n>             port to listen on (default 0: a free port)
  --host <host>          address to bind (default 127.0.0.1)
  --latency-ms <n>       delay before the response headers (default 0)
  --chunk-delay-ms <n>   delay between streamed chunks (default 0)
  --content <text>       the assistant's answer (default "Hello from the scripted model.")
  --chunks <n>           split the answer into n streamed deltas (default: one per word)
  --models <a,b>         model ids for GET /v1/models (default scripted-model)
  --help                 show this help

Prints "READY <url>" on stdout once listening; SIGTERM or SIGINT stops it (exit code 0).
`;

const count = z.coerce.number().int().nonnegative();
const cliSchema = z.object({
  port: count.max(65535).default(0),
  host: z.string().min(1).default('127.0.0.1'),
  'latency-ms': count.default(0),
  'chunk-delay-ms': count.default(0),
  content: z.string().default('Hello from the scripted model.'),
  chunks: z.coerce.number().int().positive().optional(),
  models: z
    .string()
    .default('scripted-model')
    .transform((value) =>
      value
        .split(',')
        .map((model) => model.trim())
        .filter(Boolean),
    ),
  help: z.boolean().default(false),
});

async function main(): Promise<void> {
  let values: unknown;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'latency-ms': { type: 'string' },
        'chunk-delay-ms': { type: 'string' },
        content: { type: 'string' },
        chunks: { type: 'string' },
        models: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const parsed = cliSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `--${issue.path.join('.')}: ${issue.message}`,
    );
    process.stderr.write(`${problems.join('\n')}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const options = parsed.data;
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  const server = await startScriptedOpenAI({
    port: options.port,
    host: options.host,
    recordRequests: false,
    models: options.models.length > 0 ? options.models : ['scripted-model'],
    staticReply: {
      content: options.content,
      ...(options['latency-ms'] > 0 ? { latencyMs: options['latency-ms'] } : {}),
      ...(options['chunk-delay-ms'] > 0 ? { chunkDelayMs: options['chunk-delay-ms'] } : {}),
      ...(options.chunks === undefined ? {} : { chunkCount: options.chunks }),
    },
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`READY ${server.url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
