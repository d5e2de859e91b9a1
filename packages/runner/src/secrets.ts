import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, safeParseJson } from '@fleet/errors';

/** The dev gateway key's tenant. */
export const DEV_TENANT = 'dev';

/** Secrets the runner generates once and keeps in `.fleet/secrets.json`. */
export const fleetSecretsSchema = z.object({
  /** `sk-fleet-dev-<random>`, accepted for tenant `dev` when `GATEWAY_API_KEYS` is unset. */
  gatewayApiKey: z.string().min(20),
  /** `FLEET_INTERNAL_TOKEN` when the caller did not set one. */
  internalToken: z.string().min(32),
});

/** The runner's generated secrets. */
export type FleetSecrets = z.infer<typeof fleetSecretsSchema>;

/** The result of {@link loadOrCreateSecrets}. */
export interface LoadedSecrets {
  secrets: FleetSecrets;
  /** True when this call generated them. */
  created: boolean;
}

function generateSecrets(): FleetSecrets {
  return {
    gatewayApiKey: `sk-fleet-dev-${randomBytes(24).toString('base64url')}`,
    internalToken: randomBytes(32).toString('base64url'),
  };
}

/**
 * Reads the secrets file, or creates it (mode 0600) with fresh secrets. The same key survives
 * restarts, so a client configured once keeps working.
 *
 * @example
 * const { secrets } = await loadOrCreateSecrets(paths.secretsFile);
 */
export async function loadOrCreateSecrets(file: string): Promise<LoadedSecrets> {
  await mkdir(path.dirname(file), { recursive: true });
  const secrets = generateSecrets();
  try {
    // 'wx' fails if the file exists, so two runners never overwrite each other's secrets.
    await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return { secrets, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const parsed = safeParseJson({
    text: await readFile(file, 'utf8'),
    schema: fleetSecretsSchema,
    subject: file,
  });
  if (!parsed.success) {
    throw new ConfigError(
      `${parsed.error.message}. Delete the file to generate new secrets (the dev key changes).`,
      { cause: parsed.error },
    );
  }
  await chmod(file, 0o600);
  return { secrets: parsed.value, created: false };
}

/** The `GATEWAY_API_KEYS` value for the dev key: `<key>:dev`. */
export function devGatewayApiKeys(secrets: FleetSecrets): string {
  return `${secrets.gatewayApiKey}:${DEV_TENANT}`;
}

/**
 * Reads the secrets `fleet up` generated, without creating any: `undefined` when there are none
 * yet (commands that talk to a running fleet need the token it was started with).
 */
export async function readSecrets(file: string): Promise<FleetSecrets | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = safeParseJson({ text, schema: fleetSecretsSchema, subject: file });
  if (!parsed.success) throw new ConfigError(parsed.error.message, { cause: parsed.error });
  return parsed.value;
}
