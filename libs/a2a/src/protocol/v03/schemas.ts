/**
 * Codec schemas of the A2A 0.3 JSON-RPC model (`./types.ts`), so that 0.3 input is decoded as
 * strictly as 1.0 input: every violation collected with its path, REQUIRED fields set (a REQUIRED
 * string or list not empty, as in 1.0), enums by their 0.3 names only. `kind` must name one of
 * the variants where it decides (a part, a result that may be a Task or a Message, a stream
 * event); where the position says it (`params.message`, a `history` entry, the Task of
 * `tasks/get`) it may be left out, as the 0.3 specification's own examples do, but not be wrong.
 * Values that 0.3 means literally keep their presence: `final: false`, `blocking: false`, an
 * empty `schemes` list, a state or role whatever its position in the enum.
 */
import { schema, union, type FieldSpec, type Schema } from '../codec.js';
import { bool, metadata, msg, partsOf, reqStr, str, strList, struct } from '../field-specs.js';
import { SecurityRequirementSchema, SecuritySchemeSchema } from '../schemas.js';
import type * as T from './types.js';
import { V03_ROLES, V03_TASK_STATES } from './types.js';

const kind = (value: string) => ({ discriminator: { key: 'kind', value } });
/** A REQUIRED value kept as given, default or not. */
const literal = (type: FieldSpec['type']): FieldSpec => ({ type, required: true, presence: true });

export const V03TextPartSchema: Schema<T.V03TextPart> = schema('TextPart', { text: { ...literal('string'), bound: 'partContent' }, metadata }, undefined, kind('text'));

const FileSchema = schema(
  'FileWithBytes | FileWithUri',
  { bytes: { type: 'bytes', bound: 'partContent' }, uri: { type: 'string', bound: 'partContent' }, mimeType: str, name: str },
  { file: { members: ['bytes', 'uri'], required: true } },
);

export const V03FilePartSchema: Schema<T.V03FilePart> = schema(
  'FilePart',
  { file: { type: msg(() => FileSchema), required: true }, metadata },
  undefined,
  kind('file'),
);

export const V03DataPartSchema: Schema<T.V03DataPart> = schema('DataPart', { data: { ...literal('struct'), bound: 'partContent' }, metadata }, undefined, kind('data'));

export const V03PartSchema: Schema<T.V03Part> = union('Part', () => [V03TextPartSchema, V03FilePartSchema, V03DataPartSchema]);

export const V03MessageSchema: Schema<T.V03Message> = schema(
  'Message',
  {
    messageId: reqStr,
    role: literal({ enum: V03_ROLES, namesOnly: true }),
    parts: partsOf(() => V03PartSchema),
    contextId: str,
    taskId: str,
    metadata,
    extensions: strList,
    referenceTaskIds: strList,
  },
  undefined,
  kind('message'),
);

export const V03TaskStatusSchema: Schema<T.V03TaskStatus> = schema('TaskStatus', {
  state: literal({ enum: V03_TASK_STATES, namesOnly: true }),
  message: { type: msg(() => V03MessageSchema) },
  timestamp: { type: 'datetime' },
});

export const V03ArtifactSchema: Schema<T.V03Artifact> = schema('Artifact', {
  artifactId: reqStr,
  name: str,
  description: str,
  parts: partsOf(() => V03PartSchema),
  metadata,
  extensions: strList,
});

export const V03TaskSchema: Schema<T.V03Task> = schema(
  'Task',
  {
    id: reqStr,
    contextId: reqStr,
    status: { type: msg(() => V03TaskStatusSchema), required: true },
    artifacts: { type: msg(() => V03ArtifactSchema), repeated: true },
    history: { type: msg(() => V03MessageSchema), repeated: true },
    metadata,
  },
  undefined,
  kind('task'),
);

export const V03TaskStatusUpdateEventSchema: Schema<T.V03TaskStatusUpdateEvent> = schema(
  'TaskStatusUpdateEvent',
  {
    taskId: reqStr,
    contextId: reqStr,
    status: { type: msg(() => V03TaskStatusSchema), required: true },
    final: literal('bool'),
    metadata,
  },
  undefined,
  kind('status-update'),
);

export const V03TaskArtifactUpdateEventSchema: Schema<T.V03TaskArtifactUpdateEvent> = schema(
  'TaskArtifactUpdateEvent',
  {
    taskId: reqStr,
    contextId: reqStr,
    artifact: { type: msg(() => V03ArtifactSchema), required: true },
    append: bool,
    lastChunk: bool,
    metadata,
  },
  undefined,
  kind('artifact-update'),
);

export const V03SendMessageResultSchema: Schema<T.V03SendMessageResult> = union('Task | Message', () => [V03TaskSchema, V03MessageSchema]);

export const V03StreamEventSchema: Schema<T.V03StreamEvent> = union('SendStreamingMessageResponse result', () => [
  V03TaskSchema,
  V03MessageSchema,
  V03TaskStatusUpdateEventSchema,
  V03TaskArtifactUpdateEventSchema,
]);

export const V03PushNotificationAuthenticationInfoSchema: Schema<T.V03PushNotificationAuthenticationInfo> = schema('PushNotificationAuthenticationInfo', {
  schemes: { type: 'string', repeated: true, required: true, presence: true },
  credentials: str,
});

export const V03PushNotificationConfigSchema: Schema<T.V03PushNotificationConfig> = schema('PushNotificationConfig', {
  id: str,
  url: reqStr,
  token: str,
  authentication: { type: msg(() => V03PushNotificationAuthenticationInfoSchema) },
});

export const V03TaskPushNotificationConfigSchema: Schema<T.V03TaskPushNotificationConfig> = schema('TaskPushNotificationConfig', {
  taskId: reqStr,
  pushNotificationConfig: { type: msg(() => V03PushNotificationConfigSchema), required: true },
});

/** The `tasks/pushNotificationConfig/list` result is a bare array: read as this message's `result`. */
export const V03TaskPushNotificationConfigListSchema: Schema<{ result: T.V03TaskPushNotificationConfig[] }> = schema('TaskPushNotificationConfig[]', {
  result: { type: msg(() => V03TaskPushNotificationConfigSchema), repeated: true, presence: true },
});

export const V03MessageSendConfigurationSchema: Schema<T.V03MessageSendConfiguration> = schema('MessageSendConfiguration', {
  acceptedOutputModes: strList,
  // written even when false: peers disagree on what an absent `blocking` means
  blocking: { type: 'bool', presence: true },
  // 0 means "all of it" in 0.3 (its proto, and what the SDKs do), so it is dropped like a default
  historyLength: { type: 'int32', min: 0 },
  pushNotificationConfig: { type: msg(() => V03PushNotificationConfigSchema) },
});

export const V03MessageSendParamsSchema: Schema<T.V03MessageSendParams> = schema('MessageSendParams', {
  message: { type: msg(() => V03MessageSchema), required: true },
  configuration: { type: msg(() => V03MessageSendConfigurationSchema) },
  metadata,
});

export const V03TaskQueryParamsSchema: Schema<T.V03TaskQueryParams> = schema('TaskQueryParams', {
  id: reqStr,
  // written even when 0: left out, a2a-js 0.3 sends no history at all
  historyLength: { type: 'int32', min: 0, presence: true },
  metadata,
});

export const V03TaskIdParamsSchema: Schema<T.V03TaskIdParams> = schema('TaskIdParams', { id: reqStr, metadata });

export const V03GetTaskPushNotificationConfigParamsSchema: Schema<T.V03GetTaskPushNotificationConfigParams> = schema('GetTaskPushNotificationConfigParams', {
  id: reqStr,
  pushNotificationConfigId: str,
  metadata,
});

export const V03ListTaskPushNotificationConfigParamsSchema: Schema<T.V03ListTaskPushNotificationConfigParams> = schema('ListTaskPushNotificationConfigParams', {
  id: reqStr,
  metadata,
});

export const V03DeleteTaskPushNotificationConfigParamsSchema: Schema<T.V03DeleteTaskPushNotificationConfigParams> = schema(
  'DeleteTaskPushNotificationConfigParams',
  { id: reqStr, pushNotificationConfigId: reqStr, metadata },
);

/** `agent/getAuthenticatedExtendedCard` takes no params (any given are ignored). */
export const V03NoParamsSchema: Schema<Record<string, never>> = schema('(no params)', {});

// ---- Agent Card ----

const scopes: FieldSpec = { type: { map: 'string' }, required: true, alwaysEmit: true };
const type = (value: string) => ({ discriminator: { key: 'type', value } });

const V03OAuthFlowsSchema = schema('OAuthFlows', {
  authorizationCode: { type: msg(() => schema('AuthorizationCodeOAuthFlow', { authorizationUrl: reqStr, tokenUrl: reqStr, refreshUrl: str, scopes })) },
  clientCredentials: { type: msg(() => schema('ClientCredentialsOAuthFlow', { tokenUrl: reqStr, refreshUrl: str, scopes })) },
  implicit: { type: msg(() => schema('ImplicitOAuthFlow', { authorizationUrl: reqStr, refreshUrl: str, scopes })) },
  password: { type: msg(() => schema('PasswordOAuthFlow', { tokenUrl: reqStr, refreshUrl: str, scopes })) },
});

export const V03SecuritySchemeSchema: Schema<T.V03SecurityScheme> = union('SecurityScheme', () => [
  schema('APIKeySecurityScheme', { in: literal({ enum: ['query', 'header', 'cookie'], namesOnly: true }), name: reqStr, description: str }, undefined, type('apiKey')),
  schema('HTTPAuthSecurityScheme', { scheme: reqStr, bearerFormat: str, description: str }, undefined, type('http')),
  schema('OAuth2SecurityScheme', { flows: { type: msg(() => V03OAuthFlowsSchema), required: true }, oauth2MetadataUrl: str, description: str }, undefined, type('oauth2')),
  schema('OpenIdConnectSecurityScheme', { openIdConnectUrl: reqStr, description: str }, undefined, type('openIdConnect')),
  schema('MutualTLSSecurityScheme', { description: str }, undefined, type('mutualTLS')),
]);

/** `[{ schemeName: scopes }]`: a map whose values are lists. */
const securityRequirements: FieldSpec = { type: { map: { list: 'string' } }, repeated: true };

/**
 * How a 0.3 card writes its security: the JSON Schema form (`{"type": "apiKey", "in": …}`,
 * `[{"name": scopes}]`), or the form of the 0.3 proto that some servers serve (the oneof wrappers
 * and `{"schemes": {"name": {"list": scopes}}}` of 1.0, which that proto already had).
 */
export type V03CardSecurityForm = 'json' | 'proto';

function agentCardSchema(form: V03CardSecurityForm): Schema<T.V03AgentCard> {
  const schemes: FieldSpec = { type: { map: msg(() => (form === 'json' ? V03SecuritySchemeSchema : SecuritySchemeSchema)) } };
  const requirements: FieldSpec = form === 'json' ? securityRequirements : { type: msg(() => SecurityRequirementSchema), repeated: true };
  const skill = schema('AgentSkill', {
    id: reqStr,
    name: reqStr,
    description: reqStr,
    tags: { type: 'string', repeated: true, required: true },
    examples: strList,
    inputModes: strList,
    outputModes: strList,
    security: requirements,
  });
  return schema('AgentCard', {
    protocolVersion: reqStr,
    name: reqStr,
    description: reqStr,
    url: reqStr,
    preferredTransport: str,
    additionalInterfaces: { type: msg(() => schema('AgentInterface', { url: reqStr, transport: reqStr })), repeated: true },
    provider: { type: msg(() => schema('AgentProvider', { organization: reqStr, url: reqStr })) },
    iconUrl: str,
    version: reqStr,
    documentationUrl: str,
    capabilities: {
      type: msg(() =>
        schema('AgentCapabilities', {
          streaming: { type: 'bool', presence: true },
          pushNotifications: { type: 'bool', presence: true },
          stateTransitionHistory: { type: 'bool', presence: true },
          extensions: { type: msg(() => schema('AgentExtension', { uri: reqStr, description: str, required: bool, params: struct })), repeated: true },
        }),
      ),
      required: true,
    },
    securitySchemes: schemes,
    security: requirements,
    defaultInputModes: { type: 'string', repeated: true, required: true },
    defaultOutputModes: { type: 'string', repeated: true, required: true },
    skills: { type: msg(() => skill), repeated: true, required: true, alwaysEmit: true },
    supportsAuthenticatedExtendedCard: { type: 'bool', presence: true },
    signatures: { type: msg(() => schema('AgentCardSignature', { protected: reqStr, signature: reqStr, header: struct })), repeated: true },
  });
}

/** A 0.3 card with its security in the JSON Schema form. */
export const V03AgentCardSchema = agentCardSchema('json');
/** A 0.3 card with its security in the form of the 0.3 proto (see {@link V03CardSecurityForm}). */
export const V03ProtoSecurityAgentCardSchema = agentCardSchema('proto');
