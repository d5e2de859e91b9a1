import { z } from 'zod';

/** One way to reach the agent: the URL, the binding and the protocol version it speaks there. */
export const agentInterfaceSchema = z.object({
  url: z.string(),
  /** `JSONRPC`, `HTTP+JSON`, `GRPC` or a custom URI. */
  protocolBinding: z.string(),
  protocolVersion: z.string().default(''),
  tenant: z.string().optional(),
});
export type AgentInterface = z.infer<typeof agentInterfaceSchema>;

/** An extension the agent supports. */
export const agentExtensionSchema = z.object({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  /** Read liberally: params that are not an object are dropped, the extension kept. */
  params: z.record(z.string(), z.unknown()).optional().catch(undefined),
});
export type AgentExtension = z.infer<typeof agentExtensionSchema>;

/**
 * A card's extensions, read liberally: an entry that is not an extension (no `uri`, not an object)
 * is dropped, never a reason to refuse the whole card.
 */
const agentExtensionsSchema = z.array(z.unknown()).transform((entries) =>
  entries.flatMap((entry) => {
    const parsed = agentExtensionSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  }),
);

/** What the agent can do beyond the basics. */
export const agentCapabilitiesSchema = z.object({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extensions: agentExtensionsSchema.optional(),
  extendedAgentCard: z.boolean().optional(),
});
export type AgentCapabilities = z.infer<typeof agentCapabilitiesSchema>;

/** `{ <scheme name>: { list: [scopes] } }`: every named scheme must be satisfied. */
export const securityRequirementSchema = z.object({
  schemes: z.record(z.string(), z.object({ list: z.array(z.string()).default([]) })).default({}),
});
export type SecurityRequirement = z.infer<typeof securityRequirementSchema>;

/** A security scheme: exactly one member is set (kept loose: only the bearer form is used here). */
export const securitySchemeSchema = z.object({
  apiKeySecurityScheme: z
    .object({ location: z.string().optional(), name: z.string().optional() })
    .loose()
    .optional(),
  httpAuthSecurityScheme: z
    .object({ scheme: z.string(), bearerFormat: z.string().optional() })
    .loose()
    .optional(),
  oauth2SecurityScheme: z.record(z.string(), z.unknown()).optional(),
  openIdConnectSecurityScheme: z.object({ openIdConnectUrl: z.string() }).loose().optional(),
  mtlsSecurityScheme: z.record(z.string(), z.unknown()).optional(),
});
export type SecurityScheme = z.infer<typeof securitySchemeSchema>;

/** One thing the agent is good at, for planners and people. */
export const agentSkillSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  securityRequirements: z.array(securityRequirementSchema).optional(),
});
export type AgentSkill = z.infer<typeof agentSkillSchema>;

/** The organisation behind the agent. */
export const agentProviderSchema = z.object({ organization: z.string(), url: z.string() });
export type AgentProvider = z.infer<typeof agentProviderSchema>;

/** A JWS over the card (RFC 8785 canonical form, `signatures` left out). */
export const agentCardSignatureSchema = z.object({
  protected: z.string(),
  signature: z.string(),
  header: z.record(z.string(), z.unknown()).optional(),
});
export type AgentCardSignature = z.infer<typeof agentCardSignatureSchema>;

/**
 * The v1.0 Agent Card (docs/a2a.md §2), served at `/.well-known/agent-card.json`. Lists that ProtoJSON
 * leaves out when empty default to `[]`.
 */
export const agentCardSchema = z.object({
  name: z.string(),
  description: z.string().default(''),
  version: z.string().default(''),
  supportedInterfaces: z.array(agentInterfaceSchema).default([]),
  provider: agentProviderSchema.optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  capabilities: agentCapabilitiesSchema.default({}),
  securitySchemes: z.record(z.string(), securitySchemeSchema).optional(),
  securityRequirements: z.array(securityRequirementSchema).optional(),
  defaultInputModes: z.array(z.string()).default([]),
  defaultOutputModes: z.array(z.string()).default([]),
  skills: z.array(agentSkillSchema).default([]),
  signatures: z.array(agentCardSignatureSchema).optional(),
});
export type AgentCard = z.infer<typeof agentCardSchema>;
