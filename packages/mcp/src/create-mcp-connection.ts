import { EventEmitter } from 'node:events';
import { AbortError, FleetError, toFleetError } from '@fleet/errors';
import {
  Attributes,
  SpanKind,
  setSpanOutput,
  type WithSpanOptions,
  withSpan,
} from '@fleet/telemetry';
import {
  Client,
  type CallToolResult,
  type ClientContext,
  type ElicitRequest,
  type ElicitRequestFormParams,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { context, propagation, trace } from '@opentelemetry/api';
import { createBoundedFetch } from './internal/bounded-fetch';
import { ProcessGroupStdioTransport } from './internal/process-group-stdio-transport';
import { SchemaValidator } from './internal/schema-validator';
import {
  McpOutputSchemaError,
  McpProtocolError,
  McpResultTooLargeError,
  McpServerUnavailableError,
  McpTimeoutError,
  McpToolError,
} from './mcp-errors';
import { isStdioServerConfig, type McpServerConfig } from './mcp-servers-config';

/** The four MCP tool hints, with the spec's defaults filled in where the server gave none. */
export interface ToolHints {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

/** A tool as the connection lists it. */
export interface McpTool {
  /** The server's name for it. */
  name: string;
  title: string | undefined;
  description: string | undefined;
  inputSchema: Tool['inputSchema'];
  outputSchema: Tool['outputSchema'];
  /** The annotations exactly as the server sent them (untrusted unless `trustAnnotations`). */
  annotations: Tool['annotations'];
  /**
   * The hints to act on: the server's when the entry has `trustAnnotations: true`, otherwise the
   * cautious defaults (not read-only, destructive, not idempotent, open world), as MCP asks of
   * clients for untrusted servers.
   */
  hints: ToolHints;
  /** The entry's `approval` override for this tool, if any. */
  approval: 'always' | 'never' | undefined;
}

/** What {@link McpConnection.listTools} returns. */
export interface McpToolList {
  tools: McpTool[];
  /** True when the server offered more than `maxTools` tools (after filtering) and the rest were left. */
  truncated: boolean;
}

/** Progress a server reported for a call (`notifications/progress`). */
export interface McpProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** What a server asks for in `elicitation/create` (form mode): a message and a flat schema. */
export interface McpElicitationRequest {
  /** The server's words for the person answering. */
  message: string;
  /** The flat JSON Schema of the answer: an object of string, number, boolean and enum fields. */
  requestedSchema: ElicitRequestFormParams['requestedSchema'];
}

/**
 * The answer to an elicitation. `accept` sends `content`, which is checked against the requested
 * schema after the schema's defaults fill the fields it leaves out; `decline` is an explicit no;
 * `cancel` means nobody answered (also what the server gets when the call's time runs out).
 */
export type McpElicitationResult =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** What an {@link McpElicitationHandler} is told besides the request. */
export interface McpElicitationContext {
  /** The entry's name under `mcpServers`. */
  server: string;
  /**
   * The call the server asks on behalf of, when it can be told: the only {@link McpConnection.callTool}
   * in flight on this connection. `undefined` when none or several are (MCP sends no link from an
   * elicitation to the request it serves over stdio, nor does the SDK expose one over HTTP).
   */
  toolCall: { name: string; arguments: Record<string, unknown> } | undefined;
  /**
   * Aborted when the answer is no longer wanted: the call's time is (nearly) up, the caller aborted
   * the call, or the server cancelled the request. The server is then sent `cancel`.
   */
  signal: AbortSignal;
}

/** Answers a server's `elicitation/create`; see {@link McpConnectionOptions.onElicitation}. */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: McpElicitationContext,
) => Promise<McpElicitationResult>;

/** Options for one {@link McpConnection.callTool}. */
export interface CallToolOptions {
  /** Aborting it cancels the call (the server is sent `notifications/cancelled`). */
  signal?: AbortSignal | undefined;
  /** Time-out of this call. @default the entry's `timeoutMs`, else the connection's `timeoutMs` */
  timeoutMs?: number | undefined;
  /** Called for each progress notification of this call. */
  onProgress?: ((progress: McpProgress) => void) | undefined;
  /**
   * Answers the elicitations of this call instead of the connection's `onElicitation` (which must
   * be set: it is what declares the capability to the server). Used when this call is the only one
   * in flight, see {@link McpElicitationContext.toolCall}.
   */
  onElicitation?: McpElicitationHandler | undefined;
}

/** Options for {@link createMcpConnection}. */
export interface McpConnectionOptions {
  /** Where `bearerTokenEnv` is looked up; the service passes `process.env`. @default {} */
  env?: Record<string, string | undefined>;
  /** Most tools kept from one listing; the rest are dropped and `truncated` is set. @default 1000 */
  maxTools?: number;
  /** Most bytes a call's result (content and structured content) may weigh. @default 4 MiB */
  maxResultBytes?: number;
  /** Time-out of a call when neither the call nor the entry sets one. @default 60000 */
  timeoutMs?: number;
  /** Time-out of starting a server and the `initialize` handshake. @default 30000 */
  connectTimeoutMs?: number;
  /** Wait before the second restart of a crashed server; doubles up to `maxRestartDelayMs`. @default 500 */
  restartDelayMs?: number;
  /** @default 30000 */
  maxRestartDelayMs?: number;
  /** Who we are in `initialize`. @default { name: 'a2a-fleet', version: '0.1.0' } */
  clientInfo?: { name: string; version: string };
  /** Tracer for the TOOL spans. @default getTracer() */
  tracer?: WithSpanOptions['tracer'];
  /**
   * Answers the server's `elicitation/create` requests (form mode). When set, the connection
   * declares the `elicitation` capability, so servers may ask; when absent, nothing is declared and
   * servers do not ask. A call's own `onElicitation` wins for the elicitations of that call.
   * An accepted answer that breaks the requested schema is refused to the server as invalid params.
   */
  onElicitation?: McpElicitationHandler;
}

/** Events a {@link McpConnection} emits. */
export interface McpConnectionEvents {
  /** The server said its tools changed (`notifications/tools/list_changed`); this is the new list. */
  'tools-change': [McpToolList];
  /** A re-list after `tools/list_changed` failed. */
  error: [FleetError];
}

/** One MCP server, connected lazily and restarted after a crash. See {@link createMcpConnection}. */
export interface McpConnection {
  readonly name: string;
  /** The stdio server's process id while it runs (for tests and diagnostics). */
  readonly pid: number | undefined;
  /** Starts the server (or connects) now rather than on first use. */
  connect(): Promise<void>;
  listTools(): Promise<McpToolList>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<CallToolResult>;
  /** Ends the connection; a stdio server and its process group are gone when it resolves. */
  close(): Promise<void>;
  on<E extends keyof McpConnectionEvents>(
    event: E,
    listener: (...args: McpConnectionEvents[E]) => void,
  ): this;
  off<E extends keyof McpConnectionEvents>(
    event: E,
    listener: (...args: McpConnectionEvents[E]) => void,
  ): this;
}

const DEFAULT_MAX_TOOLS = 1000;
const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** Room for the JSON-RPC envelope around a result, on top of `maxResultBytes`. */
const ENVELOPE_BYTES = 64 * 1024;

const UNTRUSTED_HINTS: ToolHints = {
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
};

interface Live {
  client: Client;
  transport: Transport;
  stdio: ProcessGroupStdioTransport | undefined;
}

/** A call in flight, for telling which call an elicitation serves. */
interface InFlightCall {
  name: string;
  arguments: Record<string, unknown>;
  /** When the call times out (ms since epoch). */
  deadline: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onElicitation: McpElicitationHandler | undefined;
}

/**
 * Connects to one MCP server from an `mcpServers` entry: stdio (a process in its own group) or
 * Streamable HTTP. The connection is made on first use and remade on the next use after the server
 * crashed, with a back-off between failed attempts; `close()` leaves no process behind.
 *
 * - `listTools()` follows every `nextCursor` (at most `maxTools` tools; `truncated` says when more
 *   were offered), applies `allowTools`/`denyTools`, and is re-run on `notifications/tools/list_changed`,
 *   which emits `tools-change`.
 * - `callTool()` reports progress, cancels on time-out or abort, caps the result's weight, holds
 *   structured content to the tool's listed `outputSchema`, sends the active trace context as
 *   `_meta.traceparent`, and runs in an OpenInference TOOL span. A result with `isError: true` is
 *   returned, not thrown: it is for the model to read.
 * - With `onElicitation`, the server may ask for input during a call (`elicitation/create`, form
 *   mode); the call's own `onElicitation` answers for that call, and the answer is due before the
 *   call times out (`cancel` otherwise).
 * - A stdio server runs under a watchdog that ends its process group if our process dies, SIGKILL
 *   included.
 *
 * Errors: {@link McpTimeoutError}, {@link McpToolError}, {@link McpResultTooLargeError},
 * {@link McpOutputSchemaError}, {@link McpProtocolError}, {@link McpServerUnavailableError}, and
 * `AbortError` when the caller aborts.
 *
 * @param name The entry's name under `mcpServers`, used in messages and spans.
 * @param config The parsed entry ({@link parseMcpServers}).
 * @param options Limits, time-outs and where `bearerTokenEnv` is read.
 * @example
 * const servers = parseMcpServers(config.mcpServers);
 * const fs = createMcpConnection('fs', servers.get('fs')!, { env: process.env });
 * const { tools } = await fs.listTools();
 * const result = await fs.callTool('read_text_file', { path: '/data/a.txt' }, {
 *   timeoutMs: 10_000,
 *   onProgress: ({ progress, total }) => log.info({ progress, total }),
 * });
 *
 * const github = createMcpConnection('github', servers.get('github')!, {
 *   env: process.env,
 *   // Servers may ask; nobody is there to answer outside a call.
 *   onElicitation: () => Promise.resolve({ action: 'decline' }),
 * });
 * await github.callTool('create_issue', { title: 'x' }, {
 *   onElicitation: (request, { signal }) => askThePerson(request, signal),
 * });
 * await fs.close();
 */
export function createMcpConnection(
  name: string,
  config: McpServerConfig,
  options: McpConnectionOptions = {},
): McpConnection {
  return new DefaultMcpConnection(name, config, options);
}

class DefaultMcpConnection extends EventEmitter implements McpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private failures = 0;
  private nextAttemptAt = 0;
  private closed = false;
  private tools: McpToolList | undefined;
  private readonly inFlight = new Set<InFlightCall>();
  private readonly schemas = new SchemaValidator();
  private readonly maxTools: number;
  private readonly maxResultBytes: number;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly restartDelayMs: number;
  private readonly maxRestartDelayMs: number;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    super();
    this.maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
    this.maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    this.timeoutMs = config.timeoutMs ?? options.timeoutMs ?? 60_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.restartDelayMs = options.restartDelayMs ?? 500;
    this.maxRestartDelayMs = options.maxRestartDelayMs ?? 30_000;
  }

  get pid(): number | undefined {
    return this.live?.stdio?.pid;
  }

  async connect(): Promise<void> {
    await this.ensureLive();
  }

  async listTools(): Promise<McpToolList> {
    if (this.tools) return this.tools;
    const live = await this.ensureLive();
    const list = await this.fetchTools(live);
    this.tools = list;
    return list;
  }

  async callTool(
    tool: string,
    args: Record<string, unknown> = {},
    { signal, timeoutMs = this.timeoutMs, onProgress, onElicitation }: CallToolOptions = {},
  ): Promise<CallToolResult> {
    if (!this.isAllowed(tool)) {
      throw new McpToolError(
        `The tool "${tool}" of the MCP server "${this.name}" is not allowed by its configuration.`,
        {
          details: { server: this.name, tool },
        },
      );
    }
    return withSpan(
      {
        name: `mcp.${this.name}.${tool}`,
        kind: SpanKind.TOOL,
        input: args,
        attributes: { [Attributes.TOOL_NAME]: tool, 'mcp.server': this.name },
        tracer: this.options.tracer,
      },
      async (span) => {
        signal?.throwIfAborted();
        const live = await this.ensureLive();
        // W3C context of the TOOL span, so the server's spans join the caller's trace.
        const carrier: Record<string, string> = {};
        propagation.inject(trace.setSpan(context.active(), span), carrier);
        const call: InFlightCall = {
          name: tool,
          arguments: args,
          deadline: Date.now() + timeoutMs,
          timeoutMs,
          signal,
          onElicitation,
        };
        this.inFlight.add(call);
        let result: CallToolResult;
        try {
          result = await live.client.callTool(
            { name: tool, arguments: args, _meta: carrier },
            {
              timeout: timeoutMs,
              maxTotalTimeout: timeoutMs,
              ...(signal === undefined ? {} : { signal }),
              ...(onProgress === undefined
                ? {}
                : {
                    onprogress: ({ progress, total, message }) =>
                      onProgress({ progress, total, message }),
                  }),
            },
          );
        } catch (error) {
          throw this.mapCallError(error, { tool, timeoutMs, signal, live });
        } finally {
          this.inFlight.delete(call);
        }
        const bytes = resultBytes(result);
        if (bytes > this.maxResultBytes) {
          throw new McpResultTooLargeError(
            `The tool "${tool}" of the MCP server "${this.name}" returned ${bytes} bytes; the limit is ${this.maxResultBytes}.`,
            { details: { server: this.name, tool, bytes, maxBytes: this.maxResultBytes } },
          );
        }
        this.checkOutput(tool, result);
        this.failures = 0;
        setSpanOutput(span, result.structuredContent ?? result.content);
        if (result.isError === true) span.setAttribute('mcp.tool.is_error', true);
        return result;
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const live = this.live ?? (await this.connecting?.catch(() => undefined));
    this.live = undefined;
    if (!live) return;
    if (live.transport instanceof StreamableHTTPClientTransport) {
      await live.transport.terminateSession().catch(() => undefined);
    }
    await live.client.close().catch(() => undefined);
    await live.stdio?.close();
  }

  /**
   * Holds a result to the `outputSchema` the server listed for the tool (when the tool is in the
   * current listing): structured content must be there and match. Results with `isError` are the
   * model's to read and are not checked.
   */
  private checkOutput(tool: string, result: CallToolResult): void {
    const schema = this.tools?.tools.find((listed) => listed.name === tool)?.outputSchema;
    if (schema === undefined || result.isError === true) return;
    const details = { server: this.name, tool };
    if (result.structuredContent === undefined) {
      throw new McpOutputSchemaError(
        `The tool "${tool}" of the MCP server "${this.name}" declares an outputSchema but returned no structured content.`,
        { details },
      );
    }
    const check = this.schemas.check(schema, result.structuredContent);
    if (!check.valid) {
      throw new McpOutputSchemaError(
        `The tool "${tool}" of the MCP server "${this.name}" returned structured content that does not match its outputSchema: ${check.reason}`,
        { details },
      );
    }
  }

  /** Answers `elicitation/create` through the call's handler or the connection's. */
  private async elicit(request: ElicitRequest, context: ClientContext): Promise<ElicitResult> {
    const params = request.params;
    if (params.mode === 'url') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'URL-mode elicitation is not supported.',
      );
    }
    const call = this.inFlight.size === 1 ? [...this.inFlight][0] : undefined;
    const handler = call?.onElicitation ?? this.options.onElicitation;
    if (handler === undefined) return { action: 'decline' };
    // The answer is due a little before the call's own time-out, so the server can still turn a
    // `cancel` into a result.
    const timeoutMs = call ? call.deadline - Date.now() : this.timeoutMs;
    const budget = Math.max(
      0,
      timeoutMs - Math.min(1000, (call?.timeoutMs ?? this.timeoutMs) / 10),
    );
    const controller = new AbortController();
    const signals = [controller.signal, context.mcpReq.signal, AbortSignal.timeout(budget)];
    if (call?.signal) signals.push(call.signal);
    const signal = AbortSignal.any(signals);
    const cancelled = new Promise<McpElicitationResult>((resolve) => {
      if (signal.aborted) resolve({ action: 'cancel' });
      signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
    });
    let answer: McpElicitationResult;
    try {
      answer = await Promise.race([
        handler(
          { message: params.message, requestedSchema: params.requestedSchema },
          {
            server: this.name,
            toolCall: call ? { name: call.name, arguments: call.arguments } : undefined,
            signal,
          },
        ),
        cancelled,
      ]);
    } finally {
      controller.abort();
    }
    if (answer.action !== 'accept') return { action: answer.action };
    const content = withDefaults(params.requestedSchema, answer.content);
    const check = this.schemas.check(params.requestedSchema, content);
    if (!check.valid) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The answer does not match the requested schema: ${check.reason}`,
      );
    }
    return { action: 'accept', content };
  }

  private isAllowed(tool: string): boolean {
    const { allowTools, denyTools } = this.config;
    if (denyTools?.includes(tool)) return false;
    return allowTools === undefined || allowTools.includes(tool);
  }

  private async fetchTools(live: Live): Promise<McpToolList> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    // Pages cannot outnumber tools unless a server loops on empty pages: bound the walk either way.
    for (let page = 0; page <= this.maxTools; page += 1) {
      let result;
      try {
        result = await live.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          { timeout: this.timeoutMs },
        );
      } catch (error) {
        throw this.mapCallError(error, {
          tool: undefined,
          timeoutMs: this.timeoutMs,
          signal: undefined,
          live,
        });
      }
      for (const tool of result.tools) {
        if (!this.isAllowed(tool.name)) continue;
        if (tools.length >= this.maxTools) return { tools, truncated: true };
        tools.push(this.describe(tool));
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return { tools, truncated: false };
    }
    return { tools, truncated: true };
  }

  private describe(tool: Tool): McpTool {
    const annotations = tool.annotations;
    const hints =
      this.config.trustAnnotations === true
        ? {
            readOnly: annotations?.readOnlyHint ?? UNTRUSTED_HINTS.readOnly,
            destructive: annotations?.destructiveHint ?? UNTRUSTED_HINTS.destructive,
            idempotent: annotations?.idempotentHint ?? UNTRUSTED_HINTS.idempotent,
            openWorld: annotations?.openWorldHint ?? UNTRUSTED_HINTS.openWorld,
          }
        : { ...UNTRUSTED_HINTS };
    return {
      name: tool.name,
      title: tool.title ?? annotations?.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations,
      hints,
      approval: this.config.approval?.[tool.name],
    };
  }

  private ensureLive(): Promise<Live> {
    if (this.closed) {
      return Promise.reject(
        new McpServerUnavailableError(
          `The connection to the MCP server "${this.name}" is closed.`,
          {
            retryable: false,
            details: { server: this.name },
          },
        ),
      );
    }
    if (this.live) return Promise.resolve(this.live);
    if (this.connecting) return this.connecting;
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) {
      return Promise.reject(
        new McpServerUnavailableError(
          `The MCP server "${this.name}" failed ${this.failures} time(s) in a row; it is restarted on the next use after ${Math.ceil(wait / 1000)} s.`,
          {
            details: { server: this.name, failures: this.failures },
            retryAfterSeconds: Math.ceil(wait / 1000),
          },
        ),
      );
    }
    this.connecting = this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Live> {
    const client = new Client(this.options.clientInfo ?? { name: 'a2a-fleet', version: '0.1.0' }, {
      capabilities: this.options.onElicitation ? { elicitation: { form: {} } } : {},
    });
    if (this.options.onElicitation) {
      client.setRequestHandler('elicitation/create', (request, context) =>
        this.elicit(request, context),
      );
    }
    const { transport, stdio } = this.createTransport();
    const live: Live = { client, transport, stdio };
    client.onclose = () => this.lost(live);
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      void this.relist(live);
    });
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      await stdio?.close();
      this.recordFailure();
      if (stdio?.failure) throw stdio.failure;
      const stderr = stdio?.stderr.trim();
      throw new McpServerUnavailableError(
        `The MCP server "${this.name}" could not be ${stdio ? 'started' : 'reached'}: ${errorText(error)}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}`,
        { cause: error, details: { server: this.name } },
      );
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      await stdio?.close();
      throw new McpServerUnavailableError(
        `The connection to the MCP server "${this.name}" is closed.`,
        {
          retryable: false,
        },
      );
    }
    this.live = live;
    return live;
  }

  private createTransport(): {
    transport: Transport;
    stdio: ProcessGroupStdioTransport | undefined;
  } {
    const config = this.config;
    const maxMessageBytes = this.maxResultBytes + ENVELOPE_BYTES;
    if (isStdioServerConfig(config)) {
      const stdio = new ProcessGroupStdioTransport({
        server: this.name,
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        maxMessageBytes,
      });
      return { transport: stdio, stdio };
    }
    const headers: Record<string, string> = { ...config.headers };
    if (config.bearerTokenEnv !== undefined) {
      const token = this.options.env?.[config.bearerTokenEnv];
      if (token === undefined || token === '') {
        throw new McpServerUnavailableError(
          `The MCP server "${this.name}" needs a bearer token from ${config.bearerTokenEnv}, which is not set.`,
          { retryable: false, details: { server: this.name } },
        );
      }
      headers['Authorization'] = `Bearer ${token}`;
    }
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers },
      fetch: createBoundedFetch({ server: this.name, maxBytes: maxMessageBytes }),
    });
    return { transport, stdio: undefined };
  }

  /** The transport ended without `close()`: drop it; the next use reconnects (after back-off). */
  private lost(live: Live): void {
    if (this.live !== live) return;
    this.live = undefined;
    this.tools = undefined;
    if (!this.closed) this.recordFailure();
  }

  private recordFailure(): void {
    this.failures += 1;
    // The first restart is immediate; later ones wait, doubling.
    const delay =
      this.failures <= 1
        ? 0
        : Math.min(this.maxRestartDelayMs, this.restartDelayMs * 2 ** (this.failures - 2));
    this.nextAttemptAt = Date.now() + delay;
  }

  private async relist(live: Live): Promise<void> {
    try {
      const list = await this.fetchTools(live);
      if (this.live !== live) return;
      this.tools = list;
      this.emit('tools-change', list);
    } catch (error) {
      if (this.listenerCount('error') > 0) this.emit('error', toFleetError(error));
    }
  }

  private mapCallError(
    error: unknown,
    call: {
      tool: string | undefined;
      timeoutMs: number;
      signal: AbortSignal | undefined;
      live: Live;
    },
  ): FleetError {
    const { tool, timeoutMs, signal, live } = call;
    const what =
      tool === undefined
        ? `Listing the tools of the MCP server "${this.name}"`
        : `The tool "${tool}" of the MCP server "${this.name}"`;
    const details = { server: this.name, ...(tool === undefined ? {} : { tool }) };
    if (live.stdio?.failure) return live.stdio.failure;
    if (FleetError.isInstance(error)) return error;
    if (tool !== undefined && error instanceof ProtocolError && isOutputSchemaRefusal(error)) {
      // The SDK's own output check, when it has the tool's definition.
      return new McpOutputSchemaError(`${what} broke its outputSchema: ${error.message}`, {
        cause: error,
        details,
      });
    }
    if (signal?.aborted === true) {
      return new AbortError(`${what} was cancelled by the caller.`, { cause: error, details });
    }
    const cause = findCause(error);
    if (cause) return cause;
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return new McpTimeoutError(
        `${what} did not answer within ${timeoutMs} ms; the call was cancelled.`,
        { cause: error, details: { ...details, timeoutMs } },
      );
    }
    if (
      error instanceof SdkError &&
      (error.code === SdkErrorCode.ConnectionClosed ||
        error.code === SdkErrorCode.NotConnected ||
        error.code === SdkErrorCode.SendFailed)
    ) {
      const stderr = live.stdio?.stderr.trim();
      return new McpServerUnavailableError(
        `${what} failed: the server went away${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}; it is restarted on the next use.`,
        { cause: error, details },
      );
    }
    if (error instanceof SdkError) {
      return new McpProtocolError(`${what} failed: ${error.message}`, { cause: error, details });
    }
    if (error instanceof ProtocolError) {
      return new McpToolError(`${what} was refused: ${error.message}`, {
        cause: error,
        details: { ...details, rpcCode: error.code },
      });
    }
    return new McpProtocolError(`${what} failed: ${errorText(error)}`, { cause: error, details });
  }
}

/** The SDK's local refusals of a result against the tool's `outputSchema`. */
function isOutputSchemaRefusal(error: ProtocolError): boolean {
  return /output schema|outputSchema/.test(error.message) && error.data === undefined;
}

/** The accepted content with the requested schema's defaults in the fields it leaves out. */
function withDefaults(
  schema: ElicitRequestFormParams['requestedSchema'],
  content: Record<string, string | number | boolean | string[]>,
): Record<string, string | number | boolean | string[]> {
  const filled = { ...content };
  for (const [field, property] of Object.entries(schema.properties)) {
    if (field in filled || !('default' in property) || property.default === undefined) continue;
    filled[field] = property.default;
  }
  return filled;
}

/** A FleetError (the bounded fetch's) wrapped by the SDK's transport. */
function findCause(error: unknown): FleetError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (FleetError.isInstance(current)) return current;
    current = current.cause;
  }
  return undefined;
}

function resultBytes(result: CallToolResult): number {
  let bytes = Buffer.byteLength(JSON.stringify(result.content ?? []));
  if (result.structuredContent !== undefined) {
    bytes += Buffer.byteLength(JSON.stringify(result.structuredContent));
  }
  return bytes;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
