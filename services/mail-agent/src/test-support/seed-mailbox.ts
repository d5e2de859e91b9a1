import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';

/** A message to put in a mailbox. */
export interface SeedMessage {
  /** @default 'INBOX' */
  mailbox?: string;
  from: string;
  to: string[];
  cc?: string[];
  subject: string;
  text: string;
  /** With angle brackets. @default generated */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  date: Date;
  /** @default [] (unread) */
  flags?: string[];
}

/** Options for {@link seedMailbox}. */
export interface SeedMailboxOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  messages: SeedMessage[];
}

/** Runs `work` logged in to the test server over plain IMAP, and logs out after. */
async function withClient<T>(
  { host, port, user, password }: Omit<SeedMailboxOptions, 'messages'>,
  work: (client: ImapFlow) => Promise<T>,
): Promise<T> {
  const client = new ImapFlow({
    host,
    port,
    secure: false,
    auth: { user, pass: password },
    logger: false,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/**
 * Puts messages into an IMAP mailbox with APPEND, in order, so their UIDs follow the list.
 *
 * @example
 * await seedMailbox({ host, port, user, password, messages: [{ from, to, subject, text, date }] });
 */
export async function seedMailbox({ messages, ...server }: SeedMailboxOptions): Promise<void> {
  await withClient(server, async (client) => {
    for (const message of messages) {
      const raw = await new MailComposer({
        from: message.from,
        to: message.to,
        ...(message.cc === undefined ? {} : { cc: message.cc }),
        subject: message.subject,
        text: message.text,
        date: message.date,
        ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
        ...(message.inReplyTo === undefined ? {} : { inReplyTo: message.inReplyTo }),
        ...(message.references === undefined ? {} : { references: message.references }),
      })
        .compile()
        .build();
      await client.append(message.mailbox ?? 'INBOX', raw, message.flags ?? [], message.date);
    }
  });
}

/** One message as the test reads it back: subject and flags, by mailbox. */
export interface StoredMessage {
  uid: number;
  subject: string;
  flags: string[];
  raw: string;
}

/**
 * Lists a mailbox's messages over IMAP, for asserting what the agent filed (drafts, sent copies).
 *
 * @example
 * const drafts = await listMailbox({ host, port, user, password, mailbox: 'Drafts' });
 */
export async function listMailbox({
  mailbox,
  ...server
}: Omit<SeedMailboxOptions, 'messages'> & { mailbox: string }): Promise<StoredMessage[]> {
  return withClient(server, async (client) => {
    const lock = await client.getMailboxLock(mailbox, { readOnly: true });
    try {
      const stored: StoredMessage[] = [];
      const status = await client.status(mailbox, { messages: true });
      if (status === false || (status.messages ?? 0) === 0) return stored;
      for await (const message of client.fetch('1:*', {
        uid: true,
        envelope: true,
        flags: true,
        source: true,
      })) {
        stored.push({
          uid: message.uid,
          subject: message.envelope?.subject ?? '',
          flags: [...(message.flags ?? [])],
          raw: message.source?.toString('utf8') ?? '',
        });
      }
      return stored;
    } finally {
      lock.release();
    }
  });
}
