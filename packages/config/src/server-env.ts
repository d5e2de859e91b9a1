import { z } from 'zod';
import { envVar } from './env-var';
import { httpUrlSchema, portSchema } from './schemas';

/** Options for {@link a2aServerEnv}. */
export interface A2AServerEnvOptions {
  /** The variables' prefix: `WEB_AGENT` gives WEB_AGENT_PORT, WEB_AGENT_HOST, WEB_AGENT_PUBLIC_URL. */
  prefix: string;
  /** How the descriptions name the service: `the web agent`. */
  label: string;
  /** The port when `<PREFIX>_PORT` is unset (the fleet's port table, docs/architecture.md). */
  defaultPort: number;
  /** Earlier names of `<PREFIX>_PUBLIC_URL`, still read with a deprecation warning. */
  deprecatedPublicUrlNames?: readonly string[];
}

/** The bearer token every call between fleet services carries (docs/security.md). */
export const internalTokenEnv = {
  internalToken: envVar({
    name: 'FLEET_INTERNAL_TOKEN',
    schema: z.string().min(16, 'expected at least 16 characters'),
    description:
      'Bearer token every service-to-service A2A call carries; calls without it are refused. `pnpm fleet up` generates one.',
    defaultText: 'required (the local runner generates one)',
    example: 'fleet-internal-change-me-0000',
    secret: true,
  }),
} as const;

/**
 * The variables of a service that serves A2A (every agent, the planner, the orchestrator), named
 * one way for all of them: `<PREFIX>_PORT`, `<PREFIX>_HOST`, `<PREFIX>_PUBLIC_URL` (the base URL its
 * Agent Card announces; {@link publicUrlOf}) and FLEET_INTERNAL_TOKEN. `<NAME>_URL`, by contrast,
 * is where the *other* services find it.
 *
 * @example
 * export const configSpec = {
 *   ...a2aServerEnv({ prefix: 'WEB_AGENT', label: 'the web agent', defaultPort: 8084,
 *     deprecatedPublicUrlNames: ['WEB_AGENT_URL'] }),
 *   ...redisEnv,
 * };
 */
export function a2aServerEnv({
  prefix,
  label,
  defaultPort,
  deprecatedPublicUrlNames = [],
}: A2AServerEnvOptions) {
  const hostName = prefix.toLowerCase().replaceAll('_', '-');
  return {
    port: envVar({
      name: `${prefix}_PORT`,
      schema: portSchema.default(defaultPort),
      description: `Port ${label} listens on.`,
    }),
    host: envVar({
      name: `${prefix}_HOST`,
      schema: z.string().default('127.0.0.1'),
      description: `Interface ${label} binds; 0.0.0.0 in containers.`,
    }),
    publicUrl: envVar({
      name: `${prefix}_PUBLIC_URL`,
      schema: httpUrlSchema.optional(),
      description: `Base URL other services reach ${label} at, as its Agent Card states it (the card's interface is <url>/a2a); they are told it through ${prefix}_URL. Set it when ${prefix}_HOST is 0.0.0.0 (containers).`,
      defaultText: `http://<${prefix}_HOST>:<${prefix}_PORT> (127.0.0.1 for 0.0.0.0)`,
      example: `http://${hostName}:${defaultPort}`,
      ...(deprecatedPublicUrlNames.length === 0
        ? {}
        : { deprecatedNames: deprecatedPublicUrlNames }),
    }),
    ...internalTokenEnv,
  } as const;
}

/** Where a service listens, and the public URL it was given, if any. */
export interface PublicUrlParts {
  publicUrl?: string | undefined;
  host: string;
  port: number;
}

/**
 * The base URL a service's Agent Card announces: `<PREFIX>_PUBLIC_URL`, or where it listens (a
 * wildcard host becomes 127.0.0.1; an IPv6 host is bracketed).
 *
 * @example
 * publicUrlOf({ host: '0.0.0.0', port: 8087, publicUrl: undefined }); // 'http://127.0.0.1:8087'
 */
export function publicUrlOf({ publicUrl, host, port }: PublicUrlParts): string {
  if (publicUrl !== undefined) return publicUrl;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
