import {
  approvalDecisionSchema,
  dataPart,
  findData,
  nodeInputSchema,
  partsText,
  RESULT_ARTIFACT_NAME,
  textPart,
  type ApprovalDecision,
  type Message,
  type NodeInput,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { ConfigError, NotFoundError, ValidationError, toFleetError } from '@fleet/errors';
import { getActiveSpan, setSessionAttributes } from '@fleet/telemetry';
import {
  actionCriteria,
  listMessages,
  summariseMessages,
  type ActionChooser,
  type ActionRequest,
  type ChosenAction,
  type LlmSettings,
  type MailAction,
} from '../actions';
import { MAILBOX_HINT } from '../config';
import {
  bareAddress,
  composeMail,
  renderMailPreview,
  type FullMessage,
  type MailAccount,
  type MailSender,
  type Mailbox,
  type MessageSummary,
  type OutgoingMail,
} from '../mail';
import {
  pendingMailSchema,
  type DraftResultData,
  type ErrorData,
  type PendingMail,
  type ReadResultData,
  type SearchResultData,
  type SendResultData,
} from './result-data';

/** Options for {@link createMailAgent}. */
export interface CreateMailAgentOptions {
  /** The configured mailbox; undefined fails every task with how to configure one. */
  account: MailAccount | undefined;
  /** The IMAP side (search, read, drafts, Sent copies); undefined without MAIL_IMAP_HOST. */
  mailbox: Mailbox | undefined;
  /** The SMTP side (send, reply); undefined without MAIL_SMTP_HOST. */
  sender: MailSender | undefined;
  chooser: ActionChooser;
  /** For summaries; undefined in offline mode (summaries are lists). */
  llm: LlmSettings | undefined;
  /** Most messages a search reports. @default 10 */
  searchLimit?: number;
  /** How long an approval to send stays valid. @default 3600000 (1 hour) */
  approvalTtlMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  logger?: { warn(object: object, message?: string): void };
}

type Events = AsyncGenerator<AgentEvent, void, undefined>;

/** The claim key of the one send a task may make (`AgentContext.claimOnce`). */
export const SEND_CLAIM_KEY = 'send-mail';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function failed(error: unknown): AgentEvent {
  const fleetError = toFleetError(error);
  const data: ErrorData = {
    error: {
      code: fleetError.code,
      message: fleetError.message,
      ...(fleetError.details === undefined ? {} : { details: fleetError.details }),
    },
  };
  return {
    type: 'status',
    state: 'TASK_STATE_FAILED',
    message: [textPart(fleetError.message), dataPart(data)],
  };
}

function rejected(reason: string, data?: unknown): AgentEvent {
  return {
    type: 'status',
    state: 'TASK_STATE_REJECTED',
    message: data === undefined ? reason : [textPart(reason), dataPart(data)],
  };
}

function result(text: string, data: unknown): AgentEvent {
  return {
    type: 'artifact',
    artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(text), dataPart(data)] },
    lastChunk: true,
  };
}

function completed(message: string): AgentEvent {
  return { type: 'status', state: 'TASK_STATE_COMPLETED', message };
}

function working(message: string): AgentEvent {
  return { type: 'status', state: 'TASK_STATE_WORKING', message };
}

function chosenData(chosen: ChosenAction): Pick<SearchResultData, 'chosenBy' | 'llmError'> {
  return {
    chosenBy: chosen.chosenBy,
    ...(chosen.llmError === undefined ? {} : { llmError: chosen.llmError }),
  };
}

function sourceOf(message: MessageSummary): { title: string; snippet?: string } {
  const date = message.date?.slice(0, 10);
  return {
    title: `${message.subject || '(no subject)'} — ${message.from || 'unknown sender'}${date === undefined ? '' : `, ${date}`}`,
    ...(message.snippet === '' ? {} : { snippet: message.snippet }),
  };
}

/** Earlier steps' answers, for the action choice and mail bodies. Failed steps are left out. */
function dependencyContext(node: NodeInput['fleet'] | undefined): ActionRequest['context'] {
  if (node === undefined) return [];
  return Object.entries(node.dependencyOutputs).flatMap(([nodeId, output]) =>
    output.partial === true || output.summary.trim() === ''
      ? []
      : [{ label: `${nodeId} (${output.agent})`, summary: output.summary }],
  );
}

/** The message's task and node input, from the first user message of the task. */
function originalRequest(message: Message): { task: string; node: NodeInput['fleet'] | undefined } {
  return {
    task: partsText(message.parts).trim(),
    node: findData(message.parts, nodeInputSchema)?.fleet,
  };
}

/** The newest mail waiting for approval, from the task's history (the AUTH_REQUIRED message). */
function findPendingMail(context: AgentContext): PendingMail | undefined {
  const messages = [...(context.task.history ?? [])];
  if (context.task.status.message !== undefined) messages.push(context.task.status.message);
  for (const message of messages.reverse()) {
    if (message.role !== 'ROLE_AGENT') continue;
    const pending = findData(message.parts, pendingMailSchema);
    if (pending !== undefined) return pending.pendingMail;
  }
  return undefined;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Every recipient must be an address (or `Name <address>`): nothing is guessed. */
function checkAddresses(addresses: readonly string[]): void {
  const bad = addresses.filter((address) => !ADDRESS.test(bareAddress(address)));
  if (bad.length > 0) {
    throw new ValidationError(
      `Not an e-mail address: ${bad.map((address) => `"${address}"`).join(', ')}. Give the recipients' addresses.`,
    );
  }
}

function replySubject(subject: string): string {
  return /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`;
}

function renderMessage(message: FullMessage): string {
  return [
    `From: ${message.from}`,
    `To: ${message.to.join(', ')}`,
    ...(message.cc.length === 0 ? [] : [`Cc: ${message.cc.join(', ')}`]),
    `Date: ${message.date ?? 'unknown'}`,
    `Subject: ${message.subject}`,
    '',
    message.text,
  ].join('\n');
}

function sameMail(a: OutgoingMail, b: OutgoingMail): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The mail agent (docs/architecture.md §4): one task per message, its action chosen from the task
 * (LLM structured output, or the offline rules).
 *
 * - `search` (inbox, sent or drafts, server-side IMAP SEARCH) and `read` answer with a summary
 *   citing the messages as `[n]` and the messages in the data part.
 * - `draft` saves the mail in Drafts: nothing is sent.
 * - `send` and `reply` stop at TASK_STATE_AUTH_REQUIRED with the full mail as the approval's
 *   preview (and as a `{ pendingMail }` data part, so the continuation sends exactly that). Deny
 *   ends the task REJECTED and sends nothing; approve claims the send (`claimOnce`) and then sends
 *   it over SMTP, so a repeated approval or a restarted replica never sends twice; a copy is
 *   filed in Sent when MAIL_SAVE_SENT_COPY. Approval with instructions rewrites the mail and asks
 *   again, since the person has not seen the new one.
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
  function needMailbox(action: string): Mailbox {
    if (mailbox === undefined) {
      throw new ConfigError(
        `The mail agent cannot ${action}: no IMAP server is configured (MAIL_IMAP_HOST). ${MAILBOX_HINT}`,
      );
    }
    return mailbox;
  }

  function needSender(action: string): MailSender {
    if (sender === undefined) {
      throw new ConfigError(
        `The mail agent cannot ${action}: no SMTP server is configured (MAIL_SMTP_HOST). ${MAILBOX_HINT}`,
      );
    }
    return sender;
  }

  /** The message a read or reply is about: by uid, else the newest match of the criteria. */
  async function findTarget(action: MailAction): Promise<FullMessage> {
    const imap = needMailbox(action.action === 'read' ? 'read mail' : 'find the mail to reply to');
    let uid = action.uid;
    if (uid === undefined) {
      const criteria = actionCriteria(action);
      const found = await imap.search({ folder: action.folder, criteria, limit: 1 });
      uid = found.messages[0]?.uid;
      if (uid === undefined) {
        throw new NotFoundError(
          `No message in ${found.mailbox} matches ${JSON.stringify(criteria)}; nothing to ${action.action === 'read' ? 'read' : 'reply to'}.`,
          { details: { mailbox: found.mailbox, criteria } },
        );
      }
    }
    const message = await imap.read({ folder: action.folder, uid });
    if (message === undefined) {
      throw new NotFoundError(
        `There is no message with uid ${uid} in the ${action.folder} folder.`,
      );
    }
    return message;
  }

  function requireBody(action: MailAction, what: string): string {
    const body = action.body?.trim();
    if (body === undefined || body === '') {
      throw new ValidationError(
        `The task does not say what the ${what} should say: add the text (e.g. "… saying <text>"), or run it after a step whose result it should carry.`,
      );
    }
    return body;
  }

  /** The mail a send, draft or reply action writes. */
  async function buildMail(
    action: MailAction,
    from: string,
  ): Promise<{ mail: OutgoingMail; target?: FullMessage }> {
    if (action.action === 'reply') {
      const target = await findTarget(action);
      const body = requireBody(action, 'reply');
      const own = bareAddress(from).toLowerCase();
      const to =
        action.folder === 'sent' ? target.to : [target.replyTo].filter((entry) => entry !== '');
      const others =
        action.replyAll === true
          ? [...target.to, ...target.cc].filter(
              (address) => bareAddress(address).toLowerCase() !== own && !to.includes(address),
            )
          : [];
      if (to.length === 0) {
        throw new ValidationError(`The message "${target.subject}" has no address to reply to.`);
      }
      checkAddresses(action.cc);
      const references = [
        ...target.references,
        ...(target.messageId === undefined ? [] : [target.messageId]),
      ];
      return {
        target,
        mail: {
          from,
          to,
          cc: [...others, ...action.cc],
          subject: replySubject(target.subject),
          text: body,
          ...(target.messageId === undefined ? {} : { inReplyTo: target.messageId }),
          references,
        },
      };
    }
    if (action.to.length === 0) {
      throw new ValidationError(
        'The task names no recipient: give an address (e.g. "send … to name@example.com").',
      );
    }
    checkAddresses([...action.to, ...action.cc]);
    const body = requireBody(action, 'mail');
    return {
      mail: {
        from,
        to: action.to,
        cc: action.cc,
        subject: action.mailSubject?.trim() || body.split('\n')[0]?.slice(0, 78) || '(no subject)',
        text: body,
        references: [],
      },
    };
  }

  async function* runSearch(task: string, chosen: ChosenAction, signal: AbortSignal): Events {
    const { action } = chosen;
    const imap = needMailbox('search mail');
    const criteria = actionCriteria(action);
    yield working(`Searching ${action.folder} for ${JSON.stringify(criteria)}…`);
    const found = await imap.search({ folder: action.folder, criteria, limit: searchLimit });
    let text: string;
    let summarisedBy: SearchResultData['summarisedBy'] = 'list';
    if (found.messages.length === 0) {
      text = `No message in ${found.mailbox} matches ${JSON.stringify(criteria)}.`;
    } else {
      const heading = `Found ${plural(found.total, 'message')} in ${found.mailbox}${found.total > found.messages.length ? ` (the newest ${found.messages.length} shown)` : ''}:`;
      text = `${heading}\n${listMessages(found.messages)}`;
      if (llm !== undefined) {
        try {
          text = await summariseMessages({ llm, task, messages: found.messages, signal });
          summarisedBy = 'llm';
        } catch (error) {
          if (signal.aborted) throw error;
          logger?.warn({ err: error }, 'summarising the messages failed; listing them');
        }
      }
    }
    const data: SearchResultData = {
      action: 'search',
      folder: found.folder,
      mailbox: found.mailbox,
      criteria,
      total: found.total,
      messages: found.messages,
      sources: found.messages.map(sourceOf),
      summarisedBy,
      ...chosenData(chosen),
    };
    yield result(text, data);
    yield completed(`Found ${plural(found.total, 'message')} in ${found.mailbox}.`);
  }

  async function* runRead(action: MailAction, chosen: ChosenAction): Events {
    yield working('Reading the message…');
    const message = await findTarget(action);
    const data: ReadResultData = {
      action: 'read',
      message,
      sources: [sourceOf(message)],
      ...chosenData(chosen),
    };
    yield result(`[1] ${renderMessage(message)}`, data);
    yield completed(`Read "${message.subject}" from ${message.from}.`);
  }

  async function* runDraft(action: MailAction, chosen: ChosenAction, from: string): Events {
    const imap = needMailbox('save a draft');
    const { mail } = await buildMail(action, from);
    yield working('Saving the draft…');
    const composed = await composeMail(mail, now());
    const saved = await imap.saveDraft(composed.raw);
    const data: DraftResultData = {
      action: 'draft',
      mail,
      mailbox: saved.mailbox,
      ...(saved.uid === undefined ? {} : { uid: saved.uid }),
      messageId: composed.messageId,
      ...chosenData(chosen),
    };
    yield result(
      `Saved a draft in ${saved.mailbox} (nothing was sent):\n\n${renderMailPreview(mail)}`,
      data,
    );
    yield completed(`Saved the draft "${mail.subject}" in ${saved.mailbox}.`);
  }

  /** Stops for approval with the full mail. */
  function askApproval(pending: PendingMail): AgentEvent {
    const { mail } = pending;
    const verb = pending.action === 'reply' ? 'Reply' : 'Send';
    const summary = `${verb} "${mail.subject}" to ${[...mail.to, ...mail.cc].join(', ')}`;
    const preview = renderMailPreview(mail);
    return {
      type: 'status',
      state: 'TASK_STATE_AUTH_REQUIRED',
      message: [
        textPart(`Approval needed: ${summary}.\n\n${preview}`),
        dataPart({
          approval: {
            action: pending.action === 'reply' ? 'reply-mail' : 'send-mail',
            summary,
            preview,
            risk: pending.action === 'reply' ? 'medium' : 'high',
            expiresAt: pending.expiresAt,
          },
        }),
        dataPart({ pendingMail: pending }),
      ],
    };
  }

  async function* prepareSend(task: string, action: MailAction, from: string): Events {
    const verb = action.action === 'reply' ? 'reply' : 'send mail';
    needSender(verb);
    yield working(action.action === 'reply' ? 'Writing the reply…' : 'Writing the mail…');
    const { mail } = await buildMail(action, from);
    const pending: PendingMail = {
      action: action.action === 'reply' ? 'reply' : 'send',
      mail,
      task,
      expiresAt: new Date(now().getTime() + approvalTtlMs).toISOString(),
    };
    yield askApproval(pending);
  }

  /** The approved send: claimed first, so it happens at most once for the task. */
  async function* send(context: AgentContext, pending: PendingMail): Events {
    const smtp = needSender(pending.action === 'reply' ? 'reply' : 'send mail');
    const { mail } = pending;
    if (!(await context.claimOnce(SEND_CLAIM_KEY))) {
      const data: SendResultData = {
        action: pending.action,
        mail,
        sent: false,
        accepted: [],
        rejected: [],
      };
      yield result(
        `This mail ("${mail.subject}" to ${mail.to.join(', ')}) was already sent (or attempted) by an earlier turn of this task; it was not sent again.`,
        data,
      );
      yield completed('Already sent; not sent again.');
      return;
    }
    yield working(`Sending "${mail.subject}"…`);
    const composed = await composeMail(mail, now());
    const receipt = await smtp.send(composed);
    let savedTo: SendResultData['savedTo'];
    let saveError: string | undefined;
    if (account?.saveSentCopy === true && mailbox !== undefined) {
      try {
        savedTo = await mailbox.saveSent(composed.raw);
      } catch (error) {
        saveError = error instanceof Error ? error.message : String(error);
        logger?.warn({ err: error }, 'the mail was sent but filing a copy in Sent failed');
      }
    }
    const data: SendResultData = {
      action: pending.action,
      mail,
      sent: true,
      messageId: receipt.messageId,
      accepted: receipt.accepted,
      rejected: receipt.rejected,
      ...(savedTo === undefined
        ? {}
        : {
            savedTo: {
              mailbox: savedTo.mailbox,
              ...(savedTo.uid === undefined ? {} : { uid: savedTo.uid }),
            },
          }),
      ...(saveError === undefined ? {} : { saveError }),
    };
    const lines = [
      `${pending.action === 'reply' ? 'Replied' : 'Sent'} "${mail.subject}" to ${receipt.accepted.join(', ') || mail.to.join(', ')} (Message-ID ${receipt.messageId}).`,
    ];
    if (receipt.rejected.length > 0)
      lines.push(`The server refused: ${receipt.rejected.join(', ')}.`);
    if (savedTo !== undefined) lines.push(`A copy is in ${savedTo.mailbox}.`);
    if (saveError !== undefined) lines.push(`Filing a copy in Sent failed: ${saveError}`);
    yield result(lines.join(' '), data);
    yield completed(lines[0] ?? 'Sent.');
  }

  async function* continueAfterApproval(context: AgentContext, decision: ApprovalDecision): Events {
    const pending = findPendingMail(context);
    if (pending === undefined) {
      yield rejected('This task has no mail waiting for approval; start a new task.');
      return;
    }
    if (decision.decision === 'deny') {
      const reason = decision.instructions?.trim() || 'no reason given';
      yield rejected(`Denied: ${reason}. The mail was not sent.`, {
        denied: true,
        mail: pending.mail,
      });
      return;
    }
    if (now().getTime() > Date.parse(pending.expiresAt)) {
      yield rejected(
        `The approval arrived after it expired (${pending.expiresAt}); the mail was not sent. Start the task again.`,
        { expired: true, mail: pending.mail },
      );
      return;
    }
    const instructions = decision.instructions?.trim();
    if (instructions !== undefined && instructions !== '') {
      // The person asked for changes: write the mail again and show it, since they have not seen it.
      const first = context.task.history?.find((message) => message.role === 'ROLE_USER');
      const node = first === undefined ? undefined : originalRequest(first).node;
      const task =
        decision.effectiveTask ??
        `${pending.task}\n\nAdditional instructions from the approver: ${instructions}`;
      const chosen = await chooser.choose({
        task,
        context: dependencyContext(node),
        now: now(),
        signal: context.signal,
      });
      const action: MailAction = {
        ...chosen.action,
        action: pending.action,
      };
      const { mail } = await buildMail(action, pending.mail.from);
      if (!sameMail(mail, pending.mail)) {
        yield askApproval({
          ...pending,
          mail,
          task,
          expiresAt: new Date(now().getTime() + approvalTtlMs).toISOString(),
        });
        return;
      }
    }
    yield* send(context, pending);
  }

  return async function* mailAgent(context: AgentContext): Events {
    try {
      if (context.isContinuation) {
        const decision = findData(context.message.parts, approvalDecisionSchema);
        if (decision === undefined) {
          yield rejected(
            'A continuation of a mail task needs the data part { approvalDecision: { decision: "approve" | "deny", instructions? } }.',
          );
          return;
        }
        yield* continueAfterApproval(context, decision.approvalDecision);
        return;
      }
      const { task, node } = originalRequest(context.message);
      if (node !== undefined) setSessionAttributes(getActiveSpan(), { sessionId: node.sessionId });
      if (task === '') {
        yield rejected('The mail agent needs a task in a text part (e.g. "find mails from bob").');
        return;
      }
      if (account === undefined) throw new ConfigError(MAILBOX_HINT);
      const chosen = await chooser.choose({
        task,
        context: dependencyContext(node),
        now: now(),
        skill: node?.skill,
        signal: context.signal,
      });
      const { action } = chosen;
      switch (action.action) {
        case 'search':
          yield* runSearch(task, chosen, context.signal);
          return;
        case 'read':
          yield* runRead(action, chosen);
          return;
        case 'draft':
          yield* runDraft(action, chosen, account.from);
          return;
        case 'send':
        case 'reply':
          yield* prepareSend(task, action, account.from);
          return;
      }
    } catch (error) {
      if (context.signal.aborted) throw error;
      yield failed(error);
    }
  };
}
