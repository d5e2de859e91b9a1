import path from 'node:path';
import { A2AClient } from '@fleet/a2a/client';
import { DOCUMENT_MEDIA_TYPES, expandDocumentPaths } from '../document-files';
import { ingestDocuments, type IngestOutcome } from '../ingest-documents';
import { describeSummary, IngestProgress, summarizeIngest } from '../ingest-progress';
import { resolveRagAgent } from '../rag-agent-target';
import { defaultTenant } from '../default-tenant';
import { DEV_TENANT } from '../secrets';
import { readState } from '../state-file';
import { UsageError } from '../usage-error';
import { parseCommandArgs, parseSeconds, type Command, type CommandContext } from './command';

// Four minutes per file: a large PDF embedded by a slow model still fits.
const DEFAULT_TIMEOUT_SECONDS = 240;

/** The gateway's tenant names (GATEWAY_API_KEYS): the RAG agent scopes documents by them. */
const TENANT_PATTERN = /^[\w.-]{1,64}$/;

const HELP = `Usage: pnpm fleet ingest <path...> [--tenant <name>] [--url <rag-agent url>] [--timeout <seconds>]

Sends documents to the running RAG agent, which parses, chunks, embeds and stores them for one
tenant. A directory is searched recursively for supported files (hidden folders and
node_modules are skipped): ${Object.keys(DOCUMENT_MEDIA_TYPES).join(' ')}.
Each file's result is printed as it arrives: ✔ stored (with its chunks), = unchanged (the same
content was already stored: re-ingesting is a no-op), ✖ failed (with the agent's reason).
A file stored only in part (a row, page, text or chunk limit) is marked (truncated), with a ⚠
line per reason the agent gave. Exits 1 if any file failed or a path gave nothing to send.

  --tenant <name>      whose documents they become (default: the tenant of the first key of the
                       fleet's GATEWAY_API_KEYS, or ${DEV_TENANT}, the dev key's, as for the demo corpus)
  --url <url>          the RAG agent's base URL (default: the one \`pnpm fleet up\` started)
  --timeout <seconds>  how long one file may take to ingest (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

The internal token is FLEET_INTERNAL_TOKEN when set, otherwise the one in .fleet/secrets.json.
The same documents can be uploaded through the gateway: POST /v1/documents (multipart, field file).

Examples:
  pnpm fleet ingest ~/Documents/handbook.pdf
  pnpm fleet ingest docs/ reports/q3.xlsx --tenant acme
  pnpm fleet ingest services/rag-agent/demo-corpus`;

async function run(context: CommandContext): Promise<number> {
  const { args, config, io, paths, palette, errorPalette, signal } = context;
  const { values, positionals } = parseCommandArgs({
    command: 'ingest',
    args,
    options: {
      tenant: { type: 'string' },
      url: { type: 'string' },
      timeout: { type: 'string' },
    },
    maxPositionals: Number.POSITIVE_INFINITY,
  });
  if (positionals.length === 0) {
    throw new UsageError('Name at least one file or directory to ingest.', 'ingest');
  }
  // The running fleet's keys, as `fleet up` chose the demo corpus's tenant; else the caller's.
  const recorded = (await readState(paths.stateFile))?.environment?.['GATEWAY_API_KEYS'];
  const tenant = values.tenant ?? defaultTenant(recorded ?? config.gatewayApiKeys).tenant;
  if (!TENANT_PATTERN.test(tenant)) {
    throw new UsageError(
      `--tenant expects letters, digits, '.', '_' or '-' (at most 64), got "${tenant}".`,
      'ingest',
    );
  }
  if (values.url !== undefined && !/^https?:\/\/\S+$/.test(values.url)) {
    throw new UsageError(`--url expects an http(s) URL, got "${values.url}".`, 'ingest');
  }
  const timeoutMs = parseSeconds(values.timeout, {
    option: 'timeout',
    command: 'ingest',
    fallback: DEFAULT_TIMEOUT_SECONDS,
  });

  const { files, problems } = await expandDocumentPaths({ paths: positionals, cwd: config.cwd });
  for (const problem of problems) {
    io.stderr.write(`${errorPalette.red('✖')} ${problem.path}: ${problem.reason}\n`);
  }
  if (files.length === 0) {
    io.stderr.write(`${errorPalette.red('Nothing to ingest.')}\n`);
    return 1;
  }

  const target = await resolveRagAgent({ config, paths, url: values.url });
  const client = new A2AClient({ url: `${target.url}/a2a`, token: target.token });
  const display = (file: string): string => {
    const relative = path.relative(config.cwd, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  io.stdout.write(
    `Ingesting ${files.length} file${files.length === 1 ? '' : 's'} into tenant ${palette.bold(tenant)} (${target.url}):\n`,
  );
  const progress = new IngestProgress({
    stdout: io.stdout,
    stderr: io.stderr,
    palette,
    total: files.length,
    files,
    display,
  });
  let outcomes: IngestOutcome[];
  try {
    outcomes = await ingestDocuments({
      client,
      agentUrl: target.url,
      tenant,
      files,
      timeoutMs,
      signal,
      onStart: (file) => progress.start(file),
      onResult: (outcome) => progress.result(outcome),
    });
  } catch (error) {
    if (!signal.aborted) throw error;
    io.stderr.write('Interrupted.\n');
    return 130;
  } finally {
    progress.stop();
  }
  const summary = summarizeIngest(outcomes);
  const failed = summary.failed > 0 || problems.length > 0;
  const line = `Done: ${describeSummary(summary)}${problems.length > 0 ? `; ${problems.length} path${problems.length === 1 ? '' : 's'} skipped` : ''}.`;
  io.stdout.write(`${failed ? palette.yellow(line) : palette.green(line)}\n`);
  if (!failed && summary.ingested + summary.duplicate > 0) {
    io.stdout.write(
      palette.dim(
        `Ask about them with X-Routing-Mode: orchestration ("… according to our documents?"), or list them: GET /v1/documents.\n`,
      ),
    );
  }
  return failed ? 1 : 0;
}

/** `fleet ingest`: send files and directories to the running RAG agent. */
export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'Send documents (files or directories) to the running RAG agent',
  help: HELP,
  handlesInterrupt: true,
  run,
};
