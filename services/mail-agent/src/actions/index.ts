/** Choosing what a task asks of the mail agent (LLM or offline rules) and summarising what it found. */
export { chooseActionWithRules } from './choose-action-with-rules';
export type { ActionRequest } from './choose-action-with-rules';
export { CHOOSE_INSTRUCTIONS, createActionChooser } from './create-action-chooser';
export type {
  ActionChooser,
  ChosenAction,
  CreateActionChooserOptions,
  LlmSettings,
} from './create-action-chooser';
export { actionCriteria, MAIL_ACTIONS, mailActionSchema } from './mail-action';
export type { MailAction, MailActionName } from './mail-action';
export {
  listMessages,
  streamSummary,
  SUMMARY_INSTRUCTIONS,
  summariseMessages,
} from './summarise-messages';
export type { SummariseMessagesOptions } from './summarise-messages';
