import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { citationSchema, runFileSchema, runUsageSchema } from '@fleet/a2a';
import type { ChatUsage } from '../openai';

/** A `reasoning` output item: the agent's progress, one `summary_text` part per line. */
export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  status: 'in_progress' | 'completed';
  summary: { type: 'summary_text'; text: string }[];
}

/** A `url_citation` annotation: a cited source with a URL, at its `[n]` marker in the text. */
export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

/**
 * A `container_file_citation` annotation: a run file the answer links
 * (`[chart.png](/v1/files/file-…/content)`), spanning the link. OpenAI uses it for the files a
 * code interpreter container made; here the container is the run: `container_id` is the file's
 * session id. The file is read at `GET /v1/files/{file_id}/content`.
 */
export interface ContainerFileCitation {
  type: 'container_file_citation';
  container_id: string;
  file_id: string;
  filename: string;
  start_index: number;
  end_index: number;
}

/** An annotation on the answer's text. */
export type Annotation = UrlCitation | ContainerFileCitation;

/** An `output_text` content part. */
export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: Annotation[];
  logprobs: [];
}

/** A `message` output item: the answer. */
export interface MessageItem {
  id: string;
  type: 'message';
  role: 'assistant';
  status: 'in_progress' | 'completed';
  content: OutputText[];
}

/** An output item of an agent route's response. */
export type OutputItem = ReasoningItem | MessageItem;

/** Usage in the Responses API's shape. */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The `response` object an agent route answers with (the fleet's `fleet` object beside). */
export interface FleetResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'failed';
  error: { code: string; message: string } | null;
  incomplete_details: null;
  instructions: null;
  metadata: Record<string, string>;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: false;
  previous_response_id: null;
  store: false;
  temperature: null;
  tool_choice: 'none';
  tools: [];
  top_p: null;
  usage: ResponseUsage | null;
  fleet?: Record<string, unknown>;
}

/** A fresh id with the Responses API's prefixes (`resp_`, `rs_`, `msg_`). */
export function responseId(prefix: 'resp' | 'rs' | 'msg'): string {
  return `${prefix}_fleet${randomBytes(12).toString('hex')}`;
}

/** The fixed part of one answer's `response` objects: id, time, model. */
export interface ResponseShell {
  id: string;
  createdAt: number;
  model: string;
}

/** Options for {@link responseObject}. */
export interface ResponseObjectOptions {
  status: FleetResponse['status'];
  output: OutputItem[];
  usage?: ResponseUsage | null | undefined;
  error?: FleetResponse['error'] | undefined;
  fleet?: Record<string, unknown> | undefined;
}

/** One `response` object of an answer, in a given state. */
export function responseObject(
  shell: ResponseShell,
  { status, output, usage = null, error = null, fleet }: ResponseObjectOptions,
): FleetResponse {
  return {
    id: shell.id,
    object: 'response',
    created_at: shell.createdAt,
    status,
    error,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model: shell.model,
    output,
    parallel_tool_calls: false,
    previous_response_id: null,
    store: false,
    temperature: null,
    tool_choice: 'none',
    tools: [],
    top_p: null,
    usage,
    ...(fleet === undefined ? {} : { fleet }),
  };
}

/** Chat usage as Responses usage (no cached or reasoning token counts are known: 0). */
export function toResponseUsage(usage: ChatUsage): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

// Tolerant readers of the run's `fleet` object (our own output, but typed at this boundary).
const fleetUsageSchema = z.object({ usage: runUsageSchema });
const fleetCitationsSchema = z.object({ citations: z.array(citationSchema) });
const fleetFilesSchema = z.object({ files: z.array(runFileSchema) });

/**
 * The usage of an answer: the route's chat usage (reasoning), else the run's usage from its
 * `fleet` object (orchestration) when every step reported it; null when unknown (never zeros
 * for unknown counts).
 */
export function answerUsage(
  chat: ChatUsage | null | undefined,
  fleet: Record<string, unknown> | undefined,
): ResponseUsage | null {
  if (chat != null) return toResponseUsage(chat);
  const run = fleetUsageSchema.safeParse(fleet ?? {});
  if (!run.success || !run.data.usage.complete) return null;
  const { promptTokens, completionTokens, totalTokens } = run.data.usage;
  return toResponseUsage({
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: totalTokens,
  });
}

/**
 * `url_citation` annotations for the answer's `[n]` markers whose source has a URL (citation n
 * is the run's n-th source, docs/architecture.md §5). Sources without a URL stay in `fleet`.
 */
export function urlCitations(
  text: string,
  fleet: Record<string, unknown> | undefined,
): UrlCitation[] {
  const parsed = fleetCitationsSchema.safeParse(fleet ?? {});
  if (!parsed.success) return [];
  const annotations: UrlCitation[] = [];
  for (const match of text.matchAll(/\[(\d{1,4})\]/g)) {
    const citation = parsed.data.citations[Number(match[1]) - 1];
    if (citation?.url === undefined) continue;
    annotations.push({
      type: 'url_citation',
      url: citation.url,
      title: citation.title,
      start_index: match.index,
      end_index: match.index + match[0].length,
    });
  }
  return annotations;
}

/**
 * `container_file_citation` annotations for the run files (the `fleet` object's `files`) the
 * answer mentions by their content path (`/v1/files/{id}/content`): each spans the Markdown link
 * or image around the path (`[name](path)`, `![name](path)`), else the path alone.
 */
export function fileCitations(
  text: string,
  fleet: Record<string, unknown> | undefined,
): ContainerFileCitation[] {
  const parsed = fleetFilesSchema.safeParse(fleet ?? {});
  if (!parsed.success || parsed.data.files.length === 0) return [];
  const byId = new Map(parsed.data.files.map((file) => [file.id, file]));
  const annotations: ContainerFileCitation[] = [];
  const pattern = /(!?\[[^\]\n]{0,300}\]\()?\/v1\/files\/(file-[0-9a-f]{32})\/content(\))?/g;
  for (const match of text.matchAll(pattern)) {
    const file = byId.get(match[2] ?? '');
    if (file === undefined) continue;
    const link = match[1] !== undefined && match[3] !== undefined;
    const start = link ? match.index : match.index + (match[1]?.length ?? 0);
    const path = `/v1/files/${file.id}/content`;
    annotations.push({
      type: 'container_file_citation',
      container_id: file.sessionId ?? '',
      file_id: file.id,
      filename: file.name,
      start_index: start,
      end_index: link ? match.index + match[0].length : start + path.length,
    });
  }
  return annotations;
}

/** Every annotation of an answer's text (URL citations and run files), in text order. */
export function answerAnnotations(
  text: string,
  fleet: Record<string, unknown> | undefined,
): Annotation[] {
  return [...urlCitations(text, fleet), ...fileCitations(text, fleet)].sort(
    (a, b) => a.start_index - b.start_index,
  );
}

/** The progress lines of a `reasoning_content` text (one per line, blank ones dropped). */
export function progressLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}
