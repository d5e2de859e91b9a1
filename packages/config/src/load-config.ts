import { ConfigError } from '@fleet/errors';
import type { ConfigOf, ConfigSpec } from './env-var';

/** The environment as `process.env` presents it. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads every variable of `spec` from `environment`, treating empty strings as unset, and returns
 * the typed configuration. When anything is wrong it throws one {@link ConfigError} whose message
 * names every bad variable and why, so a boot fails once with the whole list.
 *
 * @example
 * const config = loadConfig(gatewayConfigSpec, process.env);
 */
export function loadConfig<TSpec extends ConfigSpec>(
  spec: TSpec,
  environment: Environment,
): ConfigOf<TSpec> {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, variable] of Object.entries(spec)) {
    const raw = environment[variable.name];
    const value = raw === undefined || raw.trim() === '' ? undefined : raw.trim();
    const parsed = variable.schema.safeParse(value);
    if (parsed.success) {
      config[field] = parsed.data;
      continue;
    }
    const reason = parsed.error.issues.map((issue) => issue.message).join('; ');
    const shown =
      value === undefined ? 'unset' : variable.secret ? 'a value (hidden)' : JSON.stringify(value);
    problems.push(`  - ${variable.name} (${shown}): ${reason}. ${variable.description}`);
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `Invalid configuration: ${problems.length} variable${problems.length === 1 ? '' : 's'} to fix:\n${problems.join('\n')}`,
      { details: { variables: problems.length } },
    );
  }
  return config as ConfigOf<TSpec>;
}
