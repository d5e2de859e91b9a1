/**
 * Durable workflow sessions and approvals in Redis (docs/architecture.md §3, §6): one orchestrated
 * run's state, changed only under a Redlock lock on its id, with approval decisions, session events
 * across replicas, and leases for who runs and who streams a session.
 *
 * Redis Cluster: the store takes a single Redis or an ioredis `Cluster`. Every key of one session
 * carries the hash tag `{<id>}` (`fleet:{<id>}:session`, `…:lock`, `…:lease:runner`,
 * `…:lease:attach`, channel `…:events`), a tenant's index `{tenant:<tenant>}`, the fleet-wide
 * indexes `{sessions}` ({@link sessionKeys}); no script spans two slots, and the indexes are kept
 * around each write so that a crash leaves an entry too many, never one missing.
 *
 * Migration: keys written before (`fleet:session:<id>`, `fleet:sessions:tenant:<tenant>`,
 * `fleet:sessions:pending-approvals`, `fleet:sessions:active`, `fleet:lock:session:<id>`,
 * `fleet:lease:session:runner|attach:<id>`) are not read any more: with the fleet stopped, run
 * {@link migrateSessionKeys} once on the single Redis (idempotent) before starting the new version
 * or moving the data to a Cluster.
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
