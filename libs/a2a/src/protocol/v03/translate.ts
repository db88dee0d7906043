/**
 * A2A 0.3 ⇄ 1.0, message by message. `toV03…` turns a 1.0 value into its 0.3 form, `fromV03…` a
 * (decoded) 0.3 value into its 1.0 form. Task ids, context ids and message ids pass unchanged.
 *
 * The rules 0.3 and 1.0 disagree on, settled once here:
 * - `blocking` absent means not blocking (0.3's schema); `returnImmediately` absent means waiting
 *   (1.0). A request translated to 0.3 always says `blocking` explicitly.
 * - `final: true` is set exactly on the status update that ends a stream: a terminal state, or
 *   INPUT_REQUIRED (where this library's streams end; AUTH_REQUIRED stays open).
 * - `unknown` ⇄ TASK_STATE_UNSPECIFIED; `user`/`agent` ⇄ ROLE_USER/ROLE_AGENT.
 * - A file part's `bytes`/`uri` ⇄ `raw`/`url` (base64 in both), `mimeType`/`name` ⇄
 *   `mediaType`/`filename`. A text or data part has no media type or file name in 0.3: they are
 *   not carried.
 * - 0.3 data parts hold objects only: any other 1.0 value becomes `{ "value": <it> }` marked with
 *   `metadata.data_part_compat: true` (the marker a2a-js uses), and is unwrapped on the way back.
 * - Push authentication: 0.3 `schemes[]` ⇄ 1.0 `scheme`. The first scheme is the one used; an
 *   empty list with credentials is refused, since the credentials would be for no scheme.
 * - `historyLength: 0` meant "all of it" in 0.3 (its proto says so; a2a-js 0.3 sends no history
 *   when it is left out, a2a-python all of it), so it reads as unset; a 0.3 `tasks/get` always
 *   says it: 0 for 1.0's unset, and 0 for 1.0's 0 ("none") too, the client trimming the history
 *   itself. A SendMessage sends only a positive length.
 */
import { InvalidParamsError } from '../errors.js';
import { isPlainObject } from '../json-value.js';
import {
  isTerminalState,
  type Artifact,
  type AuthenticationInfo,
  type JsonObject,
  type ListTaskPushNotificationConfigsResponse,
  type Message,
  type Part,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  type TaskState,
  type TaskStatus,
} from '../types.js';
import type * as V from './types.js';

/** Marks a 0.3 data part that wraps a 1.0 value 0.3 could not hold (a2a-js uses the same key). */
export const DATA_PART_WRAPPED_KEY = 'data_part_compat';

const TO_V03_STATE: Readonly<Record<TaskState, V.V03TaskState>> = {
  TASK_STATE_UNSPECIFIED: 'unknown',
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};
const FROM_V03_STATE = Object.fromEntries(Object.entries(TO_V03_STATE).map(([v1, v03]) => [v03, v1])) as Readonly<Record<V.V03TaskState, TaskState>>;

export function toV03State(state: TaskState): V.V03TaskState {
  return TO_V03_STATE[state];
}

export function fromV03State(state: V.V03TaskState): TaskState {
  return FROM_V03_STATE[state];
}

/** Does a status update in this state end a stream, i.e. carry `final: true` in 0.3? */
export function endsV03Stream(state: TaskState): boolean {
  return isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED';
}

// ---- parts, messages, tasks ----

export function toV03Part(part: Part): V.V03Part {
  const metadata = part.metadata;
  if (part.text !== undefined) return { kind: 'text', text: part.text, metadata };
  if (part.raw !== undefined || part.url !== undefined) {
    const described = { mimeType: part.mediaType || undefined, name: part.filename || undefined };
    const file = part.raw !== undefined ? { bytes: part.raw, ...described } : { uri: part.url as string, ...described };
    return { kind: 'file', file, metadata };
  }
  if (isPlainObject(part.data)) return { kind: 'data', data: part.data as JsonObject, metadata };
  return { kind: 'data', data: { value: part.data ?? null }, metadata: { ...metadata, [DATA_PART_WRAPPED_KEY]: true } };
}

export function fromV03Part(part: V.V03Part): Part {
  switch (part.kind) {
    case 'text':
      return { text: part.text, metadata: part.metadata };
    case 'file': {
      const described = { mediaType: part.file.mimeType || undefined, filename: part.file.name || undefined, metadata: part.metadata };
      return 'bytes' in part.file ? { raw: part.file.bytes, ...described } : { url: part.file.uri, ...described };
    }
    case 'data': {
      const { [DATA_PART_WRAPPED_KEY]: wrapped, ...rest } = part.metadata ?? {};
      if (wrapped !== true || Object.keys(part.data).length !== 1 || !('value' in part.data)) return { data: part.data, metadata: part.metadata };
      return { data: part.data.value, metadata: Object.keys(rest).length > 0 ? rest : undefined };
    }
  }
}

export function toV03Message(message: Message): V.V03Message {
  return {
    kind: 'message',
    messageId: message.messageId,
    // a message without a role never gets here: the 1.0 decoder refuses it
    role: message.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: message.parts.map(toV03Part),
    contextId: message.contextId,
    taskId: message.taskId,
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  };
}

export function fromV03Message(message: V.V03Message): Message {
  return {
    messageId: message.messageId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: message.parts.map(fromV03Part),
    contextId: message.contextId,
    taskId: message.taskId,
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  };
}

function toV03Status(status: TaskStatus): V.V03TaskStatus {
  return { state: toV03State(status.state), message: status.message && toV03Message(status.message), timestamp: status.timestamp };
}

function fromV03Status(status: V.V03TaskStatus): TaskStatus {
  return { state: fromV03State(status.state), message: status.message && fromV03Message(status.message), timestamp: status.timestamp };
}

export function toV03Artifact(artifact: Artifact): V.V03Artifact {
  return { ...artifact, parts: artifact.parts.map(toV03Part) };
}

export function fromV03Artifact(artifact: V.V03Artifact): Artifact {
  return { ...artifact, parts: artifact.parts.map(fromV03Part) };
}

export function toV03Task(task: Task): V.V03Task {
  return {
    kind: 'task',
    id: task.id,
    // REQUIRED in 0.3; this library's tasks always have one
    contextId: task.contextId ?? '',
    status: toV03Status(task.status),
    artifacts: task.artifacts?.map(toV03Artifact),
    history: task.history?.map(toV03Message),
    metadata: task.metadata,
  };
}

export function fromV03Task(task: V.V03Task): Task {
  return {
    id: task.id,
    contextId: task.contextId,
    status: fromV03Status(task.status),
    artifacts: task.artifacts?.map(fromV03Artifact),
    history: task.history?.map(fromV03Message),
    metadata: task.metadata,
  };
}

// ---- results and events ----

export function toV03SendMessageResult(response: SendMessageResponse): V.V03SendMessageResult {
  return 'task' in response ? toV03Task(response.task) : toV03Message(response.message);
}

export function fromV03SendMessageResult(result: V.V03SendMessageResult): SendMessageResponse {
  return result.kind === 'task' ? { task: fromV03Task(result) } : { message: fromV03Message(result) };
}

/**
 * One event of a 1.0 stream as 0.3 sends it. `endsStream` says which states close the stream
 * (their status update carries `final: true`); by default {@link endsV03Stream}.
 */
export function toV03StreamEvent(event: StreamResponse, endsStream: (state: TaskState) => boolean = endsV03Stream): V.V03StreamEvent {
  if ('task' in event) return toV03Task(event.task);
  if ('message' in event) return toV03Message(event.message);
  if ('statusUpdate' in event) {
    const { taskId, contextId, status, metadata } = event.statusUpdate;
    return { kind: 'status-update', taskId, contextId, status: toV03Status(status), final: endsStream(status.state), metadata };
  }
  const update = event.artifactUpdate;
  return { kind: 'artifact-update', ...update, artifact: toV03Artifact(update.artifact) };
}

/** One 0.3 stream event as 1.0 (`final` has no 1.0 form: the end of the stream says it). */
export function fromV03StreamEvent(event: V.V03StreamEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: fromV03Task(event) };
    case 'message':
      return { message: fromV03Message(event) };
    case 'status-update': {
      const { taskId, contextId, status, metadata } = event;
      return { statusUpdate: { taskId, contextId, status: fromV03Status(status), metadata } };
    }
    case 'artifact-update': {
      const { kind: _kind, ...update } = event;
      return { artifactUpdate: { ...update, artifact: fromV03Artifact(event.artifact) } };
    }
  }
}

// ---- push notification configs ----

/** The nested 0.3 config of a flat 1.0 one. */
export function toV03PushNotificationConfig(config: TaskPushNotificationConfig): V.V03PushNotificationConfig {
  const { authentication } = config;
  return {
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: authentication && { schemes: [authentication.scheme], credentials: authentication.credentials },
  };
}

/**
 * A 0.3 config as the flat 1.0 one (`taskId` is the caller's to add).
 * @param path where the config is in the request, for the one check decoding cannot make
 * @throws InvalidParamsError for credentials with no scheme
 */
export function fromV03PushNotificationConfig(config: V.V03PushNotificationConfig, path: string): TaskPushNotificationConfig {
  return { id: config.id, url: config.url, token: config.token, authentication: config.authentication && fromV03Authentication(config.authentication, `${path}.authentication`) };
}

function fromV03Authentication(authentication: V.V03PushNotificationAuthenticationInfo, path: string): AuthenticationInfo | undefined {
  const [scheme] = authentication.schemes;
  if (scheme !== undefined && scheme !== '') return { scheme, credentials: authentication.credentials };
  if (authentication.credentials === undefined) return undefined;
  throw InvalidParamsError.field(`${path}.schemes`, 'must name the scheme the credentials are for');
}

export function toV03TaskPushNotificationConfig(config: TaskPushNotificationConfig): V.V03TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: toV03PushNotificationConfig(config) };
}

/** @throws InvalidParamsError for credentials with no scheme */
export function fromV03TaskPushNotificationConfig(config: V.V03TaskPushNotificationConfig, path = ''): TaskPushNotificationConfig {
  return { taskId: config.taskId, ...fromV03PushNotificationConfig(config.pushNotificationConfig, path ? `${path}.pushNotificationConfig` : 'pushNotificationConfig') };
}

export function fromV03TaskPushNotificationConfigList(configs: V.V03TaskPushNotificationConfig[]): ListTaskPushNotificationConfigsResponse {
  return { configs: configs.map((config, i) => fromV03TaskPushNotificationConfig(config, `[${i}]`)) };
}

// ---- requests ----

/** @throws InvalidParamsError for push credentials with no scheme */
export function fromV03MessageSendParams(params: V.V03MessageSendParams): SendMessageRequest {
  const configuration = params.configuration;
  const push = configuration?.pushNotificationConfig;
  return {
    message: fromV03Message(params.message),
    configuration: {
      acceptedOutputModes: configuration?.acceptedOutputModes,
      historyLength: configuration?.historyLength,
      taskPushNotificationConfig: push && fromV03PushNotificationConfig(push, 'configuration.pushNotificationConfig'),
      // absent or false: do not wait (0.3), which 1.0 has to say explicitly
      returnImmediately: configuration?.blocking === true ? undefined : true,
    },
    metadata: params.metadata,
  };
}

export function toV03MessageSendParams(request: SendMessageRequest): V.V03MessageSendParams {
  const configuration = request.configuration;
  const push = configuration?.taskPushNotificationConfig;
  return {
    message: toV03Message(request.message),
    configuration: {
      acceptedOutputModes: configuration?.acceptedOutputModes,
      historyLength: positive(configuration?.historyLength),
      pushNotificationConfig: push && toV03PushNotificationConfig(push),
      // always said: peers disagree on what an absent `blocking` means
      blocking: configuration?.returnImmediately !== true,
    },
    metadata: request.metadata,
  };
}

/** A history length 0.3 reads as asked: 0 would mean "all of it" there. */
export function positive(historyLength: number | undefined): number | undefined {
  return historyLength !== undefined && historyLength > 0 ? historyLength : undefined;
}

/** The history length of a 0.3 `tasks/get`: N as it is, else 0 ("all of it", the one value 0.3 peers agree on). */
export function v03HistoryLength(historyLength: number | undefined): number {
  return positive(historyLength) ?? 0;
}
