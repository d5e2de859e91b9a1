import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { createActionChooser, type LlmSettings } from '../actions';
import { createMailHandler } from '../agent';
import { createApp } from '../app';
import { createImapMailbox, createSmtpSender, type MailAccount } from '../mail';

/** The token test agents require. */
export const TEST_TOKEN = 'mail-agent-test-token-0123456789';

/** A mail agent listening on a free port, with a client that carries the token. */
export interface RunningMailAgent {
  server: RunningServer;
  handler: A2AHandler;
  taskStore: RedisTaskStore;
  client: A2AClient;
  close(): Promise<void>;
}

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
export async function bootMailAgent({
  redis,
  keyPrefix,
  account,
  llm,
  approvalTtlMs,
}: BootMailAgentOptions): Promise<RunningMailAgent> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  // The card must name the real address, which is known once the server listens.
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const imap = account?.imap;
  const smtp = account?.smtp;
  const handler = createMailHandler({
    account,
    mailbox: account && imap ? createImapMailbox({ ...account, imap }) : undefined,
    sender: account && smtp ? createSmtpSender({ ...account, smtp }) : undefined,
    chooser: createActionChooser({ llm, from: account?.from ?? '' }),
    llm,
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
    store: taskStore,
    url: server.url,
  });
  target.app = createApp({
    handler,
    internalToken: TEST_TOKEN,
    logger: silentLogger,
    isShuttingDown: () => server.isShuttingDown(),
    metrics: false,
  });
  const card = await discoverAgentCard(server.url);
  return {
    server,
    handler,
    taskStore,
    client: new A2AClient({ card, token: TEST_TOKEN, timeoutMs: 60_000 }),
    async close() {
      await handler.close();
      await server.shutdown();
      await taskStore.close();
    },
  };
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
