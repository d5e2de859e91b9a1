import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { toolPolicySchema } from '@fleet/a2a';
import { safeParseJson } from '@fleet/errors';

/** A tenant's name, as `GATEWAY_API_KEYS` allows it. */
const TENANT_PATTERN = /^[\w.-]{1,64}$/;

const TENANT_MESSAGE = "expected a tenant of letters, digits, '.', '_' or '-'";

/** Most tenants one tool-permissions table names. */
export const MAX_TOOL_PERMISSION_TENANTS = 1000;

/**
 * Which MCP tools each tenant may use (docs/security.md, "Tool permissions"): `tenants` maps a
 * tenant to its tool policy (`{ allow?: ["<server>/<tool>", …], deny?: […] }`, `*` a wildcard,
 * deny winning), `default` is the policy of every tenant not named. Neither: every tool.
 */
export const toolPermissionsSchema = z.strictObject({
  tenants: z
    .record(z.string().regex(TENANT_PATTERN, TENANT_MESSAGE), toolPolicySchema)
    .refine((tenants) => Object.keys(tenants).length <= MAX_TOOL_PERMISSION_TENANTS, {
      message: `expected at most ${MAX_TOOL_PERMISSION_TENANTS} tenants`,
    })
    .optional(),
  default: toolPolicySchema.optional(),
});

/** The tool permissions, as parsed. */
export type ToolPermissionsTable = z.infer<typeof toolPermissionsSchema>;

/** The issues of a failed parse, each naming where it is (`tenants.acme.deny.0: …`). */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.map(String);
      // A bad tenant name is reported on the key itself.
      const entry =
        where[0] === 'tenants' && where.length > 1 ? `tenant entry "${where[1]}"` : where[0];
      const rest = where[0] === 'tenants' ? where.slice(2) : where.slice(1);
      const path = [entry, ...rest].filter((part) => part !== undefined).join('.');
      // zod reports a bad record key as "Invalid key in record"; say what a key must be.
      const message = issue.code === 'invalid_key' ? TENANT_MESSAGE : issue.message;
      return `${path === '' ? '' : `${path}: `}${message}`;
    })
    .join('; ');
}

function parseTable(
  text: string,
  { subject, context }: { subject: string; context: z.RefinementCtx },
): ToolPermissionsTable | typeof z.NEVER {
  const json = safeParseJson({ text, schema: z.unknown(), subject });
  if (!json.success) {
    context.addIssue({ code: 'custom', message: json.error.message });
    return z.NEVER;
  }
  const parsed = toolPermissionsSchema.safeParse(json.value);
  if (!parsed.success) {
    context.addIssue({ code: 'custom', message: `${subject}: ${describeIssues(parsed.error)}` });
    return z.NEVER;
  }
  return parsed.data;
}

/**
 * `GATEWAY_TOOL_PERMISSIONS`: the tool permissions as inline JSON, e.g.
 * `{"tenants":{"acme":{"deny":["memory/delete_*"]}},"default":{"allow":["memory/read_*"]}}`. A bad
 * entry fails naming it (`tenant entry "acme"`, the pattern's place) and what is wrong.
 */
export const inlineToolPermissionsSchema = z
  .string()
  .transform((text, context) => parseTable(text, { subject: 'The tool permissions', context }));

/**
 * `GATEWAY_TOOL_PERMISSIONS_FILE`: the path of a JSON file of the same shape, read once at start.
 * A missing file, bad JSON or a bad entry fails naming the file and the entry.
 */
export const toolPermissionsFileSchema = z.string().transform((path, context) => {
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
  return parseTable(text, { subject: path, context });
});
