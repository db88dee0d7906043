/**
 * `nestjs-a2a`: publishing agents. The module and its options, the decorators, the executor API,
 * the errors and the wire types. Calling other agents is `nestjs-a2a/client`; test helpers are
 * `nestjs-a2a/testing`. Anything not exported from an entry may change.
 *
 * @module nestjs-a2a
 */

// the module and its options
export { A2AModule, type A2AAsyncExtras } from './a2a.module.js';
export type { A2AModuleExtras, A2AModuleOptions, A2ATaskOptions, ResolvedA2AOptions } from './a2a-options.js';
export type { A2APathOptions } from './server/a2a-paths.js';
export type { A2ACardOptions, A2ALimitOptions, A2APublicRouteMetadata, A2AServerExtras, A2AShutdownOptions, A2ASigningOptions, A2AStreamingOptions } from './server/server-options.js';
export type { A2APushOptions, A2APushSigningOptions, NotificationSigningAlgorithm } from './push/push-options.js';
export type { RetryScheduleInput, RetrySchedulePreset } from './push/retry-schedule.js';
export type { A2ACredentialsOptions, A2AOutboundOptions, A2APeerOptions } from './client/peers/peer-options.js';
export type { A2ARedisOptions } from './redis/redis-connection.js';
export type { EgressPolicyOptions } from './net/egress-policy.js';
export { REDIS_FAIL_FAST_OPTIONS } from './redis/redis-connection.js';
export { A2A_OPTIONS, A2A_PUSH_QUEUE_NAME, InjectA2AOptions } from './config/a2a.constants.js';
export { A2AConfigurationError } from './config/a2a-configuration.error.js';
export type { A2AHttpServerOptions } from './server/http-server-options.js';

// health: readiness of the module's connections and workers, and shutdown (for @nestjs/terminus)
export { A2AHealthIndicator, type A2AHealthReport, type A2AHealthResult } from './a2a-health.indicator.js';

// agents: the decorator and the executor API
export { A2AAgent, type A2AAgentOptions, type ExtendedAgentCardProvider, type ExtendedCardFields } from './server/a2a-agent.decorator.js';
export type { A2ACaller, AgentExecutor, AgentTool, MessageInput, ToolInvocation } from './tasks/agent-executor.js';
export { TaskContext, type ArtifactChunkOptions, type ArtifactOptions } from './tasks/task-context.js';
export type { Conversation, ConversationOptions, ConversationTurn } from './tasks/conversation.js';
export { dataPart, filePart, textPart, type FileInput } from './tasks/parts.js';
export { ToolCallEvents, type ToolCallEvent, type ToolCallListener } from './tasks/tool-call-events.js';
export { A2ACallerResolver, ANONYMOUS_SUBJECT, type RequestedScope } from './server/caller-resolver.js';

// security: the app's own guards on every A2A route, an honest card
export { A2APublic, A2A_PUBLIC } from './server/security/a2a-public.decorator.js';
export { A2ASecurity, SecuritySchemes, type A2ASecurityDeclaration } from './server/security/a2a-security.decorator.js';

// signed cards (spec §8.4): the keys of the `signing` option, and signing by hand
export {
  CardSigningError,
  publicJwks,
  signAgentCard,
  type CardSigner,
  type CardSigningAlgorithm,
  type CardSigningKey,
  type CardSigningOptions,
} from './protocol/card-signing.js';

// tasks: where they live (the backend contract, in memory, on Redis, or your own) and who hears their logs
export { TASK_EVENT_LISTENERS, type TaskEventListener } from './tasks/task-events.js';
export { TaskBackend, type TaskWrite } from './tasks/task-backend.js';
export { ConcurrentTaskUpdateError, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from './tasks/task-store.js';
export type { EventLog, LoggedEvent } from './tasks/event-log.js';
export type { TaskCoordinator } from './tasks/task-coordinator.js';
export { InMemoryTaskBackend } from './tasks/in-memory/in-memory-task-backend.js';
export type { InMemoryTaskStoreOptions } from './tasks/in-memory/in-memory-task-store.js';
export type { StorageBudgetOptions } from './tasks/storage-budget.js';
export { LocalTaskCoordinator } from './tasks/in-memory/local-task-coordinator.js';
export type { RetentionOptions } from './tasks/retention.js';
export { RedisTaskBackend } from './tasks/redis/redis-task-backend.js';
export type { RedisTaskBackendOptions } from './tasks/redis/redis-task-options.js';

// push notifications: what deliveries tell, what is left of the failed ones, the headers receivers check
export {
  PushDeliveryEvents,
  type PushDeliveryCounters,
  type PushDeliveryEvent,
  type PushDeliveryEventType,
  type PushDeliveryListener,
} from './push/push-delivery-events.js';
export { PushDeadLetters, type PushDeadLetter } from './push/push-dead-letters.js';
export { PushDeliveryAdmin, type PushConfigDeliveryState } from './push/push-delivery-admin.js';
export type { FailedAttempt } from './push/push-outbox.js';
export { NOTIFICATION_SIGNATURE_HEADER } from './push/notification-signer.js';
export { NOTIFICATION_TOKEN_HEADER } from './push/webhook-delivery.processor.js';
export { REDACTED_SECRET } from './push/stored-config.js';

// the wire: A2A v1.0 as plain JSON types, its constants, its errors
export type {
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentProvider,
  AgentSkill,
  Artifact,
  AuthenticationInfo,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  JsonObject,
  JsonValue,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  OAuthFlows,
  Part,
  Role,
  SecurityRequirement,
  SecurityScheme,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from './protocol/types.js';
export { PROTOCOL_BINDINGS, PROTOCOL_VERSION, ROLES, TASK_STATES, isInterruptedState, isTerminalState } from './protocol/types.js';
export { EXTENSIONS_HEADER, VERSION_HEADER } from './protocol/service-params.js';
export { A2A_JSON } from './protocol/json-body.js';
export { WELL_KNOWN_AGENT_CARD_PATH } from './protocol/agent-card.js';
export {
  A2AError,
  AgentNotFoundError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  MethodNotAllowedError,
  MethodNotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PushNotificationNotSupportedError,
  ResourceExhaustedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  type ErrorDetail,
  type FieldViolation,
  type GrpcStatus,
  type JsonRpcErrorObject,
  type RestErrorBody,
} from './protocol/errors.js';
