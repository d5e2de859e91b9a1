/**
 * Durable sessions at the gateway: the sessions, approvals and questions API, and resume with
 * `X-Session-ID`.
 */
export {
  answerableInput,
  answerTextSchema,
  inputAnswerBodySchema,
  MAX_ANSWER_CHARS,
  oldestAnswerableInput,
} from './answer-input';
export { cancelSession, CANCELED_INSTRUCTIONS } from './cancel-session';
export { ATTACH_TTL_MS, ATTACH_WAIT_MS, holdAttachLease } from './hold-attach-lease';
export type { HeldAttachLease, HoldAttachLeaseOptions } from './hold-attach-lease';
export type { CancelSessionOptions } from './cancel-session';
export { ENDED_STATUSES, resumeInBackground } from './resume-in-background';
export type { BackgroundResume, ResumeInBackgroundOptions } from './resume-in-background';
export { resumeMessage } from './resume-message';
export { resumeSession, type QuestionAnswered } from './resume-session';
export type { ResumeSessionOptions } from './resume-session';
export { isRunnerLive, whileRunnerIdle } from './runner-probe';
export type { RunnerProbe } from './runner-probe';
export { followSession, storedAnswerEvents } from './session-events';
export type { FollowSessionOptions } from './session-events';
export {
  approvalViews,
  inputViews,
  reviewViews,
  sessionRecords,
  storedRunResult,
  toApprovalView,
  toInputView,
  toReviewView,
  toSessionSummary,
  toSessionView,
} from './session-views';
export type {
  ApprovalView,
  InputView,
  RecordKind,
  ReviewView,
  SessionNodeView,
  SessionSummary,
  SessionView,
} from './session-views';
export { approvalDecisionBodySchema, sessionsRouter } from './sessions-router';
export type { SessionsRouterOptions } from './sessions-router';
