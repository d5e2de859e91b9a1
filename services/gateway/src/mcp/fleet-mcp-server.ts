import type { RunFile, RunFileStore } from '@fleet/a2a';
import type { HttpLogger } from '@fleet/http';
import type { ChatCompletionsOptions } from '../chat/chat-completions-route';
import type { TenantLimiter } from '../tenant-limits';
import type { SessionStore } from '@fleet/sessions';
import { FleetError, ServiceUnavailableError } from '@fleet/errors';
import {
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import {
  documentSearchViewSchema,
  searchDocuments,
  searchDocumentsBodySchema,
  toDocumentView,
  type DocumentsClient,
} from '../documents';
import { toSessionSummary, toSessionView } from '../sessions/session-views';
import type { ApprovalStateCodec } from './approval-state';
import { registerAskTool, type AskCaller } from './ask-tool';
import type { LegacyExchanges } from './legacy-exchanges';
import { withCachedJsonSchema } from './cached-json-schema';
import { runTool } from './tool-results';
import {
  documentListOutputSchema,
  getSessionInputSchema,
  listDocumentsInputSchema,
  listSessionsInputSchema,
  sessionListOutputSchema,
  sessionViewOutputSchema,
} from './tool-schemas';

/** The fleet's services the MCP server reads, for one tenant at a time. */
export interface FleetMcpDependencies {
  /** The RAG agent's documents commands; undefined without an internal token (tools fail 503). */
  documents: DocumentsClient | undefined;
  /** Sessions in Redis. */
  sessions: SessionStore;
  /** The run files; undefined without an internal token (no resources, reads fail). */
  files: RunFileStore | undefined;
  logger: HttpLogger;
  /** The server's version in `serverInfo`. @default '0.1.0' */
  version?: string;
  /**
   * The chat completions route's options, which `ask` runs questions with. Undefined: `ask` answers
   * a 503 tool error.
   */
  route?: ChatCompletionsOptions | undefined;
  /** Signs the `requestState` of approvals asked over 2026-07-28 (`GATEWAY_MCP_STATE_SECRET`). */
  stateCodec: ApprovalStateCodec;
  /** The 2025-11-25 connections' capabilities, elicitation answers and cancels. */
  legacy: LegacyExchanges;
  /** The tenants' limits, which `ask`'s new runs hold a run slot of. Undefined: none. */
  limiter?: TenantLimiter | undefined;
}

/** Every tool here reads the tenant's own data and changes nothing. */
const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The tools' schemas, each converted to JSON Schema once per process (see {@link withCachedJsonSchema}). */
const SCHEMAS = {
  searchInput: withCachedJsonSchema(searchDocumentsBodySchema),
  searchOutput: withCachedJsonSchema(documentSearchViewSchema),
  listDocumentsInput: withCachedJsonSchema(listDocumentsInputSchema),
  listDocumentsOutput: withCachedJsonSchema(documentListOutputSchema),
  listSessionsInput: withCachedJsonSchema(listSessionsInputSchema),
  listSessionsOutput: withCachedJsonSchema(sessionListOutputSchema),
  getSessionInput: withCachedJsonSchema(getSessionInputSchema),
  getSessionOutput: withCachedJsonSchema(sessionViewOutputSchema),
};

/** Sessions whose files `resources/list` lists, newest first. */
const RESOURCE_SESSIONS = 50;

/** Most files `resources/list` lists. */
export const MAX_LISTED_FILES = 100;

/** The URI template of a run file's bytes. */
export const FILE_URI_TEMPLATE = 'fleet://files/{id}';

/** The URI of one run file. */
export function fileUri(id: string): string {
  return `fleet://files/${encodeURIComponent(id)}`;
}

/** The run files of the tenant's most recent sessions, newest session first, unexpired, bounded. */
async function recentFiles(sessions: SessionStore, tenant: string): Promise<RunFile[]> {
  const now = Date.now();
  const listed: RunFile[] = [];
  const seen = new Set<string>();
  for (const session of await sessions.list(tenant, { limit: RESOURCE_SESSIONS })) {
    for (const file of session.files ?? []) {
      if (seen.has(file.id) || Date.parse(file.expiresAt) <= now) continue;
      seen.add(file.id);
      listed.push(file);
      if (listed.length >= MAX_LISTED_FILES) return listed;
    }
  }
  return listed;
}

/** Registers `search_documents` (read-only). */
function registerSearchDocuments(
  server: McpServer,
  { documents, logger }: FleetMcpDependencies,
  tenant: string,
): void {
  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description:
        "Searches your uploaded documents (policies, handbooks, reports, spreadsheets, notes) with the fleet's hybrid search: vector and full text fused, filters read from the query (document type, file name, dates), optional re-ranking. Returns the best passages, best first, each with its document id, file name, section, page and score.",
      inputSchema: SCHEMAS.searchInput,
      outputSchema: SCHEMAS.searchOutput,
      annotations: READ_ONLY,
    },
    async ({ query, limit }, ctx) =>
      runTool(
        () => searchDocuments(documents, { tenant, query, limit, signal: ctx.mcpReq.signal }),
        logger,
      ),
  );
}

/** Registers `list_documents` (read-only). */
function registerListDocuments(
  server: McpServer,
  { documents, logger }: FleetMcpDependencies,
  tenant: string,
): void {
  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description:
        'Lists your uploaded documents, newest first: id, file name, type, chunks indexed, description, upload time, and whether the original file is kept.',
      inputSchema: SCHEMAS.listDocumentsInput,
      outputSchema: SCHEMAS.listDocumentsOutput,
      annotations: READ_ONLY,
    },
    async (_args, ctx) =>
      runTool(async () => {
        if (documents === undefined) {
          throw new ServiceUnavailableError(
            'Documents need FLEET_INTERNAL_TOKEN, the token fleet services share, to call the RAG agent.',
          );
        }
        const list = await documents.list({ tenant, signal: ctx.mcpReq.signal });
        return { object: 'list', data: list.map(toDocumentView) };
      }, logger),
  );
}

/** Registers `list_sessions` (read-only). */
function registerListSessions(
  server: McpServer,
  { sessions, logger }: FleetMcpDependencies,
  tenant: string,
): void {
  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description:
        'Lists your orchestrated sessions (runs of the fleet), newest first: id, status, when, the request, and how many approvals, questions or reviews wait for a person.',
      inputSchema: SCHEMAS.listSessionsInput,
      outputSchema: SCHEMAS.listSessionsOutput,
      annotations: READ_ONLY,
    },
    async ({ limit }) =>
      runTool(async () => {
        const list = await sessions.list(tenant, { limit });
        return { object: 'list', data: list.map(toSessionSummary) };
      }, logger),
  );
}

/** Registers `get_session` (read-only). */
function registerGetSession(
  server: McpServer,
  { sessions, logger }: FleetMcpDependencies,
  tenant: string,
): void {
  server.registerTool(
    'get_session',
    {
      title: 'Get a session',
      description:
        "One of your sessions in full: the plan, each step's state and result, approvals, questions, reviews, the composed answer with citations, and the run's files (readable as fleet://files/{id} resources).",
      inputSchema: SCHEMAS.getSessionInput,
      outputSchema: SCHEMAS.getSessionOutput,
      annotations: READ_ONLY,
    },
    async ({ session_id: sessionId }) =>
      runTool(async () => toSessionView(await sessions.getForTenant(sessionId, tenant)), logger),
  );
}

/**
 * Registers the `fleet://files/{id}` resource template: one of the tenant's run files as a blob,
 * and the unexpired files of its recent sessions listed.
 */
function registerRunFileResource(
  server: McpServer,
  { sessions, files }: FleetMcpDependencies,
  tenant: string,
): void {
  server.registerResource(
    'run-file',
    new ResourceTemplate(FILE_URI_TEMPLATE, {
      list: async () => {
        if (files === undefined) return { resources: [] };
        const listed = await recentFiles(sessions, tenant);
        return {
          resources: listed.map((file) => ({
            uri: fileUri(file.id),
            name: file.name,
            title: file.name,
            mimeType: file.mediaType,
            size: file.size,
            description: `A file of session ${file.sessionId ?? 'unknown'}${file.nodeId === undefined ? '' : `, step ${file.nodeId}`} (${file.source}).`,
          })),
        };
      },
    }),
    {
      title: 'Run files',
      description:
        "Files your sessions keep: files the fleet's steps made and the attachments of your requests, as bytes with their media type.",
    },
    async (uri, variables, ctx) => {
      const raw = variables['id'];
      const id = decodeURIComponent(Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? ''));
      if (files === undefined) {
        throw new ServiceUnavailableError(
          'Run files need FLEET_INTERNAL_TOKEN and the RAG agent (RAG_AGENT_URL), which keeps them.',
        );
      }
      try {
        const { file, bytes } = await files.get({ tenant, id, signal: ctx.mcpReq.signal });
        return {
          contents: [
            {
              uri: uri.href,
              mimeType: file.mediaType,
              blob: Buffer.from(bytes).toString('base64'),
            },
          ],
        };
      } catch (error) {
        if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') {
          throw new ResourceNotFoundError(uri.href, `No file with id ${id.slice(0, 100)}.`);
        }
        throw error;
      }
    },
  );
}

/** Registers one tool on a server instance for `caller`. */
type RegisterTool = (server: McpServer, deps: FleetMcpDependencies, caller: AskCaller) => void;

/** The fleet's tools, by name, in the order `tools/list` lists them. */
const TOOLS: Readonly<Record<string, RegisterTool>> = {
  search_documents: (server, deps, caller) => registerSearchDocuments(server, deps, caller.tenant),
  list_documents: (server, deps, caller) => registerListDocuments(server, deps, caller.tenant),
  list_sessions: (server, deps, caller) => registerListSessions(server, deps, caller.tenant),
  get_session: (server, deps, caller) => registerGetSession(server, deps, caller.tenant),
  ask: (server, deps, caller) =>
    registerAskTool(
      server,
      {
        route: deps.route,
        sessions: deps.sessions,
        logger: deps.logger,
        stateCodec: deps.stateCodec,
        legacy: deps.legacy,
        limiter: deps.limiter,
      },
      caller,
    ),
};

/**
 * The fleet as an MCP server, for one tenant (docs/mcp.md, "The fleet as an MCP server"): built
 * afresh for every request by `createMcpHandler`, so each instance sees only the tenant whose API
 * key authenticated the request.
 *
 * Tools (with `outputSchema` and `structuredContent`, the JSON also as text): `ask` (a run of the
 * fleet, approvals asked of the client; see `registerAskTool`), and, read-only,
 * `search_documents` (the hybrid search of `POST /v1/documents/search`), `list_documents`
 * (`GET /v1/documents`), `list_sessions` and `get_session` (`GET /v1/sessions[/{id}]`). A failure
 * (another tenant's or an unknown session, the RAG agent unreachable) is a tool result with
 * `isError: true` naming it.
 *
 * Resources: the template `fleet://files/{id}` reads one of the tenant's run files as a blob with
 * its media type; `resources/list` lists the unexpired files of its recent sessions (at most
 * {@link MAX_LISTED_FILES}).
 *
 * @example
 * const handler = createMcpHandler(({ era, authInfo }) => createFleetMcpServer({ tenant: tenantOf(authInfo), era }, deps));
 */
export function createFleetMcpServer(caller: AskCaller, deps: FleetMcpDependencies): McpServer {
  const server = new McpServer(
    { name: 'a2a-fleet', title: 'A2A Fleet', version: deps.version ?? '0.1.0' },
    {
      instructions:
        'The A2A Fleet for your tenant: ask the fleet (orchestrated runs; approvals, questions and reviews are asked of you), search and list your uploaded documents, read your orchestrated sessions and their files.',
    },
  );

  for (const register of Object.values(TOOLS)) register(server, deps, caller);
  registerRunFileResource(server, deps, caller.tenant);
  return server;
}
