import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  AbortError,
  ConnectionError,
  FleetError,
  UpstreamError,
  UpstreamTimeoutError,
  ValidationError,
} from '@fleet/errors';
import {
  createUsageMeter,
  generateObject,
  type GenerateObjectOptions,
  type MeteredUsage,
} from '@fleet/llm';
import {
  SpanKind,
  setSpanOutput,
  withSpan,
  type Span,
  type WithSpanOptions,
} from '@fleet/telemetry';
import { messageText } from '../chat/message-text';
import { AUTO_ROUTES, heuristicRoute, type AutoRoute } from './heuristic-route';
import { createRouteCache, type RouteCache } from './route-cache';

/** The OpenAI SDK client `generateObject` takes (from `@fleet/llm`'s `createLlmClient`). */
export type ClassifierLlmClient = GenerateObjectOptions<z.ZodType>['client'];

/** Where an `auto` decision came from. */
export type RouteSource = 'classifier' | 'heuristic';

/** The route `auto` chose, and why. */
export interface RouteClassification {
  route: AutoRoute;
  /** The `X-Routing-Reason` value, e.g. `auto: classifier (model gpt-4o-mini): needs documents`. */
  reason: string;
  source: RouteSource;
  /** True when an earlier identical request paid for the classifier (cache or in flight). */
  cached: boolean;
  /**
   * The usage of the classifier's model call, when this decision made one that may have cost
   * tokens (the run's step `classifier`): also after a time-out (an unknown call) or an answer that
   * did not parse. Absent for cached and heuristic decisions, and calls the upstream refused.
   */
  usage?: MeteredUsage;
}

/** A message as the gateway validated it (content is whatever the client sent). */
export interface ClassifiableMessage {
  role: string;
  [field: string]: unknown;
}

/** What {@link RouteClassifier.classify} looks at. */
export interface ClassifyRouteInput {
  /** Decisions are cached per tenant: one tenant never gets another's decision. */
  tenant: string;
  messages: readonly ClassifiableMessage[];
}

/** Chooses `passthrough` or `orchestration` for `X-Routing-Mode: auto`. */
export interface RouteClassifier {
  classify(input: ClassifyRouteInput): Promise<RouteClassification>;
}

/** Options for {@link createRouteClassifier}. */
export interface RouteClassifierOptions {
  /** The upstream's client; undefined in offline mode (or with no classifier), where the heuristic decides. */
  client: ClassifierLlmClient | undefined;
  /**
   * No upstream LLM: passthrough can only answer 503, so the heuristic sends what it cannot place
   * to orchestration. @default client === undefined
   */
  offline?: boolean;
  /** `ROUTING_CLASSIFIER_MODEL`. */
  model: string;
  /** `ROUTING_CLASSIFIER_TEMPERATURE`. @default 0 */
  temperature?: number;
  /** `ROUTING_CLASSIFIER_TIMEOUT_MS`: past it the heuristic decides. @default 4000 */
  timeoutMs?: number;
  /** `ROUTING_CACHE_SIZE`: decisions kept; 0 turns the cache off. @default 10000 */
  cacheSize?: number;
  /** `ROUTING_CACHE_TTL_SECONDS`. @default 600 */
  cacheTtlSeconds?: number;
  /**
   * After the upstream fails (time-out, HTTP error, unreachable), the heuristic decides alone for
   * this long, so a broken or slow upstream does not add the time-out to every `auto` request. An
   * answer that does not parse pauses nothing. 0 never pauses. @default 15000
   */
  failureCooldownMs?: number;
  /** For tests. @default Date.now */
  now?: () => number;
  /** The tracer of the `gateway.route` span. @default the global one */
  tracer?: WithSpanOptions['tracer'];
}

/** The classifier's structured output. */
export const classifierAnswerSchema = z.object({
  route: z.enum(AUTO_ROUTES).describe('passthrough or orchestration'),
  reason: z
    .string()
    .describe(
      'At most eight words on why, e.g. "needs the user\'s documents" or "general question".',
    ),
});
export type ClassifierAnswer = z.infer<typeof classifierAnswerSchema>;

const SYSTEM_PROMPT = `You route requests to an AI assistant platform. Choose one route:
- "orchestration": the request needs the platform's agents: the user's own documents (policies, uploaded files, internal knowledge), their email (read, search, draft or send), running code or calculations in a sandbox, searching or reading the live web or the news, or several steps that combine these.
- "passthrough": a language model alone can answer: conversation, writing, rewriting, translation, explanations, general knowledge, reasoning over text the user pasted.
When unsure, choose "passthrough". Answer with JSON only: {"route": ..., "reason": ...}.`;

/** How much of the conversation the classifier reads (characters). */
const LAST_MESSAGE_CHARS = 4000;
const EARLIER_MESSAGE_CHARS = 400;
const EARLIER_MESSAGES = 2;
const MAX_REASON_CHARS = 160;

interface ConversationExcerpt {
  /** The last user message. */
  request: string;
  /** Up to two earlier user/assistant turns, oldest first, cut short. */
  earlier: { role: string; text: string }[];
}

function excerpt(messages: readonly ClassifiableMessage[]): ConversationExcerpt {
  const turns = messages.filter(
    (message) => message.role === 'user' || message.role === 'assistant',
  );
  const lastUser = turns.findLastIndex((message) => message.role === 'user');
  const request = lastUser === -1 ? '' : messageText(turns[lastUser]?.['content']);
  const earlier = turns
    .slice(Math.max(0, lastUser - EARLIER_MESSAGES), Math.max(0, lastUser))
    .map((message) => ({
      role: message.role,
      text: messageText(message['content']).slice(0, EARLIER_MESSAGE_CHARS),
    }));
  return { request: request.slice(0, LAST_MESSAGE_CHARS), earlier };
}

function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The tenant, then a hash of everything the classifier reads (normalised) and its model. */
function cacheKey(options: {
  tenant: string;
  model: string;
  conversation: ConversationExcerpt;
}): string {
  const { tenant, model, conversation } = options;
  const hash = createHash('sha256')
    .update(
      JSON.stringify([
        model,
        normalise(conversation.request),
        conversation.earlier.map((turn) => [turn.role, normalise(turn.text)]),
      ]),
    )
    .digest('base64url');
  return `${tenant}\n${hash}`;
}

/** A header-safe reason: printable ASCII, one line, short. */
function headerSafe(text: string): string {
  const clean = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_REASON_CHARS);
  return clean === '' ? 'no reason given' : clean;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  // The only abort signal on the call is the classifier's time-out.
  if (error instanceof AbortError || error instanceof UpstreamTimeoutError) {
    return `classifier timed out after ${timeoutMs} ms`;
  }
  if (error instanceof UpstreamError) return `classifier failed: upstream HTTP ${error.status}`;
  if (error instanceof ConnectionError) return 'classifier failed: upstream unreachable';
  if (error instanceof ValidationError) return 'classifier answer invalid';
  if (FleetError.isInstance(error)) return `classifier failed: ${error.code}`;
  return 'classifier failed';
}

interface Verdict {
  route: AutoRoute;
  reason: string;
}

/** What a call to the classifier model needs. */
interface ClassifierCall {
  llm: ClassifierLlmClient;
  model: string;
  temperature: number;
  timeoutMs: number;
  tracer: WithSpanOptions['tracer'];
}

async function askModel(
  { llm, model, temperature, timeoutMs, tracer }: ClassifierCall,
  conversation: ConversationExcerpt,
): Promise<Verdict> {
  const earlier = conversation.earlier.map((turn) => `${turn.role}: ${turn.text}`).join('\n');
  const content =
    earlier === ''
      ? `Request:\n${conversation.request}`
      : `Earlier in the conversation:\n${earlier}\n\nRequest:\n${conversation.request}`;
  const { object } = await generateObject({
    client: llm,
    model,
    schema: classifierAnswerSchema,
    schemaName: 'route_decision',
    schemaDescription: 'Which route serves the request, and why.',
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content },
    ],
    temperature,
    maxTokens: 100,
    signal: AbortSignal.timeout(timeoutMs),
    tracer,
  });
  return { route: object.route, reason: headerSafe(object.reason) };
}

/** The heuristic's decision, the reason saying why the model did not decide. */
function heuristicDecision({
  text,
  offline,
  why,
}: {
  text: string;
  offline: boolean;
  why: string;
}): RouteClassification {
  const choice = heuristicRoute({ text, offline });
  return {
    route: choice.route,
    reason: `auto: heuristic (${why}): ${choice.reason}`,
    source: 'heuristic',
    cached: false,
  };
}

/** Records a decision on its `gateway.route` span (and the classifier's model, when there is one). */
function describeRouteSpan(
  span: Span,
  { decision, model }: { decision: RouteClassification; model: string | undefined },
): void {
  span.setAttributes({
    'fleet.route': decision.route,
    'fleet.route.reason': decision.reason,
    'fleet.route.source': decision.source,
    'fleet.route.cached': decision.cached,
    ...(model === undefined ? {} : { 'fleet.route.classifier_model': model }),
  });
  setSpanOutput(span, { route: decision.route, reason: decision.reason });
}

/** A cached verdict as the classification of a request, its reason opened with `label`. */
function cachedClassification(hit: Verdict, label: string): RouteClassification {
  return {
    route: hit.route,
    reason: `${label}, cached): ${hit.reason}`,
    source: 'classifier',
    cached: true,
  };
}

/**
 * Asks the classifier about `conversation` and caches its verdict under `key`; the call is in
 * `inFlight` until it settles, so identical requests share it.
 */
function startCall(
  {
    cache,
    inFlight,
    call: classifierCall,
  }: { cache: RouteCache<Verdict>; inFlight: Map<string, Promise<Verdict>>; call: ClassifierCall },
  key: string,
  conversation: ConversationExcerpt,
): Promise<Verdict> {
  const call = askModel(classifierCall, conversation)
    .then((verdict) => {
      cache.set(key, verdict);
      return verdict;
    })
    .finally(() => inFlight.delete(key));
  inFlight.set(key, call);
  return call;
}

/**
 * Builds the `auto` router. It asks the upstream model (`ROUTING_CLASSIFIER_MODEL`, strict
 * structured output) whether a request needs the fleet's agents; when there is no upstream, or
 * the call fails, times out or answers nonsense, {@link heuristicRoute} decides and the reason
 * says why the model did not. Classifier decisions are cached (LRU, TTL) under the tenant plus a
 * hash of the normalised last user message and the two turns before it, and identical requests
 * in flight share one call; heuristic decisions are not cached (they cost nothing). After an
 * upstream failure the heuristic decides alone for `failureCooldownMs`. Each decision is recorded
 * on a `gateway.route` CHAIN span (route, reason, source, cached), the classifier's LLM span
 * inside it.
 *
 * @example
 * const router = createRouteClassifier({ client: createLlmClient({ upstream }), model: 'gpt-4o-mini' });
 * const { route, reason } = await router.classify({ tenant: 'acme', messages });
 */
export function createRouteClassifier({
  client,
  offline = client === undefined,
  model,
  temperature = 0,
  timeoutMs = 4000,
  cacheSize = 10_000,
  cacheTtlSeconds = 600,
  failureCooldownMs = 15_000,
  now = Date.now,
  tracer,
}: RouteClassifierOptions): RouteClassifier {
  const cache: RouteCache<Verdict> = createRouteCache({
    maxEntries: cacheSize,
    ttlMs: cacheTtlSeconds * 1000,
    now,
  });
  const inFlight = new Map<string, Promise<Verdict>>();
  let paused: { until: number; why: string } | undefined;

  async function decide(
    tenant: string,
    conversation: ConversationExcerpt,
  ): Promise<RouteClassification> {
    if (client === undefined) {
      return heuristicDecision({
        text: conversation.request,
        offline,
        why: offline ? 'no upstream' : 'no classifier',
      });
    }
    const label = `auto: classifier (model ${headerSafe(model)}`;
    const key = cacheKey({ tenant, model, conversation });
    const hit = cache.get(key);
    if (hit !== undefined) return cachedClassification(hit, label);
    const pending = inFlight.get(key);
    if (pending === undefined && paused !== undefined && now() < paused.until) {
      return heuristicDecision({
        text: conversation.request,
        offline: false,
        why: `classifier paused after a failure: ${paused.why}`,
      });
    }
    // The call this request pays for (not one it shares) counts as its step `classifier`.
    const meter = createUsageMeter();
    const paid = (): { usage?: MeteredUsage } => {
      const usage = meter.usage();
      return pending === undefined && usage.calls + usage.unknownCalls > 0 ? { usage } : {};
    };
    try {
      const verdict = await (pending ??
        meter.run(() =>
          startCall(
            { cache, inFlight, call: { llm: client, model, temperature, timeoutMs, tracer } },
            key,
            conversation,
          ),
        ));
      return {
        route: verdict.route,
        reason: `${label}${pending === undefined ? '' : ', cached'}): ${verdict.reason}`,
        source: 'classifier',
        cached: pending !== undefined,
        ...paid(),
      };
    } catch (error) {
      const why = describeFailure(error, timeoutMs);
      if (!(error instanceof ValidationError) && failureCooldownMs > 0) {
        paused = { until: now() + failureCooldownMs, why };
      }
      return {
        ...heuristicDecision({ text: conversation.request, offline: false, why }),
        ...paid(),
      };
    }
  }

  return {
    classify({ tenant, messages }) {
      const conversation = excerpt(messages);
      return withSpan(
        { name: 'gateway.route', kind: SpanKind.CHAIN, input: conversation.request, tracer },
        async (span) => {
          const decision = await decide(tenant, conversation);
          if (span.isRecording()) {
            describeRouteSpan(span, { decision, model: client === undefined ? undefined : model });
          }
          return decision;
        },
      );
    },
  };
}
