/** Test support: a dovecot IMAP server of its own, a recording SMTP server, mailbox seeding. */
export { DOVECOT_MISSING, startDovecot } from './start-dovecot';
export type { DovecotUser, RunningDovecot, StartDovecotOptions } from './start-dovecot';
export { startRecordingSmtp } from './start-recording-smtp';
export type {
  RecordedMail,
  RecordingSmtp,
  StartRecordingSmtpOptions,
} from './start-recording-smtp';
export { listMailbox, seedMailbox } from './seed-mailbox';
export type { SeedMailboxOptions, SeedMessage, StoredMessage } from './seed-mailbox';
