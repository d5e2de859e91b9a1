/** A2A v1.0 wire schemas and types, and the fleet's conventions on top of them (no I/O). */
export {
  A2A_VERSION,
  artifactSchema,
  messageSchema,
  metadataSchema,
  partSchema,
  roleSchema,
  streamResponseSchema,
  taskArtifactUpdateEventSchema,
  taskSchema,
  taskStateSchema,
  taskStatusSchema,
  taskStatusUpdateEventSchema,
} from './schemas/core';
export type {
  Artifact,
  Message,
  Part,
  Role,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from './schemas/core';
export {
  agentCapabilitiesSchema,
  agentCardSchema,
  agentCardSignatureSchema,
  agentExtensionSchema,
  agentInterfaceSchema,
  agentProviderSchema,
  agentSkillSchema,
  securityRequirementSchema,
  securitySchemeSchema,
} from './schemas/agent-card';
export type {
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentProvider,
  AgentSkill,
  SecurityRequirement,
  SecurityScheme,
} from './schemas/agent-card';
export {
  errorInfoSchema,
  jsonRpcErrorResponseSchema,
  jsonRpcErrorSchema,
  jsonRpcIdSchema,
  jsonRpcRequestSchema,
  jsonRpcResponseSchema,
  jsonRpcSuccessResponseSchema,
} from './schemas/json-rpc';
export type {
  ErrorInfo,
  JsonRpcError,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from './schemas/json-rpc';
export {
  A2A_METHODS,
  cancelTaskRequestSchema,
  getTaskRequestSchema,
  listTasksRequestSchema,
  listTasksResponseSchema,
  sendMessageConfigurationSchema,
  sendMessageRequestSchema,
  sendMessageResponseSchema,
  subscribeToTaskRequestSchema,
  taskPushNotificationConfigSchema,
} from './schemas/methods';
export type {
  A2AMethod,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from './schemas/methods';
export {
  createMessage,
  dataPart,
  findData,
  isInterruptedState,
  isTerminalState,
  partsText,
  textPart,
} from './schemas/helpers';
export type { CreateMessageOptions } from './schemas/helpers';
export {
  A2A_ERROR_CODES,
  A2A_ERROR_DOMAIN,
  A2A_ERROR_FACTORIES,
  A2AError,
  A2AInternalError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  FLEET_ERROR_DOMAIN,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from './errors/a2a-errors';
export type { A2AErrorName, A2AErrorOptions } from './errors/a2a-errors';
export { fromJsonRpcError, toJsonRpcError } from './errors/json-rpc-error';
export type { FromJsonRpcErrorOptions } from './errors/json-rpc-error';
export * from './fleet';
