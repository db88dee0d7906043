/**
 * The JSON of A2A 0.3's REST binding: not the `kind` JSON of its JSON-RPC binding but the
 * ProtoJSON of the 0.3 proto (`specification/grpc/a2a.proto`, package `a2a.v1`), which is what
 * `@a2a-js/sdk` 0.3 sends and reads there (and a2a-python 0.3 too): a message's parts are its
 * `content`, a file part is `{ file: { fileWithUri | fileWithBytes, mimeType } }`, a data part is
 * `{ data: { data } }`, states are `TASK_STATE_*` (with `TASK_STATE_CANCELLED`), a push config
 * is named `tasks/{taskId}/pushNotificationConfigs/{configId}`.
 *
 * These are mapped to and from the 0.3 JSON model (`./types.ts`), so the rules 0.3 and 1.0
 * disagree on stay in one place (`./translate.ts`). The proto has no part metadata, no file
 * name and no `referenceTaskIds`: they do not cross this binding.
 */
import { schema, type Schema } from '../codec.js';
import { bool, metadata, msg, partsOf, reqStr, str, strList } from '../field-specs.js';
import { InvalidParamsError } from '../errors.js';
import type { JsonObject } from '../types.js';
import type * as V from './types.js';


const PROTO_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELLED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
type ProtoState = (typeof PROTO_STATES)[number];

const STATE_NAMES: Readonly<Record<ProtoState, V.V03TaskState>> = {
  TASK_STATE_UNSPECIFIED: 'unknown',
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELLED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};
const PROTO_STATE_OF = Object.fromEntries(Object.entries(STATE_NAMES).map(([proto, v03]) => [v03, proto])) as Readonly<Record<V.V03TaskState, ProtoState>>;

// ---- the proto model (as decoded) ----

export interface ProtoPart {
  text?: string;
  file?: { fileWithUri?: string; fileWithBytes?: string; mimeType?: string };
  data?: { data: JsonObject };
}

export interface ProtoMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: 'ROLE_UNSPECIFIED' | 'ROLE_USER' | 'ROLE_AGENT';
  content: ProtoPart[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface ProtoTaskStatus {
  state: ProtoState;
  message?: ProtoMessage;
  timestamp?: string;
}

export interface ProtoArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: ProtoPart[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface ProtoTask {
  id: string;
  contextId: string;
  status: ProtoTaskStatus;
  artifacts?: ProtoArtifact[];
  history?: ProtoMessage[];
  metadata?: JsonObject;
}

export interface ProtoStatusUpdate {
  taskId: string;
  contextId: string;
  status: ProtoTaskStatus;
  final?: boolean;
  metadata?: JsonObject;
}

export interface ProtoArtifactUpdate {
  taskId: string;
  contextId: string;
  artifact: ProtoArtifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

export interface ProtoPushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes?: string[]; credentials?: string };
}

export interface ProtoTaskPushNotificationConfig {
  name: string;
  pushNotificationConfig: ProtoPushNotificationConfig;
}

export interface ProtoSendMessageRequest {
  message: ProtoMessage;
  configuration?: { acceptedOutputModes?: string[]; pushNotification?: ProtoPushNotificationConfig; historyLength?: number; blocking?: boolean };
  metadata?: JsonObject;
}

export type ProtoSendMessageResponse = { task: ProtoTask } | { message: ProtoMessage };
export type ProtoStreamResponse = ProtoSendMessageResponse | { statusUpdate: ProtoStatusUpdate } | { artifactUpdate: ProtoArtifactUpdate };

// ---- schemas ----

const PartSchema: Schema<ProtoPart> = schema(
  'Part',
  {
    text: { type: 'string', bound: 'partContent' },
    file: {
      type: msg(() =>
        schema(
          'FilePart',
          { fileWithUri: { type: 'string', bound: 'partContent' }, fileWithBytes: { type: 'bytes', bound: 'partContent' }, mimeType: str },
          { file: { members: ['fileWithUri', 'fileWithBytes'], required: true } },
        ),
      ),
    },
    data: { type: msg(() => schema('DataPart', { data: { type: 'struct', required: true, presence: true, bound: 'partContent' } })) },
  },
  { part: { members: ['text', 'file', 'data'], required: true } },
);

export const ProtoMessageSchema: Schema<ProtoMessage> = schema('Message', {
  messageId: reqStr,
  contextId: str,
  taskId: str,
  role: { type: { enum: ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] }, required: true },
  content: partsOf(() => PartSchema),
  metadata,
  extensions: strList,
});

const TaskStatusSchema: Schema<ProtoTaskStatus> = schema('TaskStatus', {
  // TASK_STATE_UNSPECIFIED is 0.3's `unknown`: a value, not "unset"
  state: { type: { enum: PROTO_STATES }, required: true, presence: true },
  message: { type: msg(() => ProtoMessageSchema), aliases: ['update'] },
  timestamp: { type: 'datetime' },
});

const ArtifactSchema: Schema<ProtoArtifact> = schema('Artifact', {
  artifactId: reqStr,
  name: str,
  description: str,
  parts: partsOf(() => PartSchema),
  metadata,
  extensions: strList,
});

export const ProtoTaskSchema: Schema<ProtoTask> = schema('Task', {
  id: reqStr,
  contextId: reqStr,
  status: { type: msg(() => TaskStatusSchema), required: true },
  artifacts: { type: msg(() => ArtifactSchema), repeated: true },
  history: { type: msg(() => ProtoMessageSchema), repeated: true },
  metadata,
});

const StatusUpdateSchema: Schema<ProtoStatusUpdate> = schema('TaskStatusUpdateEvent', {
  taskId: reqStr,
  contextId: reqStr,
  status: { type: msg(() => TaskStatusSchema), required: true },
  // `false` is the proto default, so it is left out on the wire: absent means false
  final: bool,
  metadata,
});

const ArtifactUpdateSchema: Schema<ProtoArtifactUpdate> = schema('TaskArtifactUpdateEvent', {
  taskId: reqStr,
  contextId: reqStr,
  artifact: { type: msg(() => ArtifactSchema), required: true },
  append: bool,
  lastChunk: bool,
  metadata,
});

const PushNotificationConfigSchema: Schema<ProtoPushNotificationConfig> = schema('PushNotificationConfig', {
  id: str,
  url: reqStr,
  token: str,
  authentication: { type: msg(() => schema('AuthenticationInfo', { schemes: strList, credentials: str })) },
});

export const ProtoTaskPushNotificationConfigSchema: Schema<ProtoTaskPushNotificationConfig> = schema('TaskPushNotificationConfig', {
  name: reqStr,
  pushNotificationConfig: { type: msg(() => PushNotificationConfigSchema), required: true },
});

export const ProtoListTaskPushNotificationConfigResponseSchema: Schema<{ configs?: ProtoTaskPushNotificationConfig[]; nextPageToken?: string }> = schema(
  'ListTaskPushNotificationConfigResponse',
  { configs: { type: msg(() => ProtoTaskPushNotificationConfigSchema), repeated: true }, nextPageToken: str },
);

/**
 * The body of a create, in either form a client sends: a CreateTaskPushNotificationConfigRequest
 * (`{ parent, configId, config }`, what the a2a-js 0.3 server reads) or the bare config (the
 * proto's `body: "config"`, what the a2a-js 0.3 client sends), or both at once (`config` is read
 * first). The task is the path's.
 */
export const ProtoCreatePushConfigBodySchema: Schema<{ configId?: string; config?: { pushNotificationConfig: ProtoPushNotificationConfig }; pushNotificationConfig?: ProtoPushNotificationConfig }> =
  schema(
    'CreateTaskPushNotificationConfigRequest',
    {
      configId: str,
      config: { type: msg(() => schema('TaskPushNotificationConfig', { name: str, pushNotificationConfig: { type: msg(() => PushNotificationConfigSchema), required: true } })) },
      pushNotificationConfig: { type: msg(() => PushNotificationConfigSchema) },
    },
  );

export const ProtoSendMessageRequestSchema: Schema<ProtoSendMessageRequest> = schema('SendMessageRequest', {
  message: { type: msg(() => ProtoMessageSchema), required: true, aliases: ['request'] },
  configuration: {
    type: msg(() =>
      schema('SendMessageConfiguration', {
        acceptedOutputModes: strList,
        pushNotification: { type: msg(() => PushNotificationConfigSchema) },
        historyLength: { type: 'int32', min: 0 },
        // written even when false: peers disagree on what an absent `blocking` means
        blocking: { type: 'bool', presence: true },
      }),
    ),
  },
  metadata,
});

export const ProtoSendMessageResponseSchema: Schema<ProtoSendMessageResponse> = schema(
  'SendMessageResponse',
  { task: { type: msg(() => ProtoTaskSchema) }, message: { type: msg(() => ProtoMessageSchema), aliases: ['msg'] } },
  { payload: { members: ['task', 'message'], required: true } },
);

export const ProtoStreamResponseSchema: Schema<ProtoStreamResponse> = schema(
  'StreamResponse',
  {
    task: { type: msg(() => ProtoTaskSchema) },
    message: { type: msg(() => ProtoMessageSchema), aliases: ['msg'] },
    statusUpdate: { type: msg(() => StatusUpdateSchema) },
    artifactUpdate: { type: msg(() => ArtifactUpdateSchema) },
  },
  { payload: { members: ['task', 'message', 'statusUpdate', 'artifactUpdate'], required: true } },
);

// ---- proto ⇄ the 0.3 JSON model ----

function fromProtoPart(part: ProtoPart): V.V03Part {
  if (part.text !== undefined) return { kind: 'text', text: part.text };
  if (part.file !== undefined) {
    const { fileWithUri, fileWithBytes, mimeType } = part.file;
    return { kind: 'file', file: fileWithBytes !== undefined ? { bytes: fileWithBytes, mimeType } : { uri: fileWithUri as string, mimeType } };
  }
  return { kind: 'data', data: (part.data as { data: JsonObject }).data };
}

function toProtoPart(part: V.V03Part): ProtoPart {
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'file':
      return { file: 'bytes' in part.file ? { fileWithBytes: part.file.bytes, mimeType: part.file.mimeType } : { fileWithUri: part.file.uri, mimeType: part.file.mimeType } };
    case 'data':
      return { data: { data: part.data } };
  }
}

export function fromProtoMessage(message: ProtoMessage): V.V03Message {
  const { content, role, ...rest } = message;
  // ROLE_UNSPECIFIED never gets here: as the zero value it is refused as unset
  return { kind: 'message', ...rest, role: role === 'ROLE_USER' ? 'user' : 'agent', parts: content.map(fromProtoPart) };
}

export function toProtoMessage(message: V.V03Message): ProtoMessage {
  const { kind: _kind, parts, role, referenceTaskIds: _references, ...rest } = message;
  return { ...rest, role: role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT', content: parts.map(toProtoPart) };
}

function fromProtoStatus(status: ProtoTaskStatus): V.V03TaskStatus {
  return { state: STATE_NAMES[status.state], message: status.message && fromProtoMessage(status.message), timestamp: status.timestamp };
}

function toProtoStatus(status: V.V03TaskStatus): ProtoTaskStatus {
  return { state: PROTO_STATE_OF[status.state], message: status.message && toProtoMessage(status.message), timestamp: status.timestamp };
}

const fromProtoArtifact = (artifact: ProtoArtifact): V.V03Artifact => ({ ...artifact, parts: artifact.parts.map(fromProtoPart) });
const toProtoArtifact = (artifact: V.V03Artifact): ProtoArtifact => ({ ...artifact, parts: artifact.parts.map(toProtoPart) });

export function fromProtoTask(task: ProtoTask): V.V03Task {
  return { kind: 'task', ...task, status: fromProtoStatus(task.status), artifacts: task.artifacts?.map(fromProtoArtifact), history: task.history?.map(fromProtoMessage) };
}

export function toProtoTask(task: V.V03Task): ProtoTask {
  const { kind: _kind, ...rest } = task;
  return { ...rest, status: toProtoStatus(task.status), artifacts: task.artifacts?.map(toProtoArtifact), history: task.history?.map(toProtoMessage) };
}

export function fromProtoStreamResponse(response: ProtoStreamResponse): V.V03StreamEvent {
  if ('task' in response) return fromProtoTask(response.task);
  if ('message' in response) return fromProtoMessage(response.message);
  if ('statusUpdate' in response) {
    const update = response.statusUpdate;
    return { kind: 'status-update', ...update, status: fromProtoStatus(update.status), final: update.final === true };
  }
  const update = response.artifactUpdate;
  return { kind: 'artifact-update', ...update, artifact: fromProtoArtifact(update.artifact) };
}

export function toProtoStreamResponse(event: V.V03StreamEvent): ProtoStreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: toProtoTask(event) };
    case 'message':
      return { message: toProtoMessage(event) };
    case 'status-update': {
      const { kind: _kind, ...update } = event;
      return { statusUpdate: { ...update, status: toProtoStatus(event.status) } };
    }
    case 'artifact-update': {
      const { kind: _kind, ...update } = event;
      return { artifactUpdate: { ...update, artifact: toProtoArtifact(event.artifact) } };
    }
  }
}

export function fromProtoPushNotificationConfig(config: ProtoPushNotificationConfig): V.V03PushNotificationConfig {
  const { authentication, ...rest } = config;
  return { ...rest, authentication: authentication && { schemes: authentication.schemes ?? [], credentials: authentication.credentials } };
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** `tasks/{taskId}/pushNotificationConfigs/{configId}`. */
export function pushConfigName(taskId: string, configId: string): string {
  return `tasks/${taskId}/pushNotificationConfigs/${configId}`;
}

/** @throws InvalidParamsError when `name` is not `tasks/{taskId}/pushNotificationConfigs/{configId}` */
export function fromProtoTaskPushNotificationConfig(config: ProtoTaskPushNotificationConfig, path = ''): V.V03TaskPushNotificationConfig {
  const match = CONFIG_NAME.exec(config.name);
  if (match === null) throw InvalidParamsError.field(path ? `${path}.name` : 'name', 'must be tasks/{taskId}/pushNotificationConfigs/{configId}');
  return { taskId: match[1], pushNotificationConfig: fromProtoPushNotificationConfig(config.pushNotificationConfig) };
}

export function toProtoTaskPushNotificationConfig(config: V.V03TaskPushNotificationConfig): ProtoTaskPushNotificationConfig {
  return { name: pushConfigName(config.taskId, config.pushNotificationConfig.id ?? ''), pushNotificationConfig: config.pushNotificationConfig };
}

export function fromProtoSendMessageRequest(request: ProtoSendMessageRequest): V.V03MessageSendParams {
  const configuration = request.configuration;
  return {
    message: fromProtoMessage(request.message),
    configuration: configuration && {
      acceptedOutputModes: configuration.acceptedOutputModes,
      pushNotificationConfig: configuration.pushNotification && fromProtoPushNotificationConfig(configuration.pushNotification),
      historyLength: configuration.historyLength,
      blocking: configuration.blocking,
    },
    metadata: request.metadata,
  };
}

export function toProtoSendMessageRequest(params: V.V03MessageSendParams): ProtoSendMessageRequest {
  const configuration = params.configuration;
  return {
    message: toProtoMessage(params.message),
    configuration: configuration && {
      acceptedOutputModes: configuration.acceptedOutputModes,
      pushNotification: configuration.pushNotificationConfig,
      historyLength: configuration.historyLength,
      blocking: configuration.blocking,
    },
    metadata: params.metadata,
  };
}
