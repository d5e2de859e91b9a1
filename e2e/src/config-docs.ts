/**
 * The fleet's configuration reference, generated from the config specs the services load:
 * `.env.example` and `docs/configuration.md`. `pnpm docs:config` writes them; the test next to
 * this file fails when they fall behind a spec, so every new variable gets documented.
 */
import path from 'node:path';
import {
  llmEnv,
  redisEnv,
  renderConfigMarkdown,
  renderEnvExample,
  runtimeEnv,
  telemetryEnv,
  type ConfigSection,
} from '@fleet/config';
import { configSpec as gatewayConfigSpec } from '@fleet/gateway/config';
import { configSpec as orchestratorConfigSpec } from '@fleet/orchestrator/config';
import { configSpec as plannerConfigSpec } from '@fleet/planner/config';
import { configSpec as ragAgentConfigSpec } from '@fleet/rag-agent/config';
import { configSpec as webAgentConfigSpec } from '@fleet/web-agent/config';
import { configSpec as codeAgentConfigSpec } from '@fleet/code-agent/config';
import { configSpec as mailAgentConfigSpec } from '@fleet/mail-agent/config';
import { configSpec as reasoningAgentConfigSpec } from '@fleet/reasoning-agent/config';
import { configSpec as toolsAgentConfigSpec } from '@fleet/tools-agent/config';
import { runnerConfigSpec } from '@fleet/runner';

/** Every section, shared groups first so each variable is described where it belongs. */
export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  { title: 'Upstream LLM (every service)', spec: llmEnv },
  { title: 'Tracing (every service)', spec: telemetryEnv },
  { title: 'Runtime (every service)', spec: runtimeEnv },
  { title: 'Redis', spec: redisEnv },
  { title: 'Gateway', spec: gatewayConfigSpec },
  { title: 'Orchestrator', spec: orchestratorConfigSpec },
  { title: 'Planner', spec: plannerConfigSpec },
  { title: 'RAG agent', spec: ragAgentConfigSpec },
  { title: 'Web agent', spec: webAgentConfigSpec },
  { title: 'Mail agent', spec: mailAgentConfigSpec },
  { title: 'Code agent', spec: codeAgentConfigSpec },
  { title: 'Reasoning agent', spec: reasoningAgentConfigSpec },
  { title: 'Tools agent', spec: toolsAgentConfigSpec },
  { title: 'Local runner (`pnpm fleet`)', spec: runnerConfigSpec },
];

/** Where the generated files live. */
export const ENV_EXAMPLE_PATH = path.resolve(__dirname, '../../.env.example');
export const CONFIGURATION_DOC_PATH = path.resolve(__dirname, '../../docs/configuration.md');

/** The text of `.env.example`. */
export function renderEnvExampleFile(): string {
  return renderEnvExample(CONFIG_SECTIONS);
}

/** The text of `docs/configuration.md`. */
export function renderConfigurationDoc(): string {
  return [
    '# Configuration',
    '',
    'Every service reads its configuration from environment variables, validated with zod at boot:',
    'a bad value stops the service with a message naming every variable to fix. `pnpm fleet up`',
    "passes your environment through to every service. This page is generated from the services'",
    'config specs by `pnpm docs:config`; `.env.example` lists the same variables.',
    '',
    renderConfigMarkdown(CONFIG_SECTIONS),
  ].join('\n');
}
