/** One server the agent talks to. */
export interface MailServer {
  host: string;
  port: number;
  /** Implicit TLS; false connects in plain text and upgrades with STARTTLS when offered. */
  secure: boolean;
}

/** How the account authenticates: a password (PLAIN/LOGIN) or an OAuth2 access token (XOAUTH2). */
export type MailAuth =
  { kind: 'password'; password: string } | { kind: 'oauth2'; accessToken: string };

/** The mailbox the agent works on, from `mailAccountFromConfig`. */
export interface MailAccount {
  /** The name both servers authenticate. */
  user: string;
  auth: MailAuth;
  /** The From of mail the agent writes: an address or `Name <address>`. */
  from: string;
  /** Search, read, drafts; unset: those actions fail saying how to configure IMAP. */
  imap?: MailServer;
  /** Send and reply; unset: those actions fail saying how to configure SMTP. */
  smtp?: MailServer;
  /** @default the mailbox marked \Sent, else `Sent` */
  sentMailbox?: string;
  /** @default the mailbox marked \Drafts, else `Drafts` */
  draftsMailbox?: string;
  /** APPEND a copy of each sent mail to the Sent mailbox (servers like Gmail do it themselves). */
  saveSentCopy: boolean;
  tlsRejectUnauthorized: boolean;
  /** Connection and command timeout. */
  timeoutMs: number;
}
