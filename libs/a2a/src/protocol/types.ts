/**
 * The A2A v1.0 wire model as plain JSON types (the ProtoJSON form of `lf.a2a.v1`).
 *
 * Unions are "which key is present", exactly as on the wire: a `Part` has one of
 * `text` / `raw` / `url` / `data`, a `StreamResponse` one of `task` / `message` /
 * `statusUpdate` / `artifactUpdate`. An absent optional field means "not set".
 */

/** Any JSON value (`google.protobuf.Value`). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (`google.protobuf.Struct`). */
export type JsonObject = { [key: string]: JsonValue };

export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
/** @publicApi */
export type TaskState = (typeof TASK_STATES)[number];

export const ROLES = ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] as const;
/** @publicApi */
export type Role = (typeof ROLES)[number];

const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** COMPLETED, FAILED, CANCELED, REJECTED: the task never changes again. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

/** INPUT_REQUIRED, AUTH_REQUIRED: the agent waits for the client. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED_STATES.has(state);
}

/** @publicApi */
export interface Part {
  text?: string;
  /** base64 */
  raw?: string;
  url?: string;
  data?: JsonValue;
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}

/** @publicApi */
export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

/** @publicApi */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** RFC 3339, UTC, millisecond precision. */
  timestamp?: string;
}

/** @publicApi */
export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

/** @publicApi */
export interface Task {
  id: string;
  contextId?: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

/** @publicApi */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

/** @publicApi */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** One event of a stream, and the body of a push notification. Exactly one key is set. @publicApi */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** @publicApi */
export type SendMessageResponse = { task: Task } | { message: Message };

/** @publicApi */
export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

/** @publicApi */
export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

/** @publicApi */
export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

/** @publicApi */
export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

/** @publicApi */
export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

/** @publicApi */
export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

/** @publicApi */
export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** @publicApi */
export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

/** @publicApi */
export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

/** @publicApi */
export interface GetTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

/** @publicApi */
export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

/** @publicApi */
export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken?: string;
}

/** @publicApi */
export interface DeleteTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

/** @publicApi */
export interface GetExtendedAgentCardRequest {
  tenant?: string;
}

// ---- Agent Card ----

/** @publicApi */
export interface AgentInterface {
  url: string;
  protocolBinding: string;
  tenant?: string;
  protocolVersion: string;
}

/** @publicApi */
export interface AgentProvider {
  url: string;
  organization: string;
}

/** @publicApi */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

/** @publicApi */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

/** `{ schemes: { name: { list: scopes } } }`: one alternative; all named schemes together. @publicApi */
export interface SecurityRequirement {
  schemes?: Record<string, { list?: string[] }>;
}

/** @publicApi */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** @publicApi */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

/** @publicApi */
export interface OAuthFlows {
  authorizationCode?: {
    authorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes: Record<string, string>;
    pkceRequired?: boolean;
  };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
  deviceCode?: { deviceAuthorizationUrl: string; tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
  /** @deprecated in A2A 1.0 */
  implicit?: { authorizationUrl?: string; refreshUrl?: string; scopes?: Record<string, string> };
  /** @deprecated in A2A 1.0 */
  password?: { tokenUrl?: string; refreshUrl?: string; scopes?: Record<string, string> };
}

/** Exactly one key is set. @publicApi */
export interface SecurityScheme {
  apiKeySecurityScheme?: { description?: string; location: 'query' | 'header' | 'cookie' | string; name: string };
  httpAuthSecurityScheme?: { description?: string; scheme: string; bearerFormat?: string };
  oauth2SecurityScheme?: { description?: string; flows: OAuthFlows; oauth2MetadataUrl?: string };
  openIdConnectSecurityScheme?: { description?: string; openIdConnectUrl: string };
  mtlsSecurityScheme?: { description?: string };
}

/** @publicApi */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}

/** The protocol bindings this library serves. */
export const PROTOCOL_BINDINGS = { jsonRpc: 'JSONRPC', rest: 'HTTP+JSON' } as const;
/** The one protocol version this library speaks on the wire. */
export const PROTOCOL_VERSION = '1.0';
