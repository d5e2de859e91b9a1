import type { ConfigSpec, EnvVar } from './env-var';

/** A documentation row for one variable. */
export interface EnvVarDoc {
  name: string;
  description: string;
  /** The default in words: `8080`, `unset: offline mode`, `required`. */
  defaultText: string;
  /** The default as a value for an env file, when there is one. */
  defaultValue: string | undefined;
  example: string | undefined;
  secret: boolean;
  /** Earlier names still read, with a deprecation warning. */
  deprecatedNames: readonly string[];
}

function defaultValueOf(variable: EnvVar): string | undefined {
  const parsed = variable.schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  return typeof parsed.data === 'string' ? parsed.data : JSON.stringify(parsed.data);
}

function defaultTextOf(variable: EnvVar): string {
  if (variable.defaultText !== undefined) return variable.defaultText;
  if (!variable.schema.safeParse(undefined).success) return 'required';
  return defaultValueOf(variable) ?? 'unset';
}

/** Documentation rows for every variable of a spec, in declaration order, each name once. */
export function describeConfig(spec: ConfigSpec): EnvVarDoc[] {
  const seen = new Set<string>();
  const rows: EnvVarDoc[] = [];
  for (const variable of Object.values(spec)) {
    if (seen.has(variable.name)) continue;
    seen.add(variable.name);
    rows.push({
      name: variable.name,
      description: variable.description,
      defaultText: defaultTextOf(variable),
      defaultValue: defaultValueOf(variable),
      example: variable.example,
      secret: variable.secret ?? false,
      deprecatedNames: variable.deprecatedNames ?? [],
    });
  }
  return rows;
}

function formerly(row: EnvVarDoc): string {
  if (row.deprecatedNames.length === 0) return '';
  return ` Formerly ${row.deprecatedNames.join(', ')} (still read, with a deprecation warning).`;
}

/** One titled group of variables for {@link renderEnvExample}. */
export interface ConfigSection {
  title: string;
  spec: ConfigSpec;
}

/**
 * Renders `.env.example`: each section's variables, commented out, with their meaning and default.
 * A variable already shown in an earlier section is not repeated.
 */
export function renderEnvExample(sections: readonly ConfigSection[]): string {
  const seen = new Set<string>();
  const lines: string[] = [
    "# A2A Fleet configuration. Generated from each service's config spec by `pnpm docs:config`;",
    '# do not edit by hand. Every variable is optional unless marked required.',
  ];
  for (const section of sections) {
    const rows = describeConfig(section.spec).filter((row) => !seen.has(row.name));
    if (rows.length === 0) continue;
    lines.push('', `# ---- ${section.title} ----`);
    for (const row of rows) {
      seen.add(row.name);
      lines.push(`# ${row.description} Default: ${row.defaultText}.${formerly(row)}`);
      lines.push(`# ${row.name}=${row.example ?? row.defaultValue ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Renders the variables as a Markdown table per section, for `docs/configuration.md`. */
export function renderConfigMarkdown(sections: readonly ConfigSection[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const section of sections) {
    const rows = describeConfig(section.spec).filter((row) => !seen.has(row.name));
    if (rows.length === 0) continue;
    parts.push(`## ${section.title}`, '', '| variable | meaning | default |', '|---|---|---|');
    for (const row of rows) {
      seen.add(row.name);
      const cell = (text: string): string => text.replaceAll('|', '\\|');
      parts.push(
        `| \`${row.name}\` | ${cell(row.description + formerly(row))} | ${cell(row.defaultText)} |`,
      );
    }
    parts.push('');
  }
  return parts.join('\n');
}
