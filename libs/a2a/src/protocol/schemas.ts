/**
 * Schemas of the `lf.a2a.v1` messages (proto v1.0.0), for the ProtoJSON codec.
 * Field order follows the proto; REQUIRED and `optional` (presence) as the proto marks them.
 */
import { schema, type FieldSpec, type Schema } from './codec.js';
import { bool, metadata, msg, partsOf, reqStr, str, strList, struct } from './field-specs.js';
import { ROLES, TASK_STATES } from './types.js';
import type * as T from './types.js';

const parts = partsOf(() => PartSchema);
const scopes: FieldSpec = { type: { map: 'string' } };

export const PartSchema: Schema<T.Part> = schema(
  'Part',
  {
    text: { type: 'string', bound: 'partContent' },
    raw: { type: 'bytes', bound: 'partContent' },
    url: { type: 'string', bound: 'partContent' },
    data: { type: 'value', bound: 'partContent' },
    metadata,
    filename: str,
    mediaType: str,
  },
  { content: { members: ['text', 'raw', 'url', 'data'], required: true } },
);

export const MessageSchema: Schema<T.Message> = schema('Message', {
  messageId: reqStr,
  contextId: { type: 'string', bound: 'contextId' },
  taskId: str,
  role: { type: { enum: ROLES }, required: true },
  parts,
  metadata,
  extensions: strList,
  referenceTaskIds: strList,
});

export const TaskStatusSchema: Schema<T.TaskStatus> = schema('TaskStatus', {
  state: { type: { enum: TASK_STATES }, required: true },
  message: { type: msg(() => MessageSchema) },
  timestamp: { type: 'timestamp' },
});

export const ArtifactSchema: Schema<T.Artifact> = schema('Artifact', {
  artifactId: reqStr,
  name: str,
  description: str,
  parts,
  metadata,
  extensions: strList,
});

export const TaskSchema: Schema<T.Task> = schema('Task', {
  id: reqStr,
  contextId: str,
  status: { type: msg(() => TaskStatusSchema), required: true },
  artifacts: { type: msg(() => ArtifactSchema), repeated: true },
  history: { type: msg(() => MessageSchema), repeated: true },
  metadata,
});

export const TaskStatusUpdateEventSchema: Schema<T.TaskStatusUpdateEvent> = schema('TaskStatusUpdateEvent', {
  taskId: reqStr,
  contextId: reqStr,
  status: { type: msg(() => TaskStatusSchema), required: true },
  metadata,
});

export const TaskArtifactUpdateEventSchema: Schema<T.TaskArtifactUpdateEvent> = schema('TaskArtifactUpdateEvent', {
  taskId: reqStr,
  contextId: reqStr,
  artifact: { type: msg(() => ArtifactSchema), required: true },
  append: bool,
  lastChunk: bool,
  metadata,
});

export const StreamResponseSchema: Schema<T.StreamResponse> = schema(
  'StreamResponse',
  {
    task: { type: msg(() => TaskSchema) },
    message: { type: msg(() => MessageSchema) },
    statusUpdate: { type: msg(() => TaskStatusUpdateEventSchema) },
    artifactUpdate: { type: msg(() => TaskArtifactUpdateEventSchema) },
  },
  { payload: { members: ['task', 'message', 'statusUpdate', 'artifactUpdate'], required: true } },
);

export const SendMessageResponseSchema: Schema<T.SendMessageResponse> = schema(
  'SendMessageResponse',
  { task: { type: msg(() => TaskSchema) }, message: { type: msg(() => MessageSchema) } },
  { payload: { members: ['task', 'message'], required: true } },
);

export const AuthenticationInfoSchema: Schema<T.AuthenticationInfo> = schema('AuthenticationInfo', {
  scheme: reqStr,
  credentials: str,
});

export const TaskPushNotificationConfigSchema: Schema<T.TaskPushNotificationConfig> = schema('TaskPushNotificationConfig', {
  tenant: str,
  id: str,
  taskId: str,
  url: reqStr,
  token: str,
  authentication: { type: msg(() => AuthenticationInfoSchema) },
});

export const SendMessageConfigurationSchema: Schema<T.SendMessageConfiguration> = schema('SendMessageConfiguration', {
  acceptedOutputModes: strList,
  taskPushNotificationConfig: { type: msg(() => TaskPushNotificationConfigSchema) },
  historyLength: { type: 'int32', presence: true, min: 0 },
  returnImmediately: bool,
});

export const SendMessageRequestSchema: Schema<T.SendMessageRequest> = schema('SendMessageRequest', {
  tenant: str,
  message: { type: msg(() => MessageSchema), required: true },
  configuration: { type: msg(() => SendMessageConfigurationSchema) },
  metadata,
});

export const GetTaskRequestSchema: Schema<T.GetTaskRequest> = schema('GetTaskRequest', {
  tenant: str,
  id: reqStr,
  historyLength: { type: 'int32', presence: true, min: 0 },
});

export const LIST_TASKS_MAX_PAGE_SIZE = 100;
export const LIST_TASKS_DEFAULT_PAGE_SIZE = 50;

export const ListTasksRequestSchema: Schema<T.ListTasksRequest> = schema('ListTasksRequest', {
  tenant: str,
  contextId: str,
  status: { type: { enum: TASK_STATES } },
  pageSize: { type: 'int32', presence: true, min: 1, max: LIST_TASKS_MAX_PAGE_SIZE },
  pageToken: str,
  historyLength: { type: 'int32', presence: true, min: 0 },
  statusTimestampAfter: { type: 'timestamp' },
  includeArtifacts: { type: 'bool', presence: true },
});

export const ListTasksResponseSchema: Schema<T.ListTasksResponse> = schema('ListTasksResponse', {
  tasks: { type: msg(() => TaskSchema), repeated: true, required: true, alwaysEmit: true },
  // `presence` so that a decoded last page keeps `nextPageToken: ""` (MUST be present, "" on the
  // last page, spec §3.1.4) and `totalSize: 0` instead of refusing them as unset REQUIRED fields
  nextPageToken: { type: 'string', required: true, presence: true },
  pageSize: { type: 'int32', required: true },
  totalSize: { type: 'int32', required: true, presence: true },
});

export const CancelTaskRequestSchema: Schema<T.CancelTaskRequest> = schema('CancelTaskRequest', {
  tenant: str,
  id: reqStr,
  metadata,
});

export const SubscribeToTaskRequestSchema: Schema<T.SubscribeToTaskRequest> = schema('SubscribeToTaskRequest', {
  tenant: str,
  id: reqStr,
});

export const GetTaskPushNotificationConfigRequestSchema: Schema<T.GetTaskPushNotificationConfigRequest> = schema(
  'GetTaskPushNotificationConfigRequest',
  { tenant: str, taskId: reqStr, id: reqStr },
);

export const ListTaskPushNotificationConfigsRequestSchema: Schema<T.ListTaskPushNotificationConfigsRequest> = schema(
  'ListTaskPushNotificationConfigsRequest',
  { tenant: str, taskId: reqStr, pageSize: { type: 'int32', min: 0, max: LIST_TASKS_MAX_PAGE_SIZE }, pageToken: str },
);

export const ListTaskPushNotificationConfigsResponseSchema: Schema<T.ListTaskPushNotificationConfigsResponse> = schema(
  'ListTaskPushNotificationConfigsResponse',
  { configs: { type: msg(() => TaskPushNotificationConfigSchema), repeated: true }, nextPageToken: str },
);

export const DeleteTaskPushNotificationConfigRequestSchema: Schema<T.DeleteTaskPushNotificationConfigRequest> = schema(
  'DeleteTaskPushNotificationConfigRequest',
  { tenant: str, taskId: reqStr, id: reqStr },
);

export const GetExtendedAgentCardRequestSchema: Schema<T.GetExtendedAgentCardRequest> = schema(
  'GetExtendedAgentCardRequest',
  { tenant: str },
);

/** `google.protobuf.Empty`. */
export const EmptySchema: Schema<Record<string, never>> = schema('Empty', {});

// ---- Agent Card ----

export const AgentInterfaceSchema: Schema<T.AgentInterface> = schema('AgentInterface', {
  url: reqStr,
  protocolBinding: reqStr,
  tenant: str,
  protocolVersion: reqStr,
});

export const AgentProviderSchema: Schema<T.AgentProvider> = schema('AgentProvider', {
  url: reqStr,
  organization: reqStr,
});

export const AgentExtensionSchema: Schema<T.AgentExtension> = schema('AgentExtension', {
  uri: str,
  description: str,
  required: bool,
  params: struct,
});

export const AgentCapabilitiesSchema: Schema<T.AgentCapabilities> = schema('AgentCapabilities', {
  streaming: { type: 'bool', presence: true },
  pushNotifications: { type: 'bool', presence: true },
  extensions: { type: msg(() => AgentExtensionSchema), repeated: true },
  extendedAgentCard: { type: 'bool', presence: true },
});

const StringListSchema = schema('StringList', { list: strList });

export const SecurityRequirementSchema: Schema<T.SecurityRequirement> = schema('SecurityRequirement', {
  schemes: { type: { map: msg(() => StringListSchema) } },
});

export const AgentSkillSchema: Schema<T.AgentSkill> = schema('AgentSkill', {
  id: reqStr,
  name: reqStr,
  description: reqStr,
  tags: { type: 'string', repeated: true, required: true },
  examples: strList,
  inputModes: strList,
  outputModes: strList,
  securityRequirements: { type: msg(() => SecurityRequirementSchema), repeated: true },
});

export const AgentCardSignatureSchema: Schema<T.AgentCardSignature> = schema('AgentCardSignature', {
  protected: reqStr,
  signature: reqStr,
  header: struct,
});

const AuthorizationCodeFlowSchema = schema('AuthorizationCodeOAuthFlow', {
  authorizationUrl: reqStr,
  tokenUrl: reqStr,
  refreshUrl: str,
  scopes: { ...scopes, required: true, alwaysEmit: true },
  pkceRequired: bool,
});
const ClientCredentialsFlowSchema = schema('ClientCredentialsOAuthFlow', {
  tokenUrl: reqStr,
  refreshUrl: str,
  scopes: { ...scopes, required: true, alwaysEmit: true },
});
const DeviceCodeFlowSchema = schema('DeviceCodeOAuthFlow', {
  deviceAuthorizationUrl: reqStr,
  tokenUrl: reqStr,
  refreshUrl: str,
  scopes: { ...scopes, required: true, alwaysEmit: true },
});
const ImplicitFlowSchema = schema('ImplicitOAuthFlow', { authorizationUrl: str, refreshUrl: str, scopes });
const PasswordFlowSchema = schema('PasswordOAuthFlow', { tokenUrl: str, refreshUrl: str, scopes });

export const OAuthFlowsSchema: Schema<T.OAuthFlows> = schema(
  'OAuthFlows',
  {
    authorizationCode: { type: msg(() => AuthorizationCodeFlowSchema) },
    clientCredentials: { type: msg(() => ClientCredentialsFlowSchema) },
    implicit: { type: msg(() => ImplicitFlowSchema) },
    password: { type: msg(() => PasswordFlowSchema) },
    deviceCode: { type: msg(() => DeviceCodeFlowSchema) },
  },
  { flow: { members: ['authorizationCode', 'clientCredentials', 'implicit', 'password', 'deviceCode'] } },
);

export const SecuritySchemeSchema: Schema<T.SecurityScheme> = schema(
  'SecurityScheme',
  {
    apiKeySecurityScheme: { type: msg(() => schema('APIKeySecurityScheme', { description: str, location: reqStr, name: reqStr })) },
    httpAuthSecurityScheme: {
      type: msg(() => schema('HTTPAuthSecurityScheme', { description: str, scheme: reqStr, bearerFormat: str })),
    },
    oauth2SecurityScheme: {
      type: msg(() =>
        schema('OAuth2SecurityScheme', {
          description: str,
          flows: { type: msg(() => OAuthFlowsSchema), required: true },
          oauth2MetadataUrl: str,
        }),
      ),
    },
    openIdConnectSecurityScheme: {
      type: msg(() => schema('OpenIdConnectSecurityScheme', { description: str, openIdConnectUrl: reqStr })),
    },
    mtlsSecurityScheme: { type: msg(() => schema('MutualTlsSecurityScheme', { description: str })) },
  },
  {
    scheme: {
      members: ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'],
      required: true,
    },
  },
);

export const AgentCardSchema: Schema<T.AgentCard> = schema('AgentCard', {
  name: reqStr,
  description: reqStr,
  supportedInterfaces: { type: msg(() => AgentInterfaceSchema), repeated: true, required: true },
  provider: { type: msg(() => AgentProviderSchema) },
  version: reqStr,
  documentationUrl: { type: 'string', presence: true },
  capabilities: { type: msg(() => AgentCapabilitiesSchema), required: true },
  securitySchemes: { type: { map: msg(() => SecuritySchemeSchema) } },
  securityRequirements: { type: msg(() => SecurityRequirementSchema), repeated: true },
  defaultInputModes: { type: 'string', repeated: true, required: true },
  defaultOutputModes: { type: 'string', repeated: true, required: true },
  skills: { type: msg(() => AgentSkillSchema), repeated: true, required: true, alwaysEmit: true },
  signatures: { type: msg(() => AgentCardSignatureSchema), repeated: true },
  iconUrl: { type: 'string', presence: true },
});
