import { z } from 'zod';
import { documentInfoSchema } from '@fleet/a2a';
import { sessionStatusSchema } from '@fleet/sessions';

/** Arguments of `list_documents`: none. */
export const listDocumentsInputSchema = z.strictObject({});

/** A document as `GET /v1/documents` shows it (`DocumentView`). */
const documentViewSchema = z.object({
  id: z.string(),
  object: z.literal('document'),
  filename: z.string(),
  docType: documentInfoSchema.shape.docType,
  chunks: z.number().int(),
  description: z.string(),
  createdAt: z.string(),
  truncated: z.boolean().optional(),
  warnings: z.array(z.string()).optional(),
  original: z.boolean().optional(),
});

/** What `list_documents` answers: the tenant's documents, newest first. */
export const documentListOutputSchema = z.object({
  object: z.literal('list'),
  data: z.array(documentViewSchema),
});

/** Arguments of `list_sessions`. */
export const listSessionsInputSchema = z.strictObject({
  limit: z
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(20)
    .describe('How many sessions, newest first (1–100, default 20).'),
});

/** A session as `GET /v1/sessions` lists it (`SessionSummary`). */
const sessionSummarySchema = z.looseObject({
  id: z.string(),
  status: sessionStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  request: z.string(),
  pendingApprovals: z.number().int(),
  pendingInputs: z.number().int(),
  awaitingReview: z.boolean(),
});

/** What `list_sessions` answers: the tenant's sessions, newest first. */
export const sessionListOutputSchema = z.object({
  object: z.literal('list'),
  data: z.array(sessionSummarySchema),
});

/** Arguments of `get_session`. */
export const getSessionInputSchema = z.strictObject({
  session_id: z
    .string({ error: 'session_id must be a string' })
    .min(1, 'session_id must not be empty')
    .max(200, 'session_id must be at most 200 characters')
    .describe('The id of one of your sessions (`list_sessions` lists them).'),
});

/**
 * A session as `GET /v1/sessions/{id}` shows it (`SessionView`): the plan, each step's state and
 * result, approvals, questions, reviews, the answer and the run's files. Only the fields every
 * session has are spelled out; the rest are as the REST API documents them.
 */
export const sessionViewOutputSchema = z.looseObject({
  id: z.string(),
  status: sessionStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  request: z.string(),
  plan: z.unknown(),
  nodes: z.record(z.string(), z.unknown()),
  result: z.unknown(),
  error: z.string().nullable(),
});
