import type OpenAI from 'openai';
import type { RunningFleet } from './start-fleet';

/** A structured progress event of an orchestrated stream (the chunk's `fleet` field). */
export type FleetEvent = Record<string, unknown> & { type: string };

/** JSON as the gateway sends it; tests read the fields they assert. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/**
 * Calls the fleet's gateway (`/v1` + `route`) with its API key, as JSON.
 *
 * @example
 * const { status, body } = await gatewayApi(fleet, `/sessions/${id}/approvals`);
 */
export async function gatewayApi(
  fleet: RunningFleet,
  route: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${fleet.gateway.url}/v1${route}`, {
    ...init,
    headers: {
      authorization: `Bearer ${fleet.apiKey}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** Reads a streamed orchestration until `stop` says so (then aborts), collecting fleet events. */
export async function readUntil(
  stream: AsyncIterable<unknown>,
  stop: (event: FleetEvent) => boolean,
  abort: AbortController,
): Promise<FleetEvent[]> {
  const events: FleetEvent[] = [];
  try {
    for await (const chunk of stream) {
      const fleetEvent = (chunk as { fleet?: FleetEvent }).fleet;
      if (!fleetEvent) continue;
      events.push(fleetEvent);
      if (stop(fleetEvent)) {
        abort.abort();
        break;
      }
    }
  } catch {
    // the abort
  }
  return events;
}

/**
 * Starts an orchestrated run and reads its stream until an approval is asked for (then lets go:
 * the session waits in Redis). Throws, with the events seen, when the run ends without asking.
 */
export async function runUntilApproval(
  client: OpenAI,
  question: string,
): Promise<{ sessionId: string; asked: FleetEvent; events: FleetEvent[] }> {
  const abort = new AbortController();
  const { data: stream, response } = await client.chat.completions
    .create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: question }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' }, signal: abort.signal },
    )
    .withResponse();
  const sessionId = response.headers.get('x-session-id') ?? '';
  const events = await readUntil(
    stream,
    (event) => event.type === 'approval-required' || event.type === 'run-end',
    abort,
  );
  const asked = events.find((event) => event.type === 'approval-required');
  if (asked === undefined) {
    throw new Error(`no approval was asked for: ${JSON.stringify(events).slice(0, 2000)}`);
  }
  return { sessionId, asked, events };
}

/** Polls `GET /v1/sessions/{id}` (up to 30 s) until `done` holds; throws with the last state. */
export async function waitForSession(
  fleet: RunningFleet,
  sessionId: string,
  done: (session: Json) => boolean,
): Promise<Json> {
  let last: Json = {};
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const { status, body } = await gatewayApi(fleet, `/sessions/${sessionId}`);
    if (status === 200) {
      last = body;
      if (done(body)) return body;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`session ${sessionId} never got there: ${JSON.stringify(last).slice(0, 800)}`);
}

/** What one streamed chat completion through the gateway showed. */
export interface StreamedChat {
  /** The `x-session-id` response header. */
  sessionId: string;
  /** The fleet events (the chunks' `fleet` field), in order. */
  events: FleetEvent[];
  /** The answer (`delta.content`). */
  content: string;
  /** The progress lines (`delta.reasoning_content`). */
  reasoning: string;
  /** True when `onEvent` stopped the reading before the stream ended. */
  stopped: boolean;
  /**
   * The error the stream ended with, if it did (the openai SDK throws it): a run that failed as a
   * whole (every step failed) ends so, after its answer.
   */
  error?: Error;
}

/** Options for {@link streamChat}. */
export interface StreamChatOptions {
  /** The last user message. */
  message: string;
  /** Continue this session (`X-Session-ID`) instead of starting an orchestrated run. */
  sessionId?: string;
  /** More request headers, e.g. `{ 'X-Low-Confidence': 'ask' }`. */
  headers?: Record<string, string>;
  /**
   * Runs for each fleet event, with what was read so far (the session id …), before the stream is
   * read on (decide an approval, answer a question, …). `'stop'` ends the reading there and lets
   * go of the request; the session goes on without a client.
   */
  onEvent?: (event: FleetEvent, chat: StreamedChat) => 'stop' | void | Promise<'stop' | void>;
}

/**
 * Streams one chat completion through the gateway with the official openai SDK: a new orchestrated
 * run, or the rest of a session (`sessionId`), collecting what it shows. An error after the run
 * started streaming is kept in `error` (with everything shown before it); one before is thrown.
 *
 * @example
 * const { events, content } = await streamChat(client, { message: 'Pay invoice INV-1' });
 */
export async function streamChat(
  client: OpenAI,
  { message, sessionId, headers, onEvent }: StreamChatOptions,
): Promise<StreamedChat> {
  const abort = new AbortController();
  const { data: stream, response } = await client.chat.completions
    .create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: message }],
      },
      {
        headers: {
          ...(sessionId === undefined
            ? { 'X-Routing-Mode': 'orchestration' }
            : { 'X-Session-ID': sessionId }),
          ...headers,
        },
        signal: abort.signal,
      },
    )
    .withResponse();
  const chat: StreamedChat = {
    sessionId: response.headers.get('x-session-id') ?? '',
    events: [],
    content: '',
    reasoning: '',
    stopped: false,
  };
  try {
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        { content?: string | null; reasoning_content?: string } | undefined;
      chat.content += delta?.content ?? '';
      chat.reasoning += delta?.reasoning_content ?? '';
      const event = (chunk as unknown as { fleet?: FleetEvent }).fleet;
      if (event === undefined) continue;
      chat.events.push(event);
      if ((await onEvent?.(event, chat)) === 'stop') {
        chat.stopped = true;
        abort.abort();
        break;
      }
    }
  } catch (error) {
    if (!chat.stopped) {
      if (!(error instanceof Error) || chat.events.length === 0) throw error;
      chat.error = error;
    }
  }
  return chat;
}

/** The events of one type, in order. */
export function eventsOf(events: readonly FleetEvent[], type: string): FleetEvent[] {
  return events.filter((event) => event.type === type);
}
