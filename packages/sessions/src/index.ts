/**
 * Durable workflow sessions and approvals in Redis (docs/architecture.md §3, §6): one orchestrated
 * run's state, changed only under a Redlock lock on its id, with approval decisions, session events
 * across replicas, and leases for who runs and who streams a session.
 */
export { createSessionStore } from './session-store';
export type {
  AnswerInputInput,
  DecideApprovalInput,
  DecideReviewInput,
  ExpiredApproval,
  ListSessionsOptions,
  NewApproval,
  NewSession,
  SessionEventListener,
  SessionStore,
  SessionStoreOptions,
  Unsubscribe,
  UpdateSessionOptions,
} from './session-store';
export type { Lease } from './lease';
export { sessionKeys, type SessionKeys } from './internal/session-keys';
export { migrateSessionKeys } from './migrate-session-keys';
export type {
  MigrateSessionKeysOptions,
  MigrationProgress,
  MigrationResult,
  OldSessionLayout,
} from './migrate-session-keys';
export {
  approvalKindSchema,
  approvalSchema,
  isActiveStatus,
  isAnswered,
  latestReview,
  sessionEventSchema,
  syncWaitingStatus,
  sessionNodeSchema,
  sessionResultSchema,
  sessionSchema,
  sessionStatusSchema,
} from './session-schema';
export type {
  Approval,
  ApprovalKind,
  Session,
  SessionEvent,
  SessionNode,
  SessionResult,
  SessionStatus,
} from './session-schema';
