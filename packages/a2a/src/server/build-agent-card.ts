import { A2A_VERSION } from '../schemas/core';
import type { AgentCard, AgentProvider, AgentSkill } from '../schemas/agent-card';

/** The path of the JSON-RPC endpoint under a service's base URL. */
export const A2A_ENDPOINT_PATH = '/a2a';

/** The name of the bearer scheme cards declare when calls need the fleet's internal token. */
export const FLEET_SECURITY_SCHEME = 'fleetInternal';

/** Options for {@link buildAgentCard}. */
export interface BuildAgentCardOptions {
  name: string;
  description: string;
  /** The agent's own version. */
  version: string;
  /** The service's base URL (no trailing `/a2a`); the JSON-RPC interface is `${url}/a2a`. */
  url: string;
  skills: readonly (Omit<AgentSkill, 'tags'> & { tags?: string[] })[];
  /** @default true */
  streaming?: boolean;
  /** Declares the bearer scheme `fleetInternal` and requires it. @default false */
  internalToken?: boolean;
  /** @default ['text/plain', 'application/json'] */
  defaultInputModes?: string[];
  /** @default ['text/plain', 'application/json'] */
  defaultOutputModes?: string[];
  provider?: AgentProvider;
  documentationUrl?: string;
}

/**
 * Builds a valid v1.0 Agent Card: one JSONRPC interface at `${url}/a2a` speaking 1.0, streaming
 * declared (SDK clients silently fall back to blocking calls without it, docs/a2a.md §7.13), and the
 * bearer scheme when `internalToken` is set.
 *
 * @example
 * const card = buildAgentCard({
 *   name: 'rag-agent', description: 'Answers from documents', version: '0.1.0',
 *   url: config.publicUrl, skills: [{ id: 'search', name: 'Search', description: '…', tags: ['rag'] }],
 *   internalToken: config.internalToken !== undefined,
 * });
 */
export function buildAgentCard({
  name,
  description,
  version,
  url,
  skills,
  streaming = true,
  internalToken = false,
  defaultInputModes = ['text/plain', 'application/json'],
  defaultOutputModes = ['text/plain', 'application/json'],
  provider,
  documentationUrl,
}: BuildAgentCardOptions): AgentCard {
  return {
    name,
    description,
    version,
    supportedInterfaces: [
      {
        url: `${url.replace(/\/+$/, '')}${A2A_ENDPOINT_PATH}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: A2A_VERSION,
      },
    ],
    ...(provider === undefined ? {} : { provider }),
    ...(documentationUrl === undefined ? {} : { documentationUrl }),
    capabilities: { streaming, pushNotifications: false },
    ...(internalToken
      ? {
          securitySchemes: {
            [FLEET_SECURITY_SCHEME]: { httpAuthSecurityScheme: { scheme: 'bearer' } },
          },
          securityRequirements: [{ schemes: { [FLEET_SECURITY_SCHEME]: { list: [] } } }],
        }
      : {}),
    defaultInputModes,
    defaultOutputModes,
    skills: skills.map((skill) => ({ ...skill, tags: skill.tags ?? [] })),
  };
}
