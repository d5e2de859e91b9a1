import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';

/**
 * One limit: a whole number of 1 or more, or `unlimited` (parsed as `null`). Numbers may come as
 * JSON numbers (the limits file) or as text (the environment).
 */
export const limitValueSchema = z.union([z.number(), z.string()]).transform((value, context) => {
  if (value === 'unlimited') return null;
  const number = typeof value === 'number' ? value : Number(value.trim());
  if (
    !Number.isSafeInteger(number) ||
    number < 1 ||
    (typeof value === 'string' && !/^\s*\d+\s*$/.test(value))
  ) {
    context.addIssue({
      code: 'custom',
      message: "expected a whole number of 1 or more, or 'unlimited'",
    });
    return z.NEVER;
  }
  return number;
});

/**
 * A tenant's limits (docs/limits.md); `null` is unlimited. `rpm`: requests per window
 * (GATEWAY_LIMIT_WINDOW_SECONDS) on each limited route; `runs`: orchestrated runs answering at
 * once; `waiting`: the tenant's sessions waiting for a person before new runs are refused;
 * `tokens_per_day`: tokens the tenant's answers may report per UTC day.
 */
export const tenantLimitsSchema = z.strictObject({
  rpm: limitValueSchema,
  runs: limitValueSchema,
  waiting: limitValueSchema,
  tokens_per_day: limitValueSchema,
});

/** A tenant's limits; `null` is unlimited. */
export type TenantLimits = z.infer<typeof tenantLimitsSchema>;

/** A tenant's overrides: only the limits it changes. */
export const tenantLimitOverridesSchema = tenantLimitsSchema.partial();

/** A tenant's overrides, as parsed. */
export type TenantLimitOverrides = z.infer<typeof tenantLimitOverridesSchema>;

/** A tenant's name, as `GATEWAY_API_KEYS` allows it. */
const TENANT_PATTERN = /^[\w.-]{1,64}$/;

const LIMIT_NAMES = Object.keys(tenantLimitsSchema.shape).join(', ');

/** Overrides by tenant, as both the inline variable and the file parse to. */
export type TenantLimitTable = Record<string, TenantLimitOverrides>;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
    .join('; ');
}

/** Parses one `tenant:name=value,…` entry; answers the problem's description when it is bad. */
function parseEntry(entry: string): { tenant: string; limits: TenantLimitOverrides } | string {
  const separator = entry.indexOf(':');
  const tenant = separator === -1 ? '' : entry.slice(0, separator).trim();
  if (!TENANT_PATTERN.test(tenant)) {
    return "is not 'tenant:name=value,…' with a tenant of letters, digits, '.', '_' or '-'";
  }
  const fields: Record<string, string> = {};
  for (const pair of entry.slice(separator + 1).split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) return `(${tenant}): '${pair.trim()}' is not name=value`;
    fields[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  const parsed = tenantLimitOverridesSchema.safeParse(fields);
  if (!parsed.success) {
    return `(${tenant}): ${describeIssues(parsed.error)} (limits: ${LIMIT_NAMES})`;
  }
  return { tenant, limits: parsed.data };
}

/**
 * `GATEWAY_TENANT_LIMITS`: `tenant:name=value,…` entries separated by `;`, e.g.
 * `acme:rpm=60,runs=2,tokens_per_day=200000;globex:rpm=600`. A bad entry fails naming it (its
 * number and tenant) and what is wrong.
 */
export const inlineTenantLimitsSchema = z.string().transform((value, context) => {
  const table: TenantLimitTable = {};
  const entries = value
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const [index, entry] of entries.entries()) {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') {
      context.addIssue({ code: 'custom', message: `entry ${index + 1} ${parsed}` });
      return z.NEVER;
    }
    table[parsed.tenant] = { ...table[parsed.tenant], ...parsed.limits };
  }
  return table;
});

const limitsFileSchema = z.record(
  z.string().regex(TENANT_PATTERN, "expected a tenant of letters, digits, '.', '_' or '-'"),
  tenantLimitOverridesSchema,
);

/**
 * `GATEWAY_TENANT_LIMITS_FILE`: the path of a JSON object of overrides by tenant, e.g.
 * `{ "acme": { "rpm": 60, "runs": 2, "tokens_per_day": "unlimited" } }`, read once at start. A
 * missing file, bad JSON or a bad entry fails naming the file and the entry.
 */
export const tenantLimitsFileSchema = z.string().transform((path, context) => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: `cannot read ${path}: ${(error as Error).message}`,
    });
    return z.NEVER;
  }
  const parsed = safeParseJson({ text, schema: limitsFileSchema, subject: path });
  if (!parsed.success) {
    const issues = parsed.error.details?.['issues'];
    context.addIssue({
      code: 'custom',
      message: `${parsed.error.message}${Array.isArray(issues) ? ` ${JSON.stringify(issues)}` : ''}`,
    });
    return z.NEVER;
  }
  return parsed.value;
});
