import { SMTPServer } from 'smtp-server';

/** A mail the recording server accepted. */
export interface RecordedMail {
  /** MAIL FROM. */
  from: string;
  /** RCPT TO, in order. */
  to: string[];
  /** The message exactly as received (headers and body). */
  raw: string;
  /** Who logged in, and how. */
  user: string;
  method: 'PLAIN' | 'LOGIN' | 'XOAUTH2';
}

/** Options for {@link startRecordingSmtp}. */
export interface StartRecordingSmtpOptions {
  /** @default 'alice@example.test' */
  user?: string;
  /** Accepted with PLAIN/LOGIN, and as the XOAUTH2 access token. @default 'alice-secret' */
  password?: string;
}

/** A running recording SMTP server. */
export interface RecordingSmtp {
  host: '127.0.0.1';
  port: number;
  /** Every mail received, in order. */
  mails: RecordedMail[];
  /** Every failed login, for tests of bad credentials. */
  failedLogins: number;
  /** Resolves once at least `count` mails arrived. @default timeoutMs 10000 */
  waitForMails(count: number, timeoutMs?: number): Promise<RecordedMail[]>;
  close(): Promise<void>;
}

/**
 * Starts a real SMTP server on a free loopback port (smtp-server, no TLS, AUTH PLAIN/LOGIN/XOAUTH2
 * required) that accepts every mail and records it, for asserting what the agent sent.
 *
 * @example
 * const smtp = await startRecordingSmtp();
 * const [mail] = await smtp.waitForMails(1);
 */
export async function startRecordingSmtp({
  user = 'alice@example.test',
  password = 'alice-secret',
}: StartRecordingSmtpOptions = {}): Promise<RecordingSmtp> {
  const mails: RecordedMail[] = [];
  const recording: RecordingSmtp = {
    host: '127.0.0.1',
    port: 0,
    mails,
    failedLogins: 0,
    waitForMails: async (count, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`expected ${count} mails, the SMTP server received ${mails.length}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return [...mails];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
    logger: false,
    onAuth(auth, _session, callback) {
      const secret = auth.method === 'XOAUTH2' ? auth.accessToken : auth.password;
      if (auth.username === user && secret === password) {
        callback(null, { user: `${auth.method}:${auth.username ?? ''}` });
        return;
      }
      recording.failedLogins += 1;
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const login = String(session.user ?? '');
        const separator = login.indexOf(':');
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: login.slice(separator + 1),
          method: login.slice(0, separator) as RecordedMail['method'],
        });
        callback(null, 'OK: recorded');
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => undefined);
  const address = server.server.address();
  recording.port = typeof address === 'object' && address !== null ? address.port : 0;
  return recording;
}
