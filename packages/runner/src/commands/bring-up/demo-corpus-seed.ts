import type { RunnerConfig } from '../../config';
import { demoQuestion, loadDemoCorpus, reportDemoCorpus } from '../../demo-corpus';
import { defaultTenant } from '../../default-tenant';
import { RAG_AGENT } from '../../rag-agent-target';
import { readReadinessDetails } from '../../readiness';
import type { FleetSecrets } from '../../secrets';
import type { CommandContext } from '../command';
import type { Started } from './launch';

/** What `up` reports about the demo corpus. */
export interface DemoCorpusOutcome {
  /** One line: how many documents, new or unchanged, in which tenant. */
  line: string;
  /** Files that failed (one line per reason), or why nothing could be loaded. */
  warnings: string[];
  /** An example question about the corpus, when it was loaded. */
  question: string | undefined;
  /** The tenant it went into, when known. */
  tenant: string | undefined;
  /** Why the RAG agent runs degraded (its `/readyz` says so), if it does. */
  degraded: string | undefined;
}

/**
 * Loads the demo corpus into the first configured key's tenant (`defaultTenant`) once the RAG
 * agent is ready, and reads whether the agent runs degraded. A failure is reported, never fatal:
 * the fleet is up either way.
 */
export async function seedDemoCorpus(
  context: CommandContext,
  { config, started, secrets }: { config: RunnerConfig; started: Started[]; secrets: FleetSecrets },
): Promise<DemoCorpusOutcome | undefined> {
  const { io, palette, signal } = context;
  const agent = started.find((entry) => entry.service.name === RAG_AGENT);
  if (agent === undefined) return undefined;
  const degraded = (await readReadinessDetails({ url: agent.url }))?.degraded['embeddings'];
  let tenant: string | undefined;
  try {
    const chosen = defaultTenant(config.gatewayApiKeys);
    tenant = chosen.tenant;
    io.stderr.write(
      palette.dim(
        `Loading the demo corpus into tenant ${tenant}${chosen.source === 'GATEWAY_API_KEYS' ? " (the first GATEWAY_API_KEYS key's)" : ''}…\n`,
      ),
    );
    const result = await loadDemoCorpus({
      root: config.root,
      target: { url: agent.url, token: config.internalToken ?? secrets.internalToken },
      tenant,
      signal,
    });
    if (result === undefined) {
      // No corpus in this checkout: only a degraded agent is worth a line.
      return degraded === undefined
        ? undefined
        : { line: 'no demo corpus to load', warnings: [], question: undefined, tenant, degraded };
    }
    return {
      ...reportDemoCorpus({ result, tenant, degraded }),
      question:
        result.summary.ingested + result.summary.duplicate > 0
          ? await demoQuestion(config.root)
          : undefined,
      tenant,
      degraded,
    };
  } catch (error) {
    return {
      line: 'demo corpus not loaded',
      warnings: [error instanceof Error ? error.message : String(error)],
      question: undefined,
      tenant,
      degraded,
    };
  }
}
