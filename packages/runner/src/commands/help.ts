import { describeConfig } from '@fleet/config';
import { runnerConfigSpec } from '../config';
import type { ServiceDefinition } from '../services';
import { padEnd, wrapText, type Palette } from '../terminal';
import type { Command } from './command';

/** Options for {@link renderHelp}. */
export interface RenderHelpOptions {
  commands: readonly Command[];
  services: readonly ServiceDefinition[];
  palette: Palette;
}

/** The `pnpm fleet help` text: commands, examples, files and the variables the runner reads. */
export function renderHelp({ commands, services, palette }: RenderHelpOptions): string {
  const width = Math.max(...commands.map((command) => command.name.length), 4);
  const variables = describeConfig(runnerConfigSpec).filter(
    (row) =>
      !['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'LLM_MODEL', 'DATABASE_URL', 'AGENT_URLS'].includes(
        row.name,
      ),
  );
  const variableWidth = Math.max(...variables.map((row) => row.name.length));
  const ports = services
    .map((service) => `${service.portVariable} (${service.defaultPort})`)
    .join(', ');
  return [
    `${palette.bold('pnpm fleet')}: run the A2A fleet on this machine, each service its own process.`,
    '',
    `${palette.bold('Usage:')} pnpm fleet <command> [options]`,
    '',
    palette.bold('Commands:'),
    ...commands.map((command) => `  ${padEnd(command.name, width)}  ${command.summary}`),
    `  ${padEnd('help', width)}  Show this help, or a command's: pnpm fleet help up`,
    '',
    palette.bold('Examples:'),
    '  pnpm fleet up                                          start everything (offline mode without an LLM)',
    '  OPENAI_API_KEY=sk-... pnpm fleet up                    use OpenAI as the upstream',
    '  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 pnpm fleet up   use Ollama or any OpenAI-compatible server',
    '  pnpm fleet up --only gateway --foreground              one service, logs in this terminal',
    '  pnpm fleet status                                      pid, port, alive, /readyz; DOWN services',
    '  pnpm fleet up                                          again: starts only the services that are down',
    '  pnpm fleet restart planner                             stop one service gracefully, start it again',
    '  pnpm fleet logs gateway -f',
    '  pnpm fleet ingest docs/ reports/q3.pdf                 send documents to the RAG agent (tenant dev)',
    '  pnpm fleet down',
    '',
    palette.bold('Environment:'),
    '  Your environment passes through to every service, so OPENAI_*, LOG_LEVEL, OTEL_* and the',
    `  rest configure the whole fleet. Ports: ${ports}. The runner itself reads:`,
    ...variables.map(
      (row) =>
        `  ${padEnd(row.name, variableWidth)}  ${wrapText(row.description, {
          width: 96 - variableWidth,
          indent: ' '.repeat(variableWidth + 4),
        })}`,
    ),
    '',
    palette.bold('Files:'),
    '  .fleet/state.json     what runs (pids, ports, Redis, the environment it started with; 0600)',
    '  .fleet/logs/*.log     one log per service, appended to',
    '  .fleet/secrets.json   the generated dev API key and internal token (mode 0600)',
    "  .fleet/rag-pglite/    the RAG agent's embedded PostgreSQL (without DATABASE_URL)",
    '',
    "Run 'pnpm fleet <command> --help' for a command's options.",
  ].join('\n');
}
