import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { OutgoingMail } from './mail-message';

/** A mail rendered as RFC 5322 bytes: what goes to SMTP, Drafts and Sent. */
export interface ComposedMail {
  raw: Buffer;
  /** The Message-ID header it carries, with angle brackets. */
  messageId: string;
  /** The SMTP envelope: the From address and every To and Cc address. */
  envelope: { from: string; to: string[] };
}

/**
 * The address inside `Name <address>`, or the string itself.
 *
 * @example
 * bareAddress('Bob <bob@example.com>'); // 'bob@example.com'
 */
export function bareAddress(address: string): string {
  const match = /<([^<>]+)>\s*$/.exec(address);
  return (match?.[1] ?? address).trim();
}

/**
 * Renders a mail with a fresh Message-ID (`<uuid@from-domain>`), `In-Reply-To` and `References`
 * when it answers a message, so the same bytes can be sent and filed.
 *
 * @example
 * const { raw, messageId, envelope } = await composeMail(mail);
 */
export async function composeMail(
  mail: OutgoingMail,
  date: Date = new Date(),
): Promise<ComposedMail> {
  const from = bareAddress(mail.from);
  const domain = from.includes('@') ? from.slice(from.lastIndexOf('@') + 1) : 'mail-agent.local';
  const messageId = `<${randomUUID()}@${domain}>`;
  const node = new MailComposer({
    from: mail.from,
    to: mail.to,
    ...(mail.cc.length === 0 ? {} : { cc: mail.cc }),
    subject: mail.subject,
    text: mail.text,
    messageId,
    date,
    ...(mail.inReplyTo === undefined ? {} : { inReplyTo: mail.inReplyTo }),
    ...(mail.references.length === 0 ? {} : { references: mail.references }),
  }).compile();
  const raw = await node.build();
  return {
    raw,
    messageId,
    envelope: { from, to: [...mail.to, ...mail.cc].map(bareAddress) },
  };
}

/**
 * The mail as a person reviews it before it goes out: every header that matters and the full
 * body, nothing shortened.
 *
 * @example
 * renderMailPreview(mail); // "From: …\nTo: …\nCc: …\nSubject: …\n\n<body>"
 */
export function renderMailPreview(mail: OutgoingMail): string {
  const lines = [
    `From: ${mail.from}`,
    `To: ${mail.to.join(', ')}`,
    `Cc: ${mail.cc.length === 0 ? '(none)' : mail.cc.join(', ')}`,
    `Subject: ${mail.subject}`,
  ];
  if (mail.inReplyTo !== undefined) lines.push(`In-Reply-To: ${mail.inReplyTo}`);
  return `${lines.join('\n')}\n\n${mail.text}`;
}
