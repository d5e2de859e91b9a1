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
