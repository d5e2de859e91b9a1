// The mail agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the mailbox
// clients, the LLM client, Redis, the task store and the HTTP server are built here and nowhere
// else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createActionChooser } from './actions';
import { createMailHandler } from './agent';
import { MAILBOX_HINT, mailAccountFromConfig, mailAgentPublicUrl } from './config';
import { createImapMailbox, createSmtpSender, type MailAccount } from './mail';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'mail-agent', level: config.logLevel });
  let account: MailAccount | undefined;
  try {
    account = mailAccountFromConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mail-agent: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const llm = client ? { client, model: config.llmModel } : undefined;

  const imap = account?.imap;
  const smtp = account?.smtp;
  const mailbox = account && imap ? createImapMailbox({ ...account, imap }) : undefined;
  const sender = account && smtp ? createSmtpSender({ ...account, smtp }) : undefined;

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:mail-agent' });

  const url = mailAgentPublicUrl(config);
  const handler = createMailHandler({
    account,
    mailbox,
    sender,
    chooser: createActionChooser({ llm, from: account?.from ?? '', logger }),
    llm,
    searchLimit: config.searchLimit,
    approvalTtlMs: config.approvalTtlSeconds * 1000,
    logger,
    store: taskStore,
    url,
    internalToken: true,
    a2aLogger: logger,
  });

  const running = await serveAgent({
    serviceName: 'mail-agent',
    handler,
    taskStore,
    redis,
    internalToken: config.internalToken,
    logger,
    port: config.port,
    host: config.host,
    production: config.nodeEnv === 'production',
    onShutdown: [() => telemetry.shutdown()],
  });
  logger.info(
    {
      url: running.url,
      card: url,
      imap:
        imap === undefined ? undefined : `${imap.host}:${imap.port}${imap.secure ? ' (TLS)' : ''}`,
      smtp:
        smtp === undefined ? undefined : `${smtp.host}:${smtp.port}${smtp.secure ? ' (TLS)' : ''}`,
      auth: account?.auth.kind,
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      model: upstream.offline ? undefined : config.llmModel,
      tracing: telemetry.enabled,
    },
    'mail-agent listening',
  );
  if (account === undefined) logger.warn({}, MAILBOX_HINT);
  if (upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The mail agent chooses actions with rules on the task text and lists what it finds.`,
    );
  }
}

runMain('mail-agent', main);
