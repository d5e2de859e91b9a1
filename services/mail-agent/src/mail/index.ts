/** The mailbox over IMAP and SMTP: the account, message shapes, composing, searching, sending. */
export { bareAddress, composeMail, renderMailPreview } from './compose-mail';
export type { ComposedMail } from './compose-mail';
export { createImapMailbox, imapFailure } from './create-imap-mailbox';
export { createMailClients } from './create-mail-clients';
export type { MailClients } from './create-mail-clients';
export type { Mailbox, SearchResult } from './create-imap-mailbox';
export { createSmtpSender, smtpFailure } from './create-smtp-sender';
export type { MailSender, SendReceipt } from './create-smtp-sender';
export type { MailAccount, MailAuth, MailServer } from './mail-account';
export {
  fullMessageSchema,
  mailFolderSchema,
  messageSummarySchema,
  outgoingMailSchema,
  searchCriteriaSchema,
} from './mail-message';
export type {
  FullMessage,
  MailFolder,
  MessageSummary,
  OutgoingMail,
  SearchCriteria,
} from './mail-message';
