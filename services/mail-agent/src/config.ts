import { z } from 'zod';
import {
  a2aServerEnv,
  booleanSchema,
  envVar,
  llmEnv,
  loadConfig,
  portSchema,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';
import { ConfigError } from '@fleet/errors';
import type { MailAccount, MailServer } from './mail';

/** What the agent says when no mailbox is configured (tasks fail with it; the log shows it). */
export const MAILBOX_HINT =
  'No mailbox is configured: set MAIL_IMAP_HOST (search, read, drafts) and/or MAIL_SMTP_HOST (send, reply), MAIL_USER, and MAIL_PASSWORD or MAIL_OAUTH2_ACCESS_TOKEN (XOAUTH2, e.g. for Gmail: MAIL_IMAP_HOST=imap.gmail.com, MAIL_SMTP_HOST=smtp.gmail.com), then restart the mail agent.';

const hostSchema = z.string().trim().min(1);

/** Every variable the mail agent reads (docs/architecture.md §1, §8, §11). */
export const configSpec = {
  ...a2aServerEnv({ prefix: 'MAIL_AGENT', label: 'the mail agent', defaultPort: 8085 }),
  imapHost: envVar({
    name: 'MAIL_IMAP_HOST',
    schema: hostSchema.optional(),
    description:
      'IMAP server for searching and reading mail and saving drafts (imap.gmail.com for Gmail). Unset: those actions fail saying how to configure a mailbox.',
    defaultText: 'unset: no IMAP',
    example: 'imap.gmail.com',
  }),
  imapPort: envVar({
    name: 'MAIL_IMAP_PORT',
    schema: portSchema.optional(),
    description: 'IMAP port.',
    defaultText: '993 when MAIL_IMAP_SECURE is true, 143 otherwise',
  }),
  imapSecure: envVar({
    name: 'MAIL_IMAP_SECURE',
    schema: booleanSchema.optional(),
    description:
      'Implicit TLS for IMAP. false connects in plain text and upgrades with STARTTLS when the server offers it.',
    defaultText: 'true, or false when MAIL_IMAP_PORT is 143',
  }),
  smtpHost: envVar({
    name: 'MAIL_SMTP_HOST',
    schema: hostSchema.optional(),
    description:
      'SMTP server for sending and replying (smtp.gmail.com for Gmail). Unset: sending fails saying how to configure a mailbox.',
    defaultText: 'unset: no SMTP',
    example: 'smtp.gmail.com',
  }),
  smtpPort: envVar({
    name: 'MAIL_SMTP_PORT',
    schema: portSchema.optional(),
    description: 'SMTP port.',
    defaultText: '465 when MAIL_SMTP_SECURE is true, 587 otherwise',
  }),
  smtpSecure: envVar({
    name: 'MAIL_SMTP_SECURE',
    schema: booleanSchema.optional(),
    description:
      'Implicit TLS for SMTP. false connects in plain text and upgrades with STARTTLS when the server offers it.',
    defaultText: 'true, or false when MAIL_SMTP_PORT is 25 or 587',
  }),
  user: envVar({
    name: 'MAIL_USER',
    schema: z.string().trim().min(1).optional(),
    description: 'The account name both servers authenticate (usually the address).',
    defaultText: 'unset (required with MAIL_IMAP_HOST or MAIL_SMTP_HOST)',
    example: 'me@example.com',
  }),
  password: envVar({
    name: 'MAIL_PASSWORD',
    schema: z.string().min(1).optional(),
    description:
      'Password (or app password) for MAIL_USER, sent with AUTH PLAIN/LOGIN. Set this or MAIL_OAUTH2_ACCESS_TOKEN.',
    defaultText: 'unset',
    secret: true,
  }),
  oauth2AccessToken: envVar({
    name: 'MAIL_OAUTH2_ACCESS_TOKEN',
    schema: z.string().min(1).optional(),
    description:
      'OAuth2 access token for MAIL_USER (XOAUTH2 over IMAP and SMTP, as Gmail and Microsoft 365 want it; scope https://mail.google.com/ for Gmail). Takes precedence over MAIL_PASSWORD. The agent does not refresh it.',
    defaultText: 'unset',
    secret: true,
  }),
  from: envVar({
    name: 'MAIL_FROM',
    schema: z.string().trim().min(1).optional(),
    description: 'The From of mail the agent writes: an address or "Name <address>".',
    defaultText: 'MAIL_USER',
    example: 'Ada Lovelace <ada@example.com>',
  }),
  sentMailbox: envVar({
    name: 'MAIL_SENT_MAILBOX',
    schema: z.string().trim().min(1).optional(),
    description:
      'IMAP mailbox of sent mail (searched for "sent" tasks; a copy of each sent mail is saved there).',
    defaultText: 'the mailbox marked \\Sent by the server, else "Sent"',
    example: '[Gmail]/Sent Mail',
  }),
  draftsMailbox: envVar({
    name: 'MAIL_DRAFTS_MAILBOX',
    schema: z.string().trim().min(1).optional(),
    description: 'IMAP mailbox drafts are saved to and searched in.',
    defaultText: 'the mailbox marked \\Drafts by the server, else "Drafts"',
    example: '[Gmail]/Drafts',
  }),
  saveSentCopy: envVar({
    name: 'MAIL_SAVE_SENT_COPY',
    schema: booleanSchema.optional(),
    description:
      'After sending, APPEND a copy of the mail to the Sent mailbox over IMAP. Gmail files sent mail itself, so it is off for smtp.gmail.com.',
    defaultText: 'true, false when MAIL_SMTP_HOST is smtp.gmail.com',
  }),
  tlsRejectUnauthorized: envVar({
    name: 'MAIL_TLS_REJECT_UNAUTHORIZED',
    schema: booleanSchema.default(true),
    description:
      'Refuse servers whose TLS certificate does not verify. Set false only for a test server with a self-signed certificate.',
  }),
  searchLimit: envVar({
    name: 'MAIL_SEARCH_LIMIT',
    schema: positiveIntSchema.max(100, 'expected at most 100').default(10),
    description: 'Most messages a search reports (the newest ones).',
  }),
  approvalTtlSeconds: envVar({
    name: 'MAIL_APPROVAL_TTL_SECONDS',
    schema: positiveIntSchema.default(3600),
    description:
      'How long an approval to send stays valid; a later approval sends nothing and ends the task rejected.',
  }),
  mailTimeoutMs: envVar({
    name: 'MAIL_TIMEOUT_MS',
    schema: positiveIntSchema.default(30_000),
    description: 'Connection and command timeout for the IMAP and SMTP servers.',
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The mail agent's typed configuration. */
export type MailAgentConfig = ConfigOf<typeof configSpec>;

/** How one server is set: its port (if given), TLS, and the default ports with and without TLS. */
interface ServerSettings {
  port: number | undefined;
  secure: boolean;
  ports: { tls: number; plain: number };
}

/** A server entry when its host is set; the port follows TLS unless it is given. */
function mailServer(
  host: string | undefined,
  { port, secure, ports }: ServerSettings,
): MailServer | undefined {
  if (host === undefined) return undefined;
  return { host, port: port ?? (secure ? ports.tls : ports.plain), secure };
}

/**
 * The mailbox the configuration describes, or undefined when none is (neither MAIL_IMAP_HOST nor
 * MAIL_SMTP_HOST). Ports and TLS follow each other's defaults (993/465 with TLS, 143/587 without).
 *
 * @throws ConfigError when a server is set without MAIL_USER or without a password or token.
 * @example
 * const account = mailAccountFromConfig(config); // undefined: tasks fail with MAILBOX_HINT
 */
export function mailAccountFromConfig(
  config: Omit<MailAgentConfig, 'port' | 'host' | 'publicUrl' | 'internalToken'>,
): MailAccount | undefined {
  const { imapHost, smtpHost, user, password, oauth2AccessToken } = config;
  if (imapHost === undefined && smtpHost === undefined) return undefined;
  const problems: string[] = [];
  if (user === undefined) problems.push('MAIL_USER is not set');
  if (password === undefined && oauth2AccessToken === undefined) {
    problems.push('neither MAIL_PASSWORD nor MAIL_OAUTH2_ACCESS_TOKEN is set');
  }
  if (user === undefined || problems.length > 0) {
    throw new ConfigError(
      `A mail server is configured (${[imapHost && `MAIL_IMAP_HOST=${imapHost}`, smtpHost && `MAIL_SMTP_HOST=${smtpHost}`].filter(Boolean).join(', ')}) but ${problems.join(' and ')}: set MAIL_USER and MAIL_PASSWORD (or MAIL_OAUTH2_ACCESS_TOKEN for XOAUTH2), or unset the server to run without a mailbox.`,
    );
  }
  const imap = mailServer(imapHost, {
    port: config.imapPort,
    secure: config.imapSecure ?? config.imapPort !== 143,
    ports: { tls: 993, plain: 143 },
  });
  const smtp = mailServer(smtpHost, {
    port: config.smtpPort,
    secure: config.smtpSecure ?? (config.smtpPort !== 587 && config.smtpPort !== 25),
    ports: { tls: 465, plain: 587 },
  });
  return {
    user,
    auth:
      oauth2AccessToken === undefined
        ? { kind: 'password', password: password ?? '' }
        : { kind: 'oauth2', accessToken: oauth2AccessToken },
    from: config.from ?? user,
    ...(imap === undefined ? {} : { imap }),
    ...(smtp === undefined ? {} : { smtp }),
    ...(config.sentMailbox === undefined ? {} : { sentMailbox: config.sentMailbox }),
    ...(config.draftsMailbox === undefined ? {} : { draftsMailbox: config.draftsMailbox }),
    saveSentCopy: config.saveSentCopy ?? smtpHost?.toLowerCase() !== 'smtp.gmail.com',
    tlsRejectUnauthorized: config.tlsRejectUnauthorized,
    timeoutMs: config.mailTimeoutMs,
  };
}

/** Loads the mail agent's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadMailAgentConfig(environment: Environment = process.env): MailAgentConfig {
  return loadConfig(configSpec, environment);
}
