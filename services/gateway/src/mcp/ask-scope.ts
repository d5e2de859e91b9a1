import type { HttpLogger } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import type { McpServer } from '@modelcontextprotocol/server';
import type { ChatCompletionsOptions } from '../chat/chat-completions-route';
import type { TenantLimiter } from '../tenant-limits';
import type { ApprovalStateCodec } from './approval-state';
import type { LegacyExchanges } from './legacy-exchanges';

/** What the `ask` tool needs. */
export interface AskToolDependencies {
  /** The chat completions route's options; undefined: `ask` answers a 503 tool error. */
  route: ChatCompletionsOptions | undefined;
  sessions: SessionStore;
  logger: HttpLogger;
  /** Signs the `requestState` of approvals asked over 2026-07-28. */
  stateCodec: ApprovalStateCodec;
  /** The 2025-11-25 connections' capabilities, elicitation answers and cancels. */
  legacy: LegacyExchanges;
  /** The tenants' limits: a new run holds a run slot and counts its tokens. Undefined: none. */
  limiter?: TenantLimiter | undefined;
}

/** Who calls, over which protocol era. */
export interface AskCaller {
  tenant: string;
  era: 'legacy' | 'modern';
  /** The 2025-era connection (`Mcp-Session-Id` the gateway handed out), when there is one. */
  connectionId?: string | undefined;
}

/** One connection's `ask` tool: the server it is registered on, what it needs and who calls. */
export interface AskScope {
  server: McpServer;
  deps: AskToolDependencies;
  caller: AskCaller;
}

/** A person's decision on an approval, with the instructions they gave (if any). */
export interface ApprovalChoice {
  decision: 'approve' | 'deny';
  instructions: string | undefined;
}
