/** The local fleet runner behind `pnpm fleet`: start, stop, inspect and tail the fleet's services. */
export { COMMANDS, main, runCli } from './cli';
export type { MainOptions, RunCliOptions } from './cli';
export { SERVICES, selectServices, serviceEntry } from './services';
export type { Infrastructure, ServiceDefinition } from './services';
export { pingRedis } from './redis-ping';
export type { PingRedisOptions, PingResult } from './redis-ping';
export { formatLogLine } from './log-format';
export type { FormatLogLineOptions } from './log-format';
export { runnerConfigSpec } from './config';
export { DOCUMENT_MEDIA_TYPES, documentMediaType, isDocumentFile } from './document-files';
