/**
 * The A2A 0.3 wire model of the JSON-RPC binding, as plain JSON types (`specification/json/a2a.json`
 * at the v0.3.0 tag, and what `@a2a-js/sdk` 0.3 sends and accepts): objects say what they are in
 * `kind`, enums are lower-case and kebab-case, a status update carries `final`.
 *
 * Only the edge sees these types (the client's 0.3 transports; the 0.3 bindings of a server):
 * they are translated to and from the 1.0 model (`../types.ts`) there, by `./translate.ts`, so
 * executors, stores and the callers of the client know 1.0 only.
 */
import type { AgentSkill, JsonObject } from '../types.js';

export type V03TaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'rejected' | 'auth-required' | 'unknown';

export const V03_TASK_STATES: readonly V03TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'];

export type V03Role = 'user' | 'agent';

export const V03_ROLES: readonly V03Role[] = ['user', 'agent'];

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: JsonObject;
}

export interface V03FileWithBytes {
  /** base64 */
  bytes: string;
  mimeType?: string;
  name?: string;
}

export interface V03FileWithUri {
  uri: string;
  mimeType?: string;
  name?: string;
}

export interface V03FilePart {
  kind: 'file';
  file: V03FileWithBytes | V03FileWithUri;
  metadata?: JsonObject;
}

/** `data` is an object: 0.3 allowed nothing else. */
export interface V03DataPart {
  kind: 'data';
  data: JsonObject;
  metadata?: JsonObject;
}

export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  /** ISO 8601 */
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: JsonObject;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  /** The last event of the stream. */
  final: boolean;
  metadata?: JsonObject;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** The result of `message/send`. */
export type V03SendMessageResult = V03Task | V03Message;

/** One event of `message/stream` and `tasks/resubscribe`. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushNotificationAuthenticationInfo;
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  /** `true`: wait for the task to finish or be interrupted. Absent means `false`. */
  blocking?: boolean;
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
}

/** Params of `message/send` and `message/stream`. */
export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: JsonObject;
}

/** Params of `tasks/get`. */
export interface V03TaskQueryParams {
  id: string;
  historyLength?: number;
  metadata?: JsonObject;
}

/** Params of `tasks/cancel`, `tasks/resubscribe`. */
export interface V03TaskIdParams {
  id: string;
  metadata?: JsonObject;
}

/** Params of `tasks/pushNotificationConfig/get` (`id` is the task's). */
export interface V03GetTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId?: string;
  metadata?: JsonObject;
}

/** Params of `tasks/pushNotificationConfig/list` (`id` is the task's). */
export interface V03ListTaskPushNotificationConfigParams {
  id: string;
  metadata?: JsonObject;
}

/** Params of `tasks/pushNotificationConfig/delete` (`id` is the task's). */
export interface V03DeleteTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId: string;
  metadata?: JsonObject;
}

// ---- Agent Card ----

export interface V03AgentInterface {
  url: string;
  transport: string;
}

export interface V03AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

export interface V03AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  extensions?: V03AgentExtension[];
}

/** `{ schemeName: scopes }`: one alternative, every named scheme together. */
export type V03SecurityRequirement = Record<string, string[]>;

interface V03OAuthFlow {
  refreshUrl?: string;
  scopes: Record<string, string>;
}

/** Several flows may be offered at once. */
export interface V03OAuthFlows {
  authorizationCode?: V03OAuthFlow & { authorizationUrl: string; tokenUrl: string };
  clientCredentials?: V03OAuthFlow & { tokenUrl: string };
  implicit?: V03OAuthFlow & { authorizationUrl: string };
  password?: V03OAuthFlow & { tokenUrl: string };
}

/** OpenAPI-like, told apart by `type`. */
export type V03SecurityScheme =
  | { type: 'apiKey'; in: 'query' | 'header' | 'cookie'; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'oauth2'; flows: V03OAuthFlows; oauth2MetadataUrl?: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mutualTLS'; description?: string };

/** 1.0's skill, its requirements called `security` and shaped as 0.3 had them. */
export type V03AgentSkill = Omit<AgentSkill, 'securityRequirements'> & { security?: V03SecurityRequirement[] };

export interface V03AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  /** The preferred endpoint. */
  url: string;
  /** Its transport; absent means `JSONRPC`. */
  preferredTransport?: string;
  additionalInterfaces?: V03AgentInterface[];
  provider?: { organization: string; url: string };
  iconUrl?: string;
  version: string;
  documentationUrl?: string;
  capabilities: V03AgentCapabilities;
  securitySchemes?: Record<string, V03SecurityScheme>;
  security?: V03SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: V03AgentSkill[];
  supportsAuthenticatedExtendedCard?: boolean;
  signatures?: { protected: string; signature: string; header?: JsonObject }[];
}

/** A JSON-RPC `error` of 0.3 (and the body of a 0.3 REST error): `data` is a free-form object. */
export interface V03ErrorObject {
  code: number;
  message: string;
  data?: JsonObject;
}
