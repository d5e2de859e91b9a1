import type OpenAI from 'openai';
import type { JsonSchemaChecker } from '@fleet/mcp';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { ToolCatalog } from '../servers';

/** What every step of the tools agent works with: `createToolsAgent`'s options with defaults. */
export interface ToolsAgentSettings {
  catalog: Pick<ToolCatalog, 'tools' | 'find' | 'connection'>;
  /** The model that picks tools and arguments; undefined offline. */
  llm: { client: OpenAI; model: string } | undefined;
  /** Model calls one step may make. */
  maxRounds: number;
  /** How long an approval request stays valid, in milliseconds. */
  approvalTtlMs: number;
  checker: JsonSchemaChecker;
  now: () => Date;
  tracer: WithSpanOptions['tracer'];
}
