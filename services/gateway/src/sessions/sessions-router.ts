import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { reviewDecisionSchema } from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import { FleetError, ValidationError, validationErrorFromZod } from '@fleet/errors';
import { addLogFields, readJsonBody, type HttpLogger } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import { getTenant } from '../auth';
import { ALL_TOOLS_PERMITTED, type ToolPermissions } from '../tool-permissions';
import { inputAnswerBodySchema } from './answer-input';
import { cancelSession } from './cancel-session';
import { resumeInBackground } from './resume-in-background';
import {
  approvalViews,
  inputViews,
  toApprovalView,
  toInputView,
  toReviewView,
  toSessionSummary,
  toSessionView,
} from './session-views';

/** What the sessions API needs. */
export interface SessionsRouterOptions {
  store: SessionStore;
  /** The orchestrator; undefined without FLEET_INTERNAL_TOKEN (cancels and resumes stay local). */
  orchestratorClient: A2AClient | undefined;
  logger: HttpLogger;
  /** See {@link resumeInBackground}. @default 20000 */
  recheckAfterMs?: number;
  /** Each tenant's tool policy, sent with a resume. @default every tool permitted */
  toolPermissions?: ToolPermissions | undefined;
}

/** The body of `POST /v1/sessions/{id}/approvals/{approval_id}`. */
export const approvalDecisionBodySchema = z.strictObject({
  decision: z.enum(['approve', 'deny'], { error: "decision must be 'approve' or 'deny'" }),
  instructions: z
    .string({ error: 'instructions must be a string' })
    .max(4000, 'instructions must be at most 4000 characters')
    .optional(),
});

const listQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(50),
});

/** A decision body is a few KiB at most (instructions ≤ 4000 characters). */
const DECISION_BODY_LIMIT = 64 * 1024;

/** An answer body, as a decision's: 16000 characters are at most 48000 bytes of UTF-8. */
const ANSWER_BODY_LIMIT = 64 * 1024;

/**
 * A review body: feedback ≤ 4000 characters (12000 bytes of UTF-8) and ≤ 32 step ids of ≤ 64
 * characters each fit well within it.
 */
const REVIEW_BODY_LIMIT = 32 * 1024;

/**
 * The store's refusal of a step the plan does not have, with `param: "steps"` so an OpenAI client
 * sees which field was wrong (the message names the plan's steps); other errors pass as they are.
 */
function withStepsParam(error: unknown): unknown {
  if (!FleetError.isInstance(error) || !(error instanceof ValidationError)) return error;
  if (error.param !== undefined) return error;
  return new ValidationError(error.message, {
    param: 'steps',
    ...(error.details === undefined ? {} : { details: error.details }),
    cause: error,
  });
}

function sessionIdOf(req: Request, res: Response): string {
  const id = String(req.params['id']);
  addLogFields(res, { sessionId: id });
  return id;
}

/** Routes reading and cancelling the tenant's sessions: list, get, delete. */
function routeSessions(
  router: Router,
  { store, orchestratorClient, logger }: SessionsRouterOptions,
): void {
  router.get('/sessions', async function listSessions(req: Request, res: Response) {
    const query = listQuerySchema.safeParse(req.query);
    if (!query.success) throw validationErrorFromZod(query.error, { subject: 'The query' });
    const sessions = await store.list(getTenant(res), { limit: query.data.limit });
    res.json({ object: 'list', data: sessions.map(toSessionSummary) });
  });

  router.get('/sessions/:id', async function getSession(req: Request, res: Response) {
    const session = await store.getForTenant(sessionIdOf(req, res), getTenant(res));
    res.json(toSessionView(session));
  });

  router.delete('/sessions/:id', async function deleteSession(req: Request, res: Response) {
    const session = await cancelSession({
      store,
      client: orchestratorClient,
      logger,
      sessionId: sessionIdOf(req, res),
      tenant: getTenant(res),
    });
    res.json(toSessionView(session));
  });
}

/**
 * Routes what a person gives a waiting session: approval decisions, answers to agents' questions,
 * plan reviews (and the lists of what waits). Each resumes the session with `resumeAfter`.
 */
function routeDecisions(
  router: Router,
  store: SessionStore,
  resumeAfter: (sessionId: string, tenant: string) => void,
): void {
  router.get('/sessions/:id/approvals', async function listApprovals(req: Request, res: Response) {
    const session = await store.getForTenant(sessionIdOf(req, res), getTenant(res));
    res.json({ object: 'list', data: approvalViews(session) });
  });

  router.post(
    '/sessions/:id/approvals/:approvalId',
    async function decideApproval(req: Request, res: Response) {
      const sessionId = sessionIdOf(req, res);
      const approvalId = String(req.params['approvalId']);
      addLogFields(res, { approvalId });
      const { value: body } = await readJsonBody(req, {
        limit: DECISION_BODY_LIMIT,
        schema: approvalDecisionBodySchema,
      });
      const approval = await store.decideApproval({
        sessionId,
        approvalId,
        tenant: getTenant(res),
        decision: body.decision,
        ...(body.instructions === undefined ? {} : { instructions: body.instructions }),
      });
      res.json({ approval: toApprovalView(approval) });
      // After the answer: the decision is recorded whatever happens to the resume.
      resumeAfter(sessionId, getTenant(res));
    },
  );

  router.get('/sessions/:id/inputs', async function listInputs(req: Request, res: Response) {
    const session = await store.getForTenant(sessionIdOf(req, res), getTenant(res));
    res.json({ object: 'list', data: inputViews(session) });
  });

  router.post(
    '/sessions/:id/inputs/:inputId',
    async function answerInput(req: Request, res: Response) {
      const sessionId = sessionIdOf(req, res);
      const inputId = String(req.params['inputId']);
      addLogFields(res, { inputId });
      const { value: body } = await readJsonBody(req, {
        limit: ANSWER_BODY_LIMIT,
        schema: inputAnswerBodySchema,
      });
      const input = await store.answerInput({
        sessionId,
        inputId,
        tenant: getTenant(res),
        text: body.text,
      });
      res.json({ input: toInputView(input) });
      // After the reply, as for a decision: the answer is recorded whatever happens to the resume.
      resumeAfter(sessionId, getTenant(res));
    },
  );

  router.post('/sessions/:id/review', async function decideReview(req: Request, res: Response) {
    const sessionId = sessionIdOf(req, res);
    const { value: decision } = await readJsonBody(req, {
      limit: REVIEW_BODY_LIMIT,
      schema: reviewDecisionSchema,
    });
    addLogFields(res, { reviewDecision: decision.decision });
    const review = await store
      .decideReview({ sessionId, tenant: getTenant(res), decision })
      .catch((error: unknown) => {
        throw withStepsParam(error);
      });
    res.json({ review: toReviewView(review) });
    // After the answer, as for an approval: the decision is recorded whatever happens to the resume.
    resumeAfter(sessionId, getTenant(res));
  });
}

/**
 * The sessions, approvals and questions API (docs/architecture.md §3), mounted on the authenticated
 * `/v1` router.
 * Every route is scoped to the caller's tenant: another tenant's session answers the same 404 as a
 * missing one.
 *
 * - `GET /sessions` → `{ object: 'list', data: SessionSummary[] }`, newest first (`?limit=`, 1–100).
 * - `GET /sessions/:id` → `SessionView`.
 * - `DELETE /sessions/:id` → cancels; 200 with the `SessionView`, 409 when it had already ended.
 * - `GET /sessions/:id/approvals` → `{ object: 'list', data: ApprovalView[] }`, oldest first
 *   (kinds `node` and `plan`; questions are under `/inputs`, reviews in the session's `reviews`).
 * - `POST /sessions/:id/approvals/:approvalId` `{ decision, instructions? }` → 200 `{ approval }`;
 *   404 unknown (a question's id included); 409 already decided, expired or busy. Then the session
 *   is resumed in the background if no orchestrator runs it ({@link resumeInBackground}).
 * - `GET /sessions/:id/inputs` → `{ object: 'list', data: InputView[] }`: the questions agents
 *   asked (TASK_STATE_INPUT_REQUIRED), oldest first.
 * - `POST /sessions/:id/inputs/:inputId` `{ text }` (1–16000 characters after trimming) → 200
 *   `{ input }`; 404 unknown (an approval's id included); 409 already answered, expired or busy.
 *   Then the session is resumed in the background, as after a decision.
 * - `POST /sessions/:id/review` `{ decision, steps?, feedback? }` (`reviewDecisionSchema`) → 200
 *   `{ review: ReviewView }`; 404 unknown session; 409 no review waits (never asked, decided,
 *   expired) or busy; 400 a bad body or a step the plan does not have. Then the session is
 *   resumed in the background, as after a decision.
 *
 * @example
 * v1.use(sessionsRouter({ store, orchestratorClient, logger }));
 */
export function sessionsRouter(options: SessionsRouterOptions): Router {
  const {
    store,
    orchestratorClient,
    logger,
    recheckAfterMs,
    toolPermissions = ALL_TOOLS_PERMITTED,
  } = options;
  const router = express.Router();
  /** Makes sure an orchestrator continues the session after a decision or an answer. */
  const resumeAfter = (sessionId: string, tenant: string): void => {
    void resumeInBackground({
      store,
      client: orchestratorClient,
      logger,
      sessionId,
      toolPolicy: toolPermissions.policyFor(tenant),
      ...(recheckAfterMs === undefined ? {} : { recheckAfterMs }),
    });
  };

  routeSessions(router, options);
  routeDecisions(router, store, resumeAfter);
  return router;
}
