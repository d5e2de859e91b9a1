import type { StreamResponse } from '@fleet/a2a';
import { FleetError } from '@fleet/errors';
import type { RunEventSource } from './answer-run';

/** The session a run's event names (the orchestrator puts it in every status update's metadata). */
function sessionOf(event: StreamResponse): string | undefined {
  if (!('statusUpdate' in event)) return undefined;
  const sessionId = event.statusUpdate.metadata?.['sessionId'];
  return typeof sessionId === 'string' && sessionId !== '' ? sessionId : undefined;
}

/**
 * The orchestrator's answer when it shut down gracefully mid-run: its task ends FAILED with
 * `handedOver` in its metadata while the session stays open for another orchestrator.
 */
function isHandedOver(event: StreamResponse): boolean {
  return 'statusUpdate' in event && event.statusUpdate.metadata?.['handedOver'] === true;
}

/**
 * A new run's events, carried on when its orchestrator goes away mid-run: once the run has named
 * its session, a stream that breaks (the orchestrator died) or a graceful hand-over (it shut down)
 * is not the run's end — the session is durable — so the events go on from `follow(sessionId)`,
 * which attaches to whichever orchestrator runs the session now. The client sees one run.
 *
 * @example
 * events: followAfterCut((signal) => client.sendStreamingMessage({ message }, { signal }), (id) =>
 *   followSession({ store, client, sessionId: id }),
 * )
 */
export function followAfterCut(
  start: RunEventSource,
  follow: (sessionId: string) => RunEventSource,
): RunEventSource {
  return async function* run(signal): AsyncGenerator<StreamResponse, void, undefined> {
    let sessionId: string | undefined;
    try {
      for await (const event of start(signal)) {
        sessionId ??= sessionOf(event);
        if (sessionId !== undefined && isHandedOver(event)) {
          yield* follow(sessionId)(signal);
          return;
        }
        yield event;
      }
    } catch (error) {
      const cut = FleetError.isInstance(error) && error.code === 'UPSTREAM_STREAM_INTERRUPTED';
      if (signal.aborted || sessionId === undefined || !cut) throw error;
      yield* follow(sessionId)(signal);
    }
  };
}
