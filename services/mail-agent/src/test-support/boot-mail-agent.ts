import type { Redis } from 'ioredis';
import { bootAgent, type BootedAgent } from '@fleet/agent-kit/testing';
import { createActionChooser, type LlmSettings } from '../actions';
import { createMailHandler } from '../agent';
import { createMailClients, type MailAccount } from '../mail';

/** The token test agents require. */
export const TEST_TOKEN = 'mail-agent-test-token-0123456789';

/** A mail agent listening on a free port, with a client that carries the token. */
export type RunningMailAgent = BootedAgent;

/** Options for {@link bootMailAgent}. */
export interface BootMailAgentOptions {
  redis: Redis;
  keyPrefix: string;
  /** Undefined: no mailbox configured. */
  account: MailAccount | undefined;
  llm?: LlmSettings | undefined;
  approvalTtlMs?: number;
}

/** Boots the mail agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export function bootMailAgent({
  redis,
  keyPrefix,
  account,
  llm,
  approvalTtlMs,
}: BootMailAgentOptions): Promise<RunningMailAgent> {
  const { mailbox, sender } = createMailClients(account);
  return bootAgent({
    serviceName: 'mail-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    clientTimeoutMs: 60_000,
    createHandler: ({ store, url }) =>
      createMailHandler({
        account,
        mailbox,
        sender,
        chooser: createActionChooser({ llm, from: account?.from ?? '' }),
        llm,
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
        store,
        url,
      }),
  });
}

/** A test account on the loopback servers. */
export function testAccount({
  imapPort,
  smtpPort,
  user = 'alice@example.test',
  password = 'alice-secret',
  oauth2 = false,
}: {
  imapPort: number | undefined;
  smtpPort: number | undefined;
  user?: string;
  password?: string;
  oauth2?: boolean;
}): MailAccount {
  return {
    user,
    auth: oauth2 ? { kind: 'oauth2', accessToken: password } : { kind: 'password', password },
    from: `Alice Example <${user}>`,
    ...(imapPort === undefined
      ? {}
      : { imap: { host: '127.0.0.1', port: imapPort, secure: false } }),
    ...(smtpPort === undefined
      ? {}
      : { smtp: { host: '127.0.0.1', port: smtpPort, secure: false } }),
    saveSentCopy: true,
    tlsRejectUnauthorized: true,
    timeoutMs: 10_000,
  };
}
