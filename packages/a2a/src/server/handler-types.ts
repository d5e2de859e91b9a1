import type { AgentCard } from '../schemas/agent-card';
import type { TaskState } from '../schemas/core';
import type {
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from '../schemas/json-rpc';

// The A2A handler's public types, apart from its options: the transport and the request handling
// (internal/handler/) use them, and create-a2a-handler.ts wires those together.

/** The logging surface the handler needs; a pino logger satisfies it. */
export interface A2ALogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** What the transport knows about a request. */
export interface A2ARequestContext {
  /** The `A2A-Version` header. */
  version?: string | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

/** A JSON reply: the JSON-RPC response and the HTTP status (500 only for -32603, as the SDK). */
export interface A2AJsonResult {
  type: 'json';
  status: number;
  body: JsonRpcResponse;
  /** Extra response headers (`Retry-After` with a 503). */
  headers?: Record<string, string>;
}

/**
 * A streamed reply: success responses to send as SSE events. Errors before the first event must go
 * out as a JSON reply, later ones as an `error` event; `renderError` builds either body.
 */
export interface A2AStreamResult {
  type: 'stream';
  id: JsonRpcId;
  events: AsyncGenerator<JsonRpcSuccessResponse, void, undefined>;
  renderError: (error: unknown) => { status: number; body: JsonRpcErrorResponse };
}

/** The outcome of {@link A2AHandler.handle}. */
export type A2AHandlerResult = A2AJsonResult | A2AStreamResult;

/** How one turn ended, as {@link TurnObserver.ended} receives it. */
export interface TurnOutcome {
  /** The task's state when the turn stopped: terminal, or interrupted (input or auth required). */
  state: TaskState;
  /** From the turn's start (its message accepted) to that state. */
  seconds: number;
}

/** Told about every turn that runs on this replica, e.g. to feed metrics. Must not throw. */
export interface TurnObserver {
  /** A turn started. */
  started(): void;
  /** A turn that started ended. */
  ended(outcome: TurnOutcome): void;
}

/** The transport-agnostic A2A JSON-RPC server. */
export interface A2AHandler {
  readonly card: AgentCard;
  /** Handles one JSON-RPC request (already parsed from JSON). Never throws. */
  handle(body: unknown, context?: A2ARequestContext): Promise<A2AHandlerResult>;
  /** Stops every turn running here (their tasks fail: the agent shut down) and waits for them. */
  close(): Promise<void>;
  /**
   * Adds an observer of the turns this handler runs from now on; returns its removal. Handlers
   * built by `createA2AHandler` have it; a stand-in without it reports no turns.
   */
  observeTurns?(observer: TurnObserver): () => void;
}
