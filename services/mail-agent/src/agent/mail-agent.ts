import { approvalDecisionSchema, findData } from '@fleet/a2a';
import type { AgentContext, AgentExecute } from '@fleet/a2a/server';
import { dependencyContext, failed, rejected, type AgentEvents } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import { MAILBOX_HINT } from '../config';
import { continueAfterApproval } from './continue-after-approval';
import type { MailAgentSettings } from './mail-agent-settings';
import { originalRequest } from './original-request';
import { prepareSend } from './prepare-send';
import { runDraft } from './run-draft';
import { runRead } from './run-read';
import { runSearch } from './run-search';

/** Options for {@link createMailAgent}: its settings, the optional ones defaulted. */
export interface CreateMailAgentOptions extends Pick<
  MailAgentSettings,
  'account' | 'mailbox' | 'sender' | 'chooser' | 'llm'
> {
  /** Most messages a search reports. @default 10 */
  searchLimit?: number;
  /** How long an approval to send stays valid. @default 3600000 (1 hour) */
  approvalTtlMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  logger?: NonNullable<MailAgentSettings['logger']>;
}

/** A continuation: the approval decision on the mail waiting for it. */
async function* continueTask(settings: MailAgentSettings, context: AgentContext): AgentEvents {
  const decision = findData(context.message.parts, approvalDecisionSchema);
  if (decision === undefined) {
    yield rejected(
      'A continuation of a mail task needs the data part { approvalDecision: { decision: "approve" | "deny", instructions? } }.',
    );
    return;
  }
  yield* continueAfterApproval(settings, context, decision.approvalDecision);
}

/** A new task: choose its action and run it. */
async function* startTask(settings: MailAgentSettings, context: AgentContext): AgentEvents {
  const { task, node } = originalRequest(context.message);
  if (node !== undefined) setSessionAttributes(getActiveSpan(), { sessionId: node.sessionId });
  if (task === '') {
    yield rejected('The mail agent needs a task in a text part (e.g. "find mails from bob").');
    return;
  }
  const { account } = settings;
  if (account === undefined) throw new ConfigError(MAILBOX_HINT);
  const chosen = await settings.chooser.choose({
    task,
    context: dependencyContext(node),
    now: settings.now(),
    skill: node?.skill,
    signal: context.signal,
  });
  const { action } = chosen;
  switch (action.action) {
    case 'search':
      yield* runSearch(settings, { task, chosen, signal: context.signal });
      return;
    case 'read':
      yield* runRead(settings, chosen);
      return;
    case 'draft':
      yield* runDraft(settings, chosen, account.from);
      return;
    case 'send':
    case 'reply':
      yield* prepareSend(settings, { task, action, from: account.from });
      return;
  }
}

/**
 * The mail agent (docs/architecture.md §4): one task per message, its action chosen from the task
 * (LLM structured output, or the offline rules), each action in its own module.
 *
 * - `search` (inbox, sent or drafts, server-side IMAP SEARCH; `runSearch`) and `read`
 *   (`runRead`) answer with a summary citing the messages as `[n]` and the messages in the data
 *   part.
 * - `draft` saves the mail in Drafts: nothing is sent (`runDraft`).
 * - `send` and `reply` stop at TASK_STATE_AUTH_REQUIRED with the full mail as the approval's
 *   preview (and as a `{ pendingMail }` data part, so the continuation sends exactly that;
 *   `prepareSend`). Deny ends the task REJECTED and sends nothing; approve claims the send
 *   (`claimOnce`) and then sends it over SMTP, so a repeated approval or a restarted replica never
 *   sends twice; a copy is filed in Sent when MAIL_SAVE_SENT_COPY (`sendApproved`). Approval with
 *   instructions rewrites the mail and asks again, since the person has not seen the new one
 *   (`continueAfterApproval`).
 *
 * Without a mailbox every task fails with how to configure one. Cancellation stops LLM calls.
 *
 * @example
 * const execute = createMailAgent({ account, mailbox, sender, chooser, llm });
 */
export function createMailAgent({
  account,
  mailbox,
  sender,
  chooser,
  llm,
  searchLimit = 10,
  approvalTtlMs = 3_600_000,
  now = () => new Date(),
  logger,
}: CreateMailAgentOptions): AgentExecute {
  const settings: MailAgentSettings = {
    account,
    mailbox,
    sender,
    chooser,
    llm,
    searchLimit,
    approvalTtlMs,
    now,
    logger,
  };
  return async function* mailAgent(context: AgentContext): AgentEvents {
    try {
      if (context.isContinuation) yield* continueTask(settings, context);
      else yield* startTask(settings, context);
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error);
    }
  };
}
