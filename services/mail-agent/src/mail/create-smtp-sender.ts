import nodemailer from 'nodemailer';
import { ConnectionError, UpstreamError } from '@fleet/errors';
import { Attributes, setSpanOutput, SpanKind, withSpan } from '@fleet/telemetry';
import type { ComposedMail } from './compose-mail';
import type { MailAccount, MailServer } from './mail-account';

/** What the SMTP server said about a sent mail. */
export interface SendReceipt {
  messageId: string;
  /** Recipients the server accepted. */
  accepted: string[];
  /** Recipients the server refused (the mail still went to the accepted ones). */
  rejected: string[];
  /** The server's last reply, e.g. `250 OK: queued`. */
  response: string;
}

/** The SMTP side of the mailbox. */
export interface MailSender {
  send(mail: ComposedMail): Promise<SendReceipt>;
}

function recipients(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    if (typeof entry === 'string') return [entry];
    const address = (entry as { address?: unknown } | null)?.address;
    return typeof address === 'string' ? [address] : [];
  });
}

/**
 * A failure of the SMTP server as a fleet error that says which server and what to check:
 * `ConnectionError` when it cannot be reached, `UpstreamError` (401) for a refused login, else
 * `UpstreamError` (502).
 *
 * @example
 * throw smtpFailure(account.smtp, error);
 */
export function smtpFailure(server: MailServer, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const where = `The SMTP server ${server.host}:${server.port}`;
  if (code === 'ECONNECTION' || code === 'ETIMEDOUT' || code === 'ESOCKET' || code === 'EDNS') {
    return new ConnectionError(`${where} cannot be reached: ${message}`, { cause: error });
  }
  if (code === 'EAUTH') {
    return new UpstreamError(
      `${where} refused the login (${message}). Check MAIL_USER and MAIL_PASSWORD or MAIL_OAUTH2_ACCESS_TOKEN.`,
      { cause: error, status: 401 },
    );
  }
  return new UpstreamError(`${where} did not take the mail: ${message}`, {
    cause: error,
    status: 502,
  });
}

/**
 * Sends composed mail over SMTP with nodemailer: AUTH PLAIN/LOGIN with the password, or XOAUTH2
 * with the access token; implicit TLS or STARTTLS as the server offers. The exact bytes given are
 * sent (headers included), so what was approved is what goes out. Each send runs in a TOOL span
 * (`smtp.send`). It never retries: a mail is sent at most once.
 *
 * @example
 * const receipt = await createSmtpSender(account).send(await composeMail(mail));
 */
export function createSmtpSender(account: MailAccount & { smtp: MailServer }): MailSender {
  const server = account.smtp;
  const transport = nodemailer.createTransport({
    host: server.host,
    port: server.port,
    secure: server.secure,
    auth:
      account.auth.kind === 'oauth2'
        ? { type: 'OAuth2', user: account.user, accessToken: account.auth.accessToken }
        : { user: account.user, pass: account.auth.password },
    tls: { rejectUnauthorized: account.tlsRejectUnauthorized },
    connectionTimeout: account.timeoutMs,
    greetingTimeout: account.timeoutMs,
    socketTimeout: account.timeoutMs,
  });
  return {
    send: (mail) =>
      withSpan(
        {
          name: 'smtp.send',
          kind: SpanKind.TOOL,
          input: { messageId: mail.messageId, envelope: mail.envelope },
          attributes: {
            [Attributes.TOOL_NAME]: 'smtp.send',
            'mail.server': `${server.host}:${server.port}`,
          },
        },
        async (span) => {
          let info: { accepted?: unknown; rejected?: unknown; response?: unknown };
          try {
            info = await transport.sendMail({
              envelope: mail.envelope,
              raw: mail.raw,
            });
          } catch (error) {
            throw smtpFailure(server, error);
          }
          const receipt: SendReceipt = {
            messageId: mail.messageId,
            accepted: recipients(info.accepted),
            rejected: recipients(info.rejected),
            response: typeof info.response === 'string' ? info.response : '',
          };
          setSpanOutput(span, receipt);
          return receipt;
        },
      ),
  };
}
