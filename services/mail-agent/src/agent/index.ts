/** The mail agent as an A2A agent: its card, execute function, handler and result shapes. */
export { createMailHandler } from './create-mail-handler';
export type { CreateMailHandlerOptions } from './create-mail-handler';
export { createMailAgent } from './mail-agent';
export { mailAvailability } from './mail-availability';
export type { CreateMailAgentOptions } from './mail-agent';
export { SEND_CLAIM_KEY } from './send-approved';
export { buildMailCard, MAIL_AGENT_VERSION, MAIL_SKILLS } from './mail-card';
export type { BuildMailCardOptions, MailSkill } from './mail-card';
export {
  draftResultDataSchema,
  mailSourceSchema,
  pendingMailSchema,
  readResultDataSchema,
  searchResultDataSchema,
  sendResultDataSchema,
} from './result-data';
export type {
  DraftResultData,
  PendingMail,
  ReadResultData,
  SearchResultData,
  SendResultData,
} from './result-data';
