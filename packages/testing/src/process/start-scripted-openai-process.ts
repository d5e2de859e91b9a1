import { join } from 'node:path';
import { type RunningProcess, startProcess } from './start-process';

/**
 * The compiled scripted-openai CLI (`dist/bin/scripted-openai.js`); build the package first
 * (`npx tsc -b packages/testing`). Resolves from `src/` and `dist/` alike.
 */
export const SCRIPTED_OPENAI_BIN = join(__dirname, '..', '..', 'dist', 'bin', 'scripted-openai.js');

/** Options for {@link startScriptedOpenAIProcess}; they map to the CLI's flags. */
export interface ScriptedOpenAIProcessOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  latencyMs?: number;
  chunkDelayMs?: number;
  /** @default 'Hello from the scripted model.' */
  content?: string;
  /** Streamed deltas per answer. @default one per word */
  chunks?: number;
  /** @default ['scripted-model'] */
  models?: string[];
  /** @default 15000 */
  timeoutMs?: number;
}

/** A scripted OpenAI server running as its own process. */
export interface ScriptedOpenAIProcess extends RunningProcess {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url + '/v1'` */
  baseURL: string;
}

/**
 * Starts the scripted-openai CLI as a child process (so a benchmark's load generator and the fake
 * LLM do not share an event loop) and resolves once it printed `READY <url>`.
 *
 * @example
 * const llm = await startScriptedOpenAIProcess({ latencyMs: 50, chunks: 20 });
 * // ... point the gateway at llm.baseURL ...
 * await llm.stop();
 */
export async function startScriptedOpenAIProcess({
  port = 0,
  host = '127.0.0.1',
  latencyMs,
  chunkDelayMs,
  content,
  chunks,
  models,
  timeoutMs = 15_000,
}: ScriptedOpenAIProcessOptions = {}): Promise<ScriptedOpenAIProcess> {
  const args = [SCRIPTED_OPENAI_BIN, '--port', String(port), '--host', host];
  if (latencyMs !== undefined) args.push('--latency-ms', String(latencyMs));
  if (chunkDelayMs !== undefined) args.push('--chunk-delay-ms', String(chunkDelayMs));
  if (content !== undefined) args.push('--content', content);
  if (chunks !== undefined) args.push('--chunks', String(chunks));
  if (models !== undefined) args.push('--models', models.join(','));
  const running = await startProcess({
    name: 'scripted-openai',
    args,
    readyLine: /^READY (\S+)$/,
    timeoutMs,
  });
  const url = running.match?.[1] ?? '';
  return { ...running, url, baseURL: `${url}/v1` };
}
