import type { A2AHandler } from './handler-types';

/**
 * `handler` with every request going through `handle` first, which answers it itself or passes it
 * on to `handler.handle`; the card, `close` and the turn observers stay the handler's.
 *
 * @example
 * const guarded = interceptRequests(handler, (body, context) =>
 *   isAllowed(body) ? handler.handle(body, context) : Promise.resolve(refusal(body)),
 * );
 */
export function interceptRequests(handler: A2AHandler, handle: A2AHandler['handle']): A2AHandler {
  return {
    get card() {
      return handler.card;
    },
    close: () => handler.close(),
    ...(handler.observeTurns === undefined
      ? {}
      : { observeTurns: handler.observeTurns.bind(handler) }),
    handle,
  };
}
