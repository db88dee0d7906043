/** The public face of nestjs-a2a: everything users import. Anything not exported here may change. */

// module and options
export { A2AModule } from './a2a.module.js';
export type {
  A2ACardOptions,
  A2ALimitOptions,
  A2AModuleExtras,
  A2AModuleOptions,
  A2APathOptions,
  A2APublicRouteMetadata,
  A2ASigningOptions,
  A2AStreamingOptions,
  A2ATaskOptions,
} from './config/a2a-options.js';
export { A2AConfigurationError } from './config/a2a-configuration.error.js';

// agents
export {
  A2AAgent,
  type A2AAgentOptions,
  type ExtendedAgentCardProvider,
  type ExtendedCardFields,
} from './server/a2a-agent.decorator.js';
export type { A2ACaller, AgentExecutor, AgentTool, MessageInput, ToolInvocation } from './tasks/agent-executor.js';
export { TaskContext, type ArtifactChunkOptions } from './tasks/task-context.js';
export { A2ACallerResolver, ANONYMOUS_SUBJECT, type RequestedScope } from './server/caller-resolver.js';

// security
export { A2APublic, A2A_PUBLIC } from './server/security/a2a-public.decorator.js';
export { A2ASecurity, SecuritySchemes, type A2ASecurityDeclaration } from './server/security/a2a-security.decorator.js';

// tasks: where they live (the backend contract, in memory, on Redis, or your own), the manager
export { TaskBackend, type TaskWrite } from './tasks/task-backend.js';
export { ConcurrentTaskUpdateError, type StoredTask, type TaskPage, type TaskQuery, type TaskScope, type TaskStore } from './tasks/task-store.js';
export type { EventLog, LoggedEvent } from './tasks/event-log.js';
export type { TaskCoordinator } from './tasks/task-coordinator.js';
export { InMemoryTaskBackend } from './tasks/in-memory/in-memory-task-backend.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './tasks/in-memory/in-memory-task-store.js';
export type { StorageBudgetOptions } from './tasks/in-memory/storage-budget.js';
export { InMemoryEventLog } from './tasks/in-memory/in-memory-event-log.js';
export { LocalTaskCoordinator } from './tasks/in-memory/local-task-coordinator.js';
export type { RetentionOptions } from './tasks/retention.js';
export { TaskManager, type TaskManagerOptions } from './tasks/engine/task-manager.js';

// Redis: durable tasks, one shared event log, several instances
export { REDIS_FAIL_FAST_OPTIONS, type A2ARedisOptions } from './redis/redis-connection.js';
export type { RedisTaskBackendOptions } from './tasks/redis/redis-task-options.js';
export { RedisTaskBackend } from './tasks/redis/redis-task-backend.js';
export { RedisTaskStore } from './tasks/redis/redis-task-store.js';
export { RedisEventLog } from './tasks/redis/redis-event-log.js';
export { RedisTaskCoordinator, type RedisTaskCoordinatorOptions } from './tasks/redis/redis-task-coordinator.js';

// push notifications: webhook configs in Redis, deliveries through BullMQ, signed with a JWT
export type { A2APushOptions, A2APushSigningOptions, NotificationSigningAlgorithm } from './push/push-options.js';
export { RETRY_SCHEDULE_PRESETS, parseDuration, type RetryScheduleInput, type RetrySchedulePreset } from './push/retry-schedule.js';
export { PushNotifications, DisabledPushNotifications } from './push/push-notifications.js';
export { PushNotificationService } from './push/push-notification.service.js';
export { PushConfigStore, type PushConfigPutResult, type StoredPushConfig } from './push/push-config-store.js';
export { RedisPushConfigStore } from './push/redis-push-config-store.js';
export { PushDeadLetters, RedisPushDeadLetters, type PushDeadLetter } from './push/push-dead-letters.js';
export {
  PushDeliveryEvents,
  type PushDeliveryCounters,
  type PushDeliveryEvent,
  type PushDeliveryEventType,
  type PushDeliveryListener,
} from './push/push-delivery-events.js';
export { NOTIFICATION_SIGNATURE_HEADER } from './push/notification-signer.js';
export { NOTIFICATION_TOKEN_HEADER } from './push/webhook-delivery.processor.js';
export { REDACTED_SECRET } from './push/stored-config.js';
export { TASK_EVENT_LISTENERS, type TaskEventListener } from './tasks/task-events.js';
export { A2ARequestHandler, type A2ACall, type StreamEvent } from './server/a2a-request-handler.js';
export { AgentRegistry, type PublishedAgent } from './server/agent-registry.js';
export { AgentCardService } from './server/agent-card.service.js';

// protocol: the wire model, errors, codec
export * from './protocol/types.js';
export * from './protocol/errors.js';
export { decode, encode, type Schema } from './protocol/codec.js';
export * as schemas from './protocol/schemas.js';
export { OPERATIONS, type A2AOperation } from './protocol/operations.js';
export { REST_ROUTES, type RestRoute } from './protocol/rest-routes.js';
export { EXTENSIONS_HEADER, VERSION_HEADER } from './protocol/service-params.js';
export { A2A_JSON } from './protocol/json-body.js';
export { buildAgentCard, serializeAgentCard, type AgentCardFields } from './protocol/agent-card.js';

// signed cards (spec §8.4): signing for servers, verification for clients
export {
  CardSigningError,
  publicJwks,
  signAgentCard,
  signedCardBody,
  type CardSigner,
  type CardSigningAlgorithm,
  type CardSigningKey,
  type CardSigningOptions,
} from './protocol/card-signing.js';
export {
  CardSignatureError,
  DEFAULT_CARD_SIGNATURE_ALGORITHMS,
  verifyAgentCard,
  type CardKeyResolver,
  type CardKeySource,
  type CardVerificationOptions,
  type VerifiedCardSignature,
} from './protocol/card-verification.js';
export { canonicalCardPayload } from './protocol/card-payload.js';

// client: calling other agents (card discovery, both bindings, deadlines, retries, breakers, egress policy)
export { A2AClient, type A2ACallOptions, type A2AClientOptions, type A2AStreamOptions, type A2ASubscribeOptions } from './client/a2a-client.js';
export { A2AEventStream } from './client/a2a-event-stream.js';
export type { A2AHttpOptions } from './client/a2a-http.js';
export {
  AgentCardResolver,
  WELL_KNOWN_AGENT_CARD_PATH,
  agentCardUrl,
  type AgentCardResolverOptions,
  type CardVerification,
  type ResolveCardOptions,
  type ResolvedAgentCard,
} from './client/card-resolver.js';
export {
  A2AClientError,
  A2AHttpError,
  A2ATimeoutError,
  CircuitOpenError,
  CredentialsWithheldError,
  InvalidClientOptionsError,
  NoCompatibleInterfaceError,
  UnknownA2AError,
  type A2ATimeoutKind,
} from './client/client-errors.js';
export type { A2AHeaderValues, A2AHeadersOption, A2AHeadersProvider, A2ARequestInfo } from './client/headers.js';
export { selectInterface, type A2ABinding, type SelectedInterface } from './client/interface-selection.js';
export { A2ACircuitBreakers, type A2ACircuitBreakerOptions, type A2ACircuitState, type A2ARetryOptions } from './client/resilience.js';
// the egress policy and errors a client's caller configures and catches (shared with webhooks)
export { EgressPolicy, type EgressLookup, type EgressPolicyOptions } from './net/egress-policy.js';
export { EgressError, EgressRefusedError, EgressRequestError, type EgressRefusalReason } from './net/egress-errors.js';
export { PinnedDispatcher, createPinnedDispatcher, type PinnedDispatcherOptions } from './net/pinned-dispatcher.js';
export { redactUrl } from './net/redact-url.js';

// peers as tools: PeerToolProvider, credentials by name, approval of every call
export {
  BUILT_IN_CREDENTIAL_SCHEMES,
  type A2ACredentialsOptions,
  type A2AOutboundOptions,
  type A2APeerOptions,
} from './client/peers/peer-options.js';
export { PeerToolProvider, type PeerDiagnostics, type PeerTool, type PeerToolInvocation } from './client/peers/peer-tool-provider.js';
export {
  PEER_TOOL_SEPARATOR,
  peerToolName,
  peerToolSpecs,
  type PeerToolArgs,
  type PeerToolResult,
  type PeerToolSpec,
} from './client/peers/peer-tool-specs.js';
export {
  PeerToolError,
  ToolApprovalDeniedError,
  ToolInputError,
  ToolNotGrantedError,
  ToolTimeoutError,
  ToolUnavailableError,
  type PeerToolErrorCode,
} from './client/peers/peer-tool-errors.js';
export {
  A2ACredentialStrategy,
  ApiKeyCredentialStrategy,
  BearerCredentialStrategy,
  CredentialNotFoundError,
  CredentialResolver,
  EnvCredentialResolver,
  credentialEnvName,
  type CredentialContext,
  type CredentialRequest,
  type CredentialStrategy,
  type PeerScope,
} from './client/peers/credentials.js';
export { ApproveAllTools, ToolApproval, type ToolApprovalDecision, type ToolApprovalRequest } from './client/peers/tool-approval.js';
