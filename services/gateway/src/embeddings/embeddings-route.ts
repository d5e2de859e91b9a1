import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceUnavailableError } from '@fleet/errors';
import { readJsonBody } from '@fleet/http';
import { requestSpan } from '@fleet/telemetry';
import type { UpstreamClient } from '../upstream';
import { combineObservers, NO_REQUEST_LIMITS, type RequestLimits } from '../tenant-limits';
import { embeddingsRequestSchema } from './embeddings-request';
import { traceEmbeddings } from './trace-embeddings';

/** What the embeddings handler needs. */
export interface EmbeddingsOptions {
  /** Undefined in offline mode. */
  upstreamClient: UpstreamClient | undefined;
  /** Why there is no upstream (the 503 message in offline mode). */
  offlineReason: string;
  bodyLimit: number;
}

/**
 * `POST /v1/embeddings` after authentication: validates `model` and `input`, then forwards the
 * client's exact bytes to the upstream and pipes its answer back (its errors with their own status
 * and body; 502/504 when it is unreachable or silent; 503 offline). Always passthrough: the fleet
 * has no embeddings of its own to route to. Throws typed errors; the caller renders them.
 */
export function createEmbeddingsHandler({
  upstreamClient,
  offlineReason,
  bodyLimit,
}: EmbeddingsOptions) {
  return async function embeddings(
    req: IncomingMessage,
    {
      res,
      requestId,
      tenant,
      limits = NO_REQUEST_LIMITS,
    }: { res: ServerResponse; requestId: string; tenant: string; limits?: RequestLimits },
  ): Promise<void> {
    const { raw, value: request } = await readJsonBody(req, {
      limit: bodyLimit,
      schema: embeddingsRequestSchema,
    });
    if (upstreamClient === undefined) throw new ServiceUnavailableError(offlineReason);
    await upstreamClient.forward({
      endpoint: 'embeddings',
      body: raw,
      stream: false,
      res,
      requestId,
      responseHeaders: {},
      observer: combineObservers(
        traceEmbeddings({ span: requestSpan(req), request, tenant }),
        limits.usageObserver(),
      ),
    });
  };
}
