import { ConfigError } from '@fleet/errors';
import type { ConfigOf, ConfigSpec } from './env-var';

/** The environment as `process.env` presents it. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Told once per variable read under an earlier name.
   * @default a Node `DeprecationWarning` (code `FLEET_ENV_RENAMED`) on stderr
   */
  onDeprecated?: (used: string, current: string) => void;
}

function warnDeprecated(used: string, current: string): void {
  process.emitWarning(`${used} is deprecated: set ${current} instead (${used} is still read).`, {
    type: 'DeprecationWarning',
    code: 'FLEET_ENV_RENAMED',
  });
}

function present(raw: string | undefined): string | undefined {
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** A problem for each pair of set variables that one of them says it `conflictsWith`, once per pair. */
function conflicts(spec: ConfigSpec, environment: Environment): string[] {
  const problems: string[] = [];
  const reported = new Set<string>();
  for (const variable of Object.values(spec)) {
    if (present(environment[variable.name]) === undefined) continue;
    for (const other of variable.conflictsWith ?? []) {
      const pair = [variable.name, other].sort().join(' ');
      if (present(environment[other]) === undefined || reported.has(pair)) continue;
      reported.add(pair);
      problems.push(`  - ${variable.name} and ${other} are both set: set only one of them.`);
    }
  }
  return problems;
}

/**
 * Reads every variable of `spec` from `environment`, treating empty strings as unset, and returns
 * the typed configuration. A variable set only under one of its `deprecatedNames` is read from
 * there, with a deprecation warning. Two set variables one of which `conflictsWith` the other are
 * an error. When anything is wrong it throws one {@link ConfigError} whose message
 * names every bad variable and why, so a boot fails once with the whole list.
 *
 * @example
 * const config = loadConfig(gatewayConfigSpec, process.env);
 */
export function loadConfig<TSpec extends ConfigSpec>(
  spec: TSpec,
  environment: Environment,
  { onDeprecated = warnDeprecated }: LoadConfigOptions = {},
): ConfigOf<TSpec> {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [field, variable] of Object.entries(spec)) {
    let value = present(environment[variable.name]);
    let shownName = variable.name;
    for (const earlier of variable.deprecatedNames ?? []) {
      if (value !== undefined) break;
      value = present(environment[earlier]);
      if (value !== undefined) {
        shownName = earlier;
        onDeprecated(earlier, variable.name);
      }
    }
    const parsed = variable.schema.safeParse(value);
    if (parsed.success) {
      config[field] = parsed.data;
      continue;
    }
    const reason = parsed.error.issues.map((issue) => issue.message).join('; ');
    const shown =
      value === undefined ? 'unset' : variable.secret ? 'a value (hidden)' : JSON.stringify(value);
    problems.push(`  - ${shownName} (${shown}): ${reason}. ${variable.description}`);
  }
  problems.push(...conflicts(spec, environment));
  if (problems.length > 0) {
    throw new ConfigError(
      `Invalid configuration: ${problems.length} variable${problems.length === 1 ? '' : 's'} to fix:\n${problems.join('\n')}`,
      { details: { variables: problems.length } },
    );
  }
  return config as ConfigOf<TSpec>;
}
