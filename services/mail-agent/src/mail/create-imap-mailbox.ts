import { ImapFlow, type FetchMessageObject, type ListResponse, type SearchObject } from 'imapflow';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import {
  ConnectionError,
  FleetError,
  isConnectFailure,
  networkErrorCode,
  UpstreamError,
  ValidationError,
} from '@fleet/errors';
import { Attributes, setSpanOutput, SpanKind, withSpan } from '@fleet/telemetry';
import type { MailAccount, MailServer } from './mail-account';
import type { FullMessage, MailFolder, MessageSummary, SearchCriteria } from './mail-message';

/** What a search found. */
export interface SearchResult {
  folder: MailFolder;
  mailbox: string;
  /** How many messages matched (more than `messages` when over the limit). */
  total: number;
  /** The newest matches, newest first. */
  messages: MessageSummary[];
}

/** The IMAP side of the mailbox: server-side search, read, and filing drafts and sent mail. */
export interface Mailbox {
  search(options: {
    folder: MailFolder;
    criteria: SearchCriteria;
    limit: number;
  }): Promise<SearchResult>;
  /** The message, or undefined when the folder has no such UID. */
  read(options: { folder: MailFolder; uid: number }): Promise<FullMessage | undefined>;
  /** Files a draft (flags \Draft and \Seen) in the Drafts mailbox. */
  saveDraft(raw: Buffer): Promise<{ mailbox: string; uid: number | undefined }>;
  /** Files a copy of a sent mail (flag \Seen) in the Sent mailbox. */
  saveSent(raw: Buffer): Promise<{ mailbox: string; uid: number | undefined }>;
}

const SNIPPET_LENGTH = 240;
/** Bytes of each message fetched for a search result's snippet. */
const SUMMARY_BYTES = 64 * 1024;

const SPECIAL_USE: Record<Exclude<MailFolder, 'inbox'>, string> = {
  sent: '\\Sent',
  drafts: '\\Drafts',
};

const FALLBACK_NAME: Record<Exclude<MailFolder, 'inbox'>, string> = {
  sent: 'Sent',
  drafts: 'Drafts',
};

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (field === undefined) return [];
  const objects = Array.isArray(field) ? field : [field];
  return objects.flatMap((object) =>
    object.value.flatMap((entry) => {
      const members = entry.group ?? [entry];
      return members.flatMap((member) => {
        if (member.address === undefined || member.address === '') return [];
        return [member.name ? `${member.name} <${member.address}>` : member.address];
      });
    }),
  );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function bodyText(parsed: ParsedMail): string {
  if (parsed.text !== undefined && parsed.text.trim() !== '') return parsed.text.trim();
  if (typeof parsed.html === 'string') return oneLine(parsed.html.replace(/<[^>]*>/g, ' '));
  return '';
}

function references(parsed: ParsedMail): string[] {
  const value = parsed.references;
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(/\s+/)).filter((entry) => entry !== '');
}

function toSummary(
  parsed: ParsedMail,
  where: { folder: MailFolder; mailbox: string; uid: number; internalDate?: Date | undefined },
): MessageSummary {
  const date = parsed.date ?? where.internalDate;
  const text = bodyText(parsed);
  return {
    folder: where.folder,
    mailbox: where.mailbox,
    uid: where.uid,
    ...(parsed.messageId === undefined ? {} : { messageId: parsed.messageId }),
    from: addresses(parsed.from)[0] ?? '',
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    ...(date === undefined || Number.isNaN(date.getTime()) ? {} : { date: date.toISOString() }),
    snippet: oneLine(text).slice(0, SNIPPET_LENGTH),
  };
}

function searchDate(name: string, value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new ValidationError(`The search date ${name} "${value}" is not a date (YYYY-MM-DD).`, {
      param: name,
    });
  }
  return date;
}

function toSearchObject(criteria: SearchCriteria): SearchObject {
  const query: SearchObject = {};
  if (criteria.from !== undefined) query.from = criteria.from;
  if (criteria.to !== undefined) query.to = criteria.to;
  if (criteria.subject !== undefined) query.subject = criteria.subject;
  if (criteria.text !== undefined) query.text = criteria.text;
  if (criteria.since !== undefined) query.since = searchDate('since', criteria.since);
  if (criteria.before !== undefined) query.before = searchDate('before', criteria.before);
  if (criteria.unseen === true) query.seen = false;
  if (Object.keys(query).length === 0) query.all = true;
  return query;
}

/** The socket codes that mean the IMAP server cannot be reached (imapflow's timeouts too). */
const IMAP_UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
]);

/**
 * A failure of the IMAP server as a fleet error that says which server and what to check:
 * `ConnectionError` when it cannot be reached, `UpstreamError` (401) for a refused login, else
 * `UpstreamError` (502). Fleet errors pass through.
 *
 * @example
 * throw imapFailure(account.imap, error);
 */
export function imapFailure(server: MailServer, error: unknown): Error {
  if (FleetError.isInstance(error)) return error;
  const responseText = (error as { responseText?: unknown } | null)?.responseText;
  const detail =
    typeof responseText === 'string' && responseText !== ''
      ? responseText
      : error instanceof Error
        ? error.message
        : String(error);
  const where = `The IMAP server ${server.host}:${server.port}`;
  if (isConnectFailure(error, { codes: IMAP_UNREACHABLE_CODES })) {
    return new ConnectionError(`${where} cannot be reached (${String(networkErrorCode(error))}).`, {
      cause: error,
    });
  }
  if ((error as { authenticationFailed?: unknown } | null)?.authenticationFailed === true) {
    return new UpstreamError(
      `${where} refused the login (${detail}). Check MAIL_USER and MAIL_PASSWORD or MAIL_OAUTH2_ACCESS_TOKEN.`,
      { cause: error, status: 401 },
    );
  }
  return new UpstreamError(`${where} failed: ${detail}`, { cause: error, status: 502 });
}

/** The account with its IMAP server. */
type ImapAccount = MailAccount & { imap: MailServer };

/**
 * Runs `work` on a connection of its own (login with a password, or XOAUTH2 with the access
 * token) and logs out after; failures become {@link imapFailure}s.
 */
async function withClient<T>(
  account: ImapAccount,
  work: (client: ImapFlow) => Promise<T>,
): Promise<T> {
  const server = account.imap;
  const client = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: server.secure,
    auth:
      account.auth.kind === 'oauth2'
        ? { user: account.user, accessToken: account.auth.accessToken }
        : { user: account.user, pass: account.auth.password },
    logger: false,
    tls: { rejectUnauthorized: account.tlsRejectUnauthorized },
    connectionTimeout: account.timeoutMs,
    greetingTimeout: account.timeoutMs,
    socketTimeout: account.timeoutMs,
  });
  // A dropped connection is reported by the command that was waiting; without a listener the
  // error event would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } catch (error) {
    throw imapFailure(server, error);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** The IMAP name of a folder: INBOX, the configured mailbox, the one marked special-use, or the usual name. */
async function mailboxFor(
  client: ImapFlow,
  account: MailAccount,
  folder: MailFolder,
): Promise<string> {
  if (folder === 'inbox') return 'INBOX';
  const configured = folder === 'sent' ? account.sentMailbox : account.draftsMailbox;
  if (configured !== undefined) return configured;
  const list: ListResponse[] = await client.list();
  const marked = list.find((entry) => entry.specialUse === SPECIAL_USE[folder]);
  if (marked !== undefined) return marked.path;
  const named = list.find(
    (entry) => entry.path.toLowerCase() === FALLBACK_NAME[folder].toLowerCase(),
  );
  return named?.path ?? FALLBACK_NAME[folder];
}

/** Runs `work` in a TOOL span named `name` (`imap.search`), its result as the span's output. */
function tool<T>(
  server: MailServer,
  { name, input }: { name: string; input: unknown },
  work: () => Promise<T>,
): Promise<T> {
  return withSpan(
    {
      name,
      kind: SpanKind.TOOL,
      input,
      attributes: {
        [Attributes.TOOL_NAME]: name,
        'mail.server': `${server.host}:${server.port}`,
      },
    },
    async (span) => {
      const result = await work();
      setSpanOutput(span, result);
      return result;
    },
  );
}

/** Runs `work` with the folder's mailbox selected read-only. */
async function inFolder<T>(
  client: ImapFlow,
  { account, folder }: { account: MailAccount; folder: MailFolder },
  work: (mailbox: string) => Promise<T>,
): Promise<T> {
  const mailbox = await mailboxFor(client, account, folder);
  const lock = await client.getMailboxLock(mailbox, { readOnly: true });
  try {
    return await work(mailbox);
  } finally {
    lock.release();
  }
}

/** When the server received the message, when it says so as a date. */
function internalDateOf(message: Pick<FetchMessageObject, 'internalDate'>): Date | undefined {
  return message.internalDate instanceof Date ? message.internalDate : undefined;
}

/** A server-side SEARCH of the folder: how many matched and the newest `limit`, summarised. */
function searchFolder(
  client: ImapFlow,
  account: MailAccount,
  { folder, criteria, limit }: Parameters<Mailbox['search']>[0],
): Promise<SearchResult> {
  return inFolder(client, { account, folder }, async (mailbox) => {
    const found = await client.search(toSearchObject(criteria), { uid: true });
    const uids = (Array.isArray(found) ? found : []).sort((a, b) => b - a);
    const newest = uids.slice(0, limit);
    const messages: MessageSummary[] = [];
    if (newest.length > 0) {
      for await (const message of client.fetch(
        newest.join(','),
        { uid: true, internalDate: true, source: { maxLength: SUMMARY_BYTES } },
        { uid: true },
      )) {
        if (message.source === undefined) continue;
        const parsed = await simpleParser(message.source);
        const internalDate = internalDateOf(message);
        messages.push(toSummary(parsed, { folder, mailbox, uid: message.uid, internalDate }));
      }
    }
    messages.sort((a, b) => b.uid - a.uid);
    return { folder, mailbox, total: uids.length, messages };
  });
}

/** One message in full, or undefined when the folder has no such UID. */
function readFolder(
  client: ImapFlow,
  account: MailAccount,
  { folder, uid }: Parameters<Mailbox['read']>[0],
): Promise<FullMessage | undefined> {
  return inFolder(client, { account, folder }, async (mailbox) => {
    const message = await client.fetchOne(
      String(uid),
      { uid: true, internalDate: true, source: true },
      { uid: true },
    );
    if (message === false || message.source === undefined) return undefined;
    const parsed = await simpleParser(message.source);
    const internalDate = internalDateOf(message);
    const summary = toSummary(parsed, { folder, mailbox, uid: message.uid, internalDate });
    const full: FullMessage = {
      ...summary,
      text: bodyText(parsed),
      replyTo: addresses(parsed.replyTo)[0] ?? summary.from,
      ...(parsed.inReplyTo === undefined ? {} : { inReplyTo: parsed.inReplyTo }),
      references: references(parsed),
    };
    return full;
  });
}

/**
 * The account's IMAP mailbox. Each call opens its own connection (login with a password, or
 * XOAUTH2 with the access token), does its work and logs out, so nothing stays open between tasks.
 * Each call runs in a TOOL span (`imap.search`, `imap.read`, `imap.append`).
 *
 * @example
 * const mailbox = createImapMailbox(account);
 * const found = await mailbox.search({ folder: 'inbox', criteria: { from: 'bob' }, limit: 10 });
 */
export function createImapMailbox(account: ImapAccount): Mailbox {
  const server = account.imap;

  function append(
    folder: 'drafts' | 'sent',
    raw: Buffer,
  ): Promise<{ mailbox: string; uid: number | undefined }> {
    return tool(server, { name: 'imap.append', input: { folder, bytes: raw.length } }, () =>
      withClient(account, async (client) => {
        const mailbox = await mailboxFor(client, account, folder);
        const flags = folder === 'drafts' ? ['\\Draft', '\\Seen'] : ['\\Seen'];
        const appended = await client.append(mailbox, raw, flags);
        return { mailbox, uid: appended === false ? undefined : appended.uid };
      }),
    );
  }

  return {
    search: (options) =>
      tool(server, { name: 'imap.search', input: options }, () =>
        withClient(account, (client) => searchFolder(client, account, options)),
      ),
    read: (options) =>
      tool(server, { name: 'imap.read', input: options }, () =>
        withClient(account, (client) => readFolder(client, account, options)),
      ),
    saveDraft: (raw) => append('drafts', raw),
    saveSent: (raw) => append('sent', raw),
  };
}
