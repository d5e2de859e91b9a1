/**
 * The scripted agent CLI's setup, imported first by `scripted-agent.ts`: parses the arguments and
 * starts telemetry before any http or express code loads, so they get instrumented.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startTelemetry } from '@fleet/telemetry';

const USAGE = `Usage: scripted-agent --name <name> [options]

A scripted A2A v1.0 agent (card at /.well-known/agent-card.json, JSON-RPC at /a2a) that answers
every task with a result artifact after a fixed latency, following the fleet's node conventions.

Options:
  --name <name>          the agent's name (required; plans refer to it)
  --description <text>   the card's description
  --tags <a,b>           tags of its one skill (default: the name)
  --examples <a|b>       example requests of its skill, separated by |
  --latency-ms <n>       time each task takes (default 0)
  --fail <message>       end every task as FAILED with this message
  --token <token>        require this bearer token (the fleet's internal token)
  --port <n>             port to listen on (default 0: a free port)
  --host <host>          address to bind (default 127.0.0.1)
  --otel-endpoint <url>  export traces (OTLP/HTTP base URL) as service <name>
  --otel-protocol <p>    http/protobuf (default) or http/json
  --otel-project <name>  Phoenix project name (default a2a-fleet)
  --help                 show this help

Prints "READY <url>" on stdout once listening; SIGTERM or SIGINT stops it (exit code 0).
`;

const cliSchema = z.object({
  name: z.string({ error: 'is required' }).min(1, 'is required'),
  description: z.string().optional(),
  tags: z.string().optional(),
  examples: z.string().optional(),
  'latency-ms': z.coerce.number().int().nonnegative().default(0),
  fail: z.string().optional(),
  token: z.string().optional(),
  port: z.coerce.number().int().min(0).max(65535).default(0),
  host: z.string().min(1).default('127.0.0.1'),
  'otel-endpoint': z.url().optional(),
  'otel-protocol': z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  'otel-project': z.string().min(1).optional(),
});

/** The parsed options, or the exit code when the process should stop at once. */
export type CliSetup =
  { kind: 'run'; options: z.infer<typeof cliSchema> } | { kind: 'exit'; code: number };

function parseCli(): CliSetup {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      options: {
        name: { type: 'string' },
        description: { type: 'string' },
        tags: { type: 'string' },
        examples: { type: 'string' },
        'latency-ms': { type: 'string' },
        fail: { type: 'string' },
        token: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'otel-endpoint': { type: 'string' },
        'otel-protocol': { type: 'string' },
        'otel-project': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return { kind: 'exit', code: 2 };
  }
  if (values['help'] === true) {
    process.stdout.write(USAGE);
    return { kind: 'exit', code: 0 };
  }
  const parsed = cliSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `--${issue.path.join('.')}: ${issue.message}`,
    );
    process.stderr.write(`${problems.join('\n')}\n\n${USAGE}`);
    return { kind: 'exit', code: 2 };
  }
  return { kind: 'run', options: parsed.data };
}

/** What the command line asked for. */
export const setup = parseCli();

/** Trace export, when `--otel-endpoint` is given. */
export const telemetry = startTelemetry({
  serviceName: setup.kind === 'run' ? setup.options.name : 'scripted-agent',
  endpoint: setup.kind === 'run' ? setup.options['otel-endpoint'] : undefined,
  protocol: setup.kind === 'run' ? setup.options['otel-protocol'] : undefined,
  projectName: setup.kind === 'run' ? setup.options['otel-project'] : undefined,
});

/** Splits a list option. */
export function list(value: string | undefined, separator: string): string[] | undefined {
  return value
    ?.split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
}
