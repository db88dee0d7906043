/**
 * The JSON-RPC methods of A2A 0.3, each with the 1.0 operation it is and the four translations a
 * binding needs: a server reads 0.3 params into the 1.0 request and writes the 1.0 result (or each
 * event) as 0.3; a client writes the 1.0 request as 0.3 params and reads the 0.3 result back.
 * Reading is decoding with the 0.3 schemas: strict, every violation named (InvalidParamsError).
 *
 * ListTasks has no 0.3 method (0.3 sketched it for gRPC and REST only).
 */
import { decode, encode, type DecodeOptions, type Schema } from '../codec.js';
import type { A2AOperation } from '../operations.js';
import type * as T from '../types.js';
import { agentCardFromV03, toV03HybridAgentCard } from './agent-card.js';
import * as S from './schemas.js';
import * as X from './translate.js';
import type * as V from './types.js';

/** The request and result types of each operation 0.3 has. */
export interface V03OperationTypes {
  SendMessage: { request: T.SendMessageRequest; result: T.SendMessageResponse };
  SendStreamingMessage: { request: T.SendMessageRequest; result: T.StreamResponse };
  GetTask: { request: T.GetTaskRequest; result: T.Task };
  CancelTask: { request: T.CancelTaskRequest; result: T.Task };
  SubscribeToTask: { request: T.SubscribeToTaskRequest; result: T.StreamResponse };
  CreateTaskPushNotificationConfig: { request: T.TaskPushNotificationConfig; result: T.TaskPushNotificationConfig };
  GetTaskPushNotificationConfig: { request: T.GetTaskPushNotificationConfigRequest; result: T.TaskPushNotificationConfig };
  ListTaskPushNotificationConfigs: { request: T.ListTaskPushNotificationConfigsRequest; result: T.ListTaskPushNotificationConfigsResponse };
  DeleteTaskPushNotificationConfig: { request: T.DeleteTaskPushNotificationConfigRequest; result: Record<string, never> };
  GetExtendedAgentCard: { request: T.GetExtendedAgentCardRequest; result: T.AgentCard };
}

/** The operations 0.3 has: all but ListTasks. */
export type V03Operation = keyof V03OperationTypes;

export interface V03MethodSpec<Op extends V03Operation = V03Operation> {
  readonly method: string;
  readonly operation: Op;
  /** Answered with an SSE stream whose every event is a JSON-RPC response. */
  readonly streaming: boolean;
  /**
   * Server: the 0.3 params as the 1.0 request, decoded with `options` (the server's `limits`).
   * @throws InvalidParamsError naming each bad field
   */
  readonly requestFromV03: (params: unknown, options?: DecodeOptions) => V03OperationTypes[Op]['request'];
  /** Client: the 1.0 request as 0.3 params. */
  readonly requestToV03: (request: V03OperationTypes[Op]['request']) => Record<string, unknown>;
  /** Server: the 1.0 result (of a stream: one event) as the 0.3 `result`. */
  readonly resultToV03: (result: V03OperationTypes[Op]['result']) => unknown;
  /** Client: the 0.3 `result` as the 1.0 result. @throws InvalidParamsError naming each bad field */
  readonly resultFromV03: (result: unknown) => V03OperationTypes[Op]['result'];
}

/** Decodes with a 0.3 schema, then translates. */
const from =
  <W, R>(schema: Schema<W>, translate: (value: W) => R) =>
  (raw: unknown, options?: DecodeOptions): R =>
    translate(decode(schema, raw, '', options));

/** Translates, then encodes with a 0.3 schema (what reaches the wire holds nothing the schema does not know). */
const to =
  <R, W>(schema: Schema<W>, translate: (value: R) => W) =>
  (value: R): Record<string, unknown> =>
    encode(schema, translate(value));

const sendMessage = {
  requestFromV03: from(S.V03MessageSendParamsSchema, X.fromV03MessageSendParams),
  requestToV03: to(S.V03MessageSendParamsSchema, X.toV03MessageSendParams),
};

const taskResult = {
  resultToV03: to(S.V03TaskSchema, X.toV03Task),
  resultFromV03: from(S.V03TaskSchema, X.fromV03Task),
};

const streamResult = {
  resultToV03: to(S.V03StreamEventSchema, (event: T.StreamResponse) => X.toV03StreamEvent(event)),
  resultFromV03: from(S.V03StreamEventSchema, X.fromV03StreamEvent),
};

const pushConfigResult = {
  resultToV03: to(S.V03TaskPushNotificationConfigSchema, X.toV03TaskPushNotificationConfig),
  resultFromV03: from(S.V03TaskPushNotificationConfigSchema, (config) => X.fromV03TaskPushNotificationConfig(config)),
};

const taskIdParams = (id: string): V.V03TaskIdParams => ({ id });

const METHODS: { readonly [Op in V03Operation]: V03MethodSpec<Op> } = {
  SendMessage: {
    method: 'message/send',
    operation: 'SendMessage',
    streaming: false,
    ...sendMessage,
    resultToV03: to(S.V03SendMessageResultSchema, X.toV03SendMessageResult),
    resultFromV03: from(S.V03SendMessageResultSchema, X.fromV03SendMessageResult),
  },
  SendStreamingMessage: { method: 'message/stream', operation: 'SendStreamingMessage', streaming: true, ...sendMessage, ...streamResult },
  GetTask: {
    method: 'tasks/get',
    operation: 'GetTask',
    streaming: false,
    requestFromV03: from(S.V03TaskQueryParamsSchema, ({ id, historyLength }) => ({ id, historyLength: X.positive(historyLength) })),
    requestToV03: to(S.V03TaskQueryParamsSchema, ({ id, historyLength }) => ({ id, historyLength: X.v03HistoryLength(historyLength) })),
    ...taskResult,
  },
  CancelTask: {
    method: 'tasks/cancel',
    operation: 'CancelTask',
    streaming: false,
    requestFromV03: from(S.V03TaskIdParamsSchema, ({ id, metadata }) => ({ id, metadata })),
    requestToV03: to(S.V03TaskIdParamsSchema, ({ id, metadata }) => ({ id, metadata })),
    ...taskResult,
  },
  SubscribeToTask: {
    method: 'tasks/resubscribe',
    operation: 'SubscribeToTask',
    streaming: true,
    requestFromV03: from(S.V03TaskIdParamsSchema, ({ id }) => ({ id })),
    requestToV03: to(S.V03TaskIdParamsSchema, ({ id }) => taskIdParams(id)),
    ...streamResult,
  },
  CreateTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/set',
    operation: 'CreateTaskPushNotificationConfig',
    streaming: false,
    // a config set without an id gets the task's, as 0.3 servers did: a `get` without one finds it
    requestFromV03: from(S.V03TaskPushNotificationConfigSchema, (config) => {
      const v1 = X.fromV03TaskPushNotificationConfig(config);
      return { ...v1, id: v1.id ?? v1.taskId };
    }),
    requestToV03: to(S.V03TaskPushNotificationConfigSchema, X.toV03TaskPushNotificationConfig),
    ...pushConfigResult,
  },
  GetTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/get',
    operation: 'GetTaskPushNotificationConfig',
    streaming: false,
    requestFromV03: from(S.V03GetTaskPushNotificationConfigParamsSchema, ({ id, pushNotificationConfigId }) => ({ taskId: id, id: pushNotificationConfigId ?? id })),
    requestToV03: to(S.V03GetTaskPushNotificationConfigParamsSchema, ({ taskId, id }) => ({ id: taskId, pushNotificationConfigId: id })),
    ...pushConfigResult,
  },
  ListTaskPushNotificationConfigs: {
    method: 'tasks/pushNotificationConfig/list',
    operation: 'ListTaskPushNotificationConfigs',
    streaming: false,
    requestFromV03: from(S.V03ListTaskPushNotificationConfigParamsSchema, ({ id }) => ({ taskId: id })),
    // 0.3 has no pages: the one answer holds every config
    requestToV03: to(S.V03ListTaskPushNotificationConfigParamsSchema, ({ taskId }) => taskIdParams(taskId)),
    resultToV03: ({ configs }) => configs.map(to(S.V03TaskPushNotificationConfigSchema, X.toV03TaskPushNotificationConfig)),
    resultFromV03: (result) => X.fromV03TaskPushNotificationConfigList(decode(S.V03TaskPushNotificationConfigListSchema, { result }).result),
  },
  DeleteTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/delete',
    operation: 'DeleteTaskPushNotificationConfig',
    streaming: false,
    requestFromV03: from(S.V03DeleteTaskPushNotificationConfigParamsSchema, ({ id, pushNotificationConfigId }) => ({ taskId: id, id: pushNotificationConfigId })),
    requestToV03: to(S.V03DeleteTaskPushNotificationConfigParamsSchema, ({ taskId, id }) => ({ id: taskId, pushNotificationConfigId: id })),
    // 0.3 answers `null`; whatever a peer sends for it means the same
    resultToV03: () => null,
    resultFromV03: () => ({}),
  },
  GetExtendedAgentCard: {
    method: 'agent/getAuthenticatedExtendedCard',
    operation: 'GetExtendedAgentCard',
    streaming: false,
    requestFromV03: () => ({}),
    requestToV03: () => ({}),
    resultToV03: toV03HybridAgentCard,
    resultFromV03: agentCardFromV03,
  },
};

/** Every 0.3 method, by its 0.3 name. */
export const V03_JSON_RPC_METHODS: ReadonlyMap<string, V03MethodSpec> = new Map(Object.values(METHODS).map((spec) => [spec.method, spec as V03MethodSpec]));

/** The 0.3 method of a 1.0 operation; `undefined` for ListTasks, which 0.3 does not have. */
export function v03MethodOf(operation: A2AOperation): V03MethodSpec | undefined {
  return Object.hasOwn(METHODS, operation) ? (METHODS[operation as V03Operation] as V03MethodSpec) : undefined;
}

/** The 0.3 method of this name, if there is one (the names are case-sensitive). */
export function v03Method(name: string): V03MethodSpec | undefined {
  return V03_JSON_RPC_METHODS.get(name);
}
