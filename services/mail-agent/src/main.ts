// The mail agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the mailbox
// clients, the LLM client, Redis, the task store and the HTTP server are built here and nowhere
// else.
import { config, telemetry } from './instrumentation';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createActionChooser } from './actions';
import { createMailHandler, mailAvailability } from './agent';
import { mailAccountFromConfig } from './config';
import { createMailClients, type MailAccount, type MailServer } from './mail';

/** The configured mailbox; a half-configured one stops the boot saying what is missing. */
function mailAccount(): MailAccount | undefined {
  try {
    return mailAccountFromConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mail-agent: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** `imap.example.com:993 (TLS)`, for the "listening" log line. */
function describeServer(server: MailServer | undefined): string | undefined {
  return server === undefined
    ? undefined
    : `${server.host}:${server.port}${server.secure ? ' (TLS)' : ''}`;
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'mail-agent', level: config.logLevel });
  const account = mailAccount();
  const model = agentModel(config);
  const { mailbox, sender } = createMailClients(account);
  // Said on the card and by /readyz; the kit logs it once when it is not `ready`.
  const availability = mailAvailability(account);

  await startAgentService({
    serviceName: 'mail-agent',
    config,
    logger,
    telemetry,
    availability,
    createHandler: ({ store, url }) =>
      createMailHandler({
        account,
        mailbox,
        sender,
        chooser: createActionChooser({ llm: model.llm, from: account?.from ?? '', logger }),
        llm: model.llm,
        searchLimit: config.searchLimit,
        approvalTtlMs: config.approvalTtlSeconds * 1000,
        logger,
        store,
        url,
        internalToken: true,
        a2aLogger: logger,
        availability,
      }),
    describe: {
      imap: describeServer(account?.imap),
      smtp: describeServer(account?.smtp),
      auth: account?.auth.kind,
      ...describeUpstream(model, config.llmModel),
    },
  });
  if (model.upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The mail agent chooses actions with rules on the task text and lists what it finds.`,
    );
  }
}

runMain('mail-agent', main);
