/** Environment configuration for fleet services: declare variables once, load them with zod. */
export { envVar } from './env-var';
export type { ConfigOf, ConfigSpec, EnvVar } from './env-var';
export { loadConfig } from './load-config';
export type { Environment, LoadConfigOptions } from './load-config';
export {
  booleanSchema,
  byteSizeSchema,
  hostPortListSchema,
  httpUrlSchema,
  listSchema,
  logLevelSchema,
  portSchema,
  positiveIntSchema,
  redisUrlSchema,
} from './schemas';
export type { HostPort } from './schemas';
export { llmEnv, redisEnv, runtimeEnv, telemetryEnv } from './shared-env';
export { a2aServerEnv, internalTokenEnv, publicUrlOf } from './server-env';
export type { A2AServerEnvOptions, PublicUrlParts } from './server-env';
export { describeConfig, renderConfigMarkdown, renderEnvExample } from './describe-config';
export type { ConfigSection, EnvVarDoc } from './describe-config';
export { exitOnConfigError } from './exit-on-config-error';
