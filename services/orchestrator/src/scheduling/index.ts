/** Fair admission of runs: at most so many execute at once, the others wait in per-tenant queues served in turn. */
export { RunQueueFullError, RunScheduler } from './run-scheduler';
export type {
  Admission,
  RunReservation,
  RunSchedulerOptions,
  RunTicket,
  SchedulerSnapshot,
} from './run-scheduler';
export { createRunAdmission } from './run-admission';
export type { RunAdmission } from './run-admission';
