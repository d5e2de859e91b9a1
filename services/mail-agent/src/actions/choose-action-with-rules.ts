import { MAIL_ACTIONS, type MailAction, type MailActionName } from './mail-action';

/** What an action is chosen from. */
export interface ActionRequest {
  /** The node's task (or, after an approval with instructions, the task to carry out now). */
  task: string;
  /** Earlier steps' answers, oldest first: the content a mail "with the results" carries. */
  context: readonly { label: string; summary: string }[];
  /** Today, for "since yesterday" and the like. @default new Date() */
  now?: Date;
  /** The skill the plan chose for the node, if any: the action when the text does not say. */
  skill?: string | undefined;
}

const ADDRESS = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** Words that end a search phrase ("from bob about the invoice since monday"). */
const STOP = String.raw`(?=\s+(?:from|about|regarding|concerning|with|since|before|after|in|on|to|that|which|and|sent|received|saying|subject)\b|[,.;?!]|$)`;

function first(pattern: RegExp, text: string): string | undefined {
  const value = pattern.exec(text)?.[1]?.trim();
  return value === undefined || value === '' ? undefined : stripQuotes(value);
}

function stripQuotes(value: string): string {
  return value.replace(/^["'“‘]+|["'”’]+$/g, '').trim();
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function sinceDate(text: string, now: Date): string | undefined {
  const explicit = /\b(?:since|after)\s+(\d{4}-\d{2}-\d{2})\b/i.exec(text)?.[1];
  if (explicit !== undefined) return explicit;
  const day = 24 * 60 * 60 * 1000;
  if (/\btoday\b/i.test(text)) return isoDate(now);
  if (/\byesterday\b/i.test(text)) return isoDate(new Date(now.getTime() - day));
  if (/\b(?:last|past|this)\s+week\b/i.test(text))
    return isoDate(new Date(now.getTime() - 7 * day));
  if (/\b(?:last|past|this)\s+month\b/i.test(text))
    return isoDate(new Date(now.getTime() - 30 * day));
  return undefined;
}

function chooseName(text: string, skill: string | undefined): MailActionName {
  const lower = text.toLowerCase();
  if (/\b(?:reply|respond|answer)\b/.test(lower)) return 'reply';
  const searching =
    /^\s*(?:please\s+|can you\s+|could you\s+)?(?:search|find|look\s+(?:up|for|through)|list|show|check|get|fetch|summari[sz]e|are there|is there|do i have|did i|what|which|who|when|how many)\b/.test(
      lower,
    );
  if (!searching && /\b(?:read|open)\b/.test(lower)) return 'read';
  if (searching) return /\b(?:read|open)\b/.test(lower) ? 'read' : 'search';
  if (/\bdraft\b/.test(lower)) return 'draft';
  if (/\b(?:send|e-?mail|mail|forward|write|notify|tell)\b/.test(lower) && ADDRESS.test(text)) {
    ADDRESS.lastIndex = 0;
    return 'send';
  }
  ADDRESS.lastIndex = 0;
  const planned = MAIL_ACTIONS.find((name) => name === skill);
  return planned ?? 'search';
}

function folderOf(text: string, name: MailActionName): MailAction['folder'] {
  const lower = text.toLowerCase();
  if (
    /\b(?:sent (?:mail|mails|messages?|items|folder|box)|(?:my|the|in|from) sent\b|outbox)/.test(
      lower,
    ) ||
    /\b(?:did i|have i|i have|i've|i)\s+(?:send|sent|write|wrote|written|e-?mail|e-?mailed|mail|mailed)\b/.test(
      lower,
    )
  ) {
    return 'sent';
  }
  if (name !== 'draft' && /\bdrafts?\b/.test(lower)) return 'drafts';
  return 'inbox';
}

/** Addresses named after a keyword (`to`, `cc`), up to the next keyword. */
function addressesAfter(text: string, keyword: 'to' | 'cc'): string[] {
  const pattern =
    keyword === 'cc'
      ? /\b(?:cc|copy(?:ing)?|copy in)\s*:?\s+((?:[^\s,;]+@[^\s,;]+(?:\s*(?:,|and)\s*)?)+)/gi
      : /\bto\s*:?\s+((?:[^\s,;]+@[^\s,;]+(?:\s*(?:,|and)\s*)?)+)/gi;
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    for (const address of (match[1] ?? '').match(ADDRESS) ?? []) found.push(address);
  }
  return found;
}

/** The body the task spells out: after "saying", "with the message", "body:", or quoted. */
function explicitBody(text: string): string | undefined {
  return (
    first(
      /\b(?:saying|that says|which says|telling (?:them|him|her)|with (?:the )?(?:message|body|text))\s*:?\s*([\s\S]+)$/i,
      text,
    ) ?? first(/\bbody\s*:\s*([\s\S]+)$/i, text)
  );
}

function explicitSubject(text: string): string | undefined {
  return (
    first(/\bsubject(?:\s+line)?\s*[:=]?\s*["“']([^"”']+)["”']/i, text) ??
    first(/\bsubject\s*:\s*([^\n]+?)(?=\s+(?:saying|body|with)\b|$)/i, text)
  );
}

function aboutPhrase(text: string): string | undefined {
  return first(
    new RegExp(String.raw`\b(?:about|regarding|concerning|on the topic of)\s+(.+?)${STOP}`, 'i'),
    text,
  );
}

/** The earlier steps' answers as a mail body. */
function contextBody(context: ActionRequest['context']): string | undefined {
  const parts = context.map((entry) => entry.summary.trim()).filter((summary) => summary !== '');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

/**
 * Offline mode's action choice (docs/architecture.md §8): rules on the task text. "search/find mails
 * from X about Y" searches (inbox, or sent/drafts when named) with `from`/`text` criteria; "read
 * the latest mail from X" reads; "reply to X saying …" replies to the newest match; "draft a mail
 * to a@b …" saves a draft; "send/email … to a@b" sends. The body is what follows "saying" (or
 * "body:"), else the earlier steps' answers. Anything unclear is the plan's skill for the node,
 * else a search, which has no side effect.
 *
 * @example
 * chooseActionWithRules({ task: 'find mails from bob about the invoice', context: [] });
 * // { action: 'search', folder: 'inbox', from: 'bob', text: 'invoice', to: [], cc: [] }
 */
export function chooseActionWithRules({
  task,
  context,
  now = new Date(),
  skill,
}: ActionRequest): MailAction {
  const text = task.trim();
  const action = chooseName(text, skill);
  const folder = folderOf(text, action);
  const result: MailAction = { action, folder, to: [], cc: [] };
  if (action === 'search' || action === 'read' || action === 'reply') {
    const from = first(new RegExp(String.raw`\bfrom\s+(.+?)${STOP}`, 'i'), text);
    if (from !== undefined && !/^(?:my|the)\s+(?:inbox|mailbox|sent|drafts?)\b/i.test(from)) {
      result.from = from.replace(/^(?:the|a)\s+/i, '');
    }
    const subject = explicitSubject(text);
    if (subject !== undefined) result.subject = subject;
    const about =
      aboutPhrase(text) ??
      (action === 'search'
        ? first(
            new RegExp(
              String.raw`\b(?:search|look|check)\b.*?\bfor\s+(?!(?:any\s+|all\s+|the\s+)?(?:e-?mails?|mails?|messages?)\b)(.+?)${STOP}`,
              'i',
            ),
            text,
          )
        : undefined);
    if (about !== undefined && subject === undefined) {
      result.text = about.replace(/^(?:the|a|an|my|our)\s+/i, '');
    }
    const since = sinceDate(text, now);
    if (since !== undefined) result.since = since;
    const before = /\bbefore\s+(\d{4}-\d{2}-\d{2})\b/i.exec(text)?.[1];
    if (before !== undefined) result.before = before;
    if (/\bunread\b/i.test(text)) result.unseen = true;
    const uid = /\b(?:uid|message)\s*#?\s*(\d+)\b/i.exec(text)?.[1];
    if (uid !== undefined) result.uid = Number(uid);
    if (folder === 'sent' && action === 'search') {
      const to =
        addressesAfter(text, 'to')[0] ??
        first(new RegExp(String.raw`\bto\s+(.+?)${STOP}`, 'i'), text);
      if (to !== undefined) result.toContains = to;
    }
    if (action === 'reply') {
      const body = explicitBody(text) ?? contextBody(context);
      if (body !== undefined) result.body = body;
      const cc = addressesAfter(text, 'cc');
      if (cc.length > 0) result.cc = cc;
      if (/\breply[- ]all\b|\ball recipients\b|\beveryone\b/i.test(text)) result.replyAll = true;
    }
    return result;
  }
  // draft or send
  const cc = addressesAfter(text, 'cc');
  const named = addressesAfter(text, 'to');
  const all = [...(text.match(ADDRESS) ?? [])];
  result.to = named.length > 0 ? named : all.filter((address) => !cc.includes(address));
  result.cc = cc;
  const body = explicitBody(text) ?? contextBody(context);
  if (body !== undefined) result.body = body;
  const subject = explicitSubject(text) ?? aboutPhrase(text.replace(explicitBody(text) ?? '', ''));
  if (subject !== undefined)
    result.mailSubject = subject.charAt(0).toUpperCase() + subject.slice(1);
  return result;
}
