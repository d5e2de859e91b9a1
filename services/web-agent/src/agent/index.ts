/** The web agent as an A2A agent: its card, input reading, execute function, handler and result shapes. */
export { createWebHandler } from './create-web-handler';
export type { CreateWebHandlerOptions } from './create-web-handler';
export { createWebAgent } from './web-agent';
export { webAvailability } from './web-availability';
export type { CreateWebAgentOptions } from './web-agent';
export { buildWebCard, WEB_AGENT_VERSION, WEB_SKILLS } from './web-card';
export type { BuildWebCardOptions, WebSkill } from './web-card';
export { MAX_QUESTION_CHARS, readWebInput } from './read-web-input';
export type { WebInput } from './read-web-input';
export { errorDataSchema, pageReportSchema, webResultDataSchema } from './result-data';
export type { ErrorData, WebResultData } from './result-data';
