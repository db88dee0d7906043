/**
 * The REST binding of A2A 0.3, as `@a2a-js/sdk` 0.3 speaks it (its `restHandler` and its
 * `RestTransport`, which agree with the 0.3 proto's `google.api.http` routes): every path under
 * `/v1`, bodies and answers in the 0.3 proto's JSON (`./proto-json.ts`), errors as a bare
 * `{ code, message, data? }` with an HTTP status (`./errors.ts`). No tenants; no ListTasks.
 *
 * What the two sides of that SDK do differently, and so what is accepted here:
 * - SubscribeToTask: its client POSTs, the proto says GET; its server takes both.
 * - CancelTask: its client POSTs no body, the 0.3 spec shows `{ "name": "tasks/{id}" }`; the
 *   body is not read.
 * - Create a push config: its client sends the bare config (the proto's `body: "config"`), its
 *   server reads `{ parent, configId, config }`; both are read, and a client writes a body that
 *   is both at once.
 * - Success statuses: its server answers 201 to message:send and to a create, 202 to a cancel,
 *   204 to a delete (`status` below); its client takes any 2xx.
 */
import { decode, encode, schema, type DecodeOptions } from '../codec.js';
import { InvalidParamsError } from '../errors.js';
import type { AgentCard } from '../types.js';
import { agentCardFromV03, toV03ProtoAgentCard } from './agent-card.js';
import type { V03Operation, V03OperationTypes } from './json-rpc-methods.js';
import * as P from './proto-json.js';
import { restRouteMatcher, type RestMatch, type RestRoute } from '../rest-routes.js';
import * as X from './translate.js';

export interface V03RestRoute extends RestRoute<V03Operation> {
  /** The success status `@a2a-js/sdk` 0.3 answers with. */
  readonly status: number;
}

/** Literal routes first, as in the 1.0 table. */
export const V03_REST_ROUTES: readonly V03RestRoute[] = [
  { operation: 'SendMessage', method: 'POST', path: '/v1/message:send', body: '*', status: 201 },
  { operation: 'SendStreamingMessage', method: 'POST', path: '/v1/message:stream', body: '*', status: 200 },
  { operation: 'GetExtendedAgentCard', method: 'GET', path: '/v1/card', body: 'none', status: 200 },
  { operation: 'CancelTask', method: 'POST', path: '/v1/tasks/{id}:cancel', body: 'none', status: 202 },
  { operation: 'SubscribeToTask', method: 'POST', path: '/v1/tasks/{id}:subscribe', body: 'none', status: 200 },
  { operation: 'SubscribeToTask', method: 'GET', path: '/v1/tasks/{id}:subscribe', body: 'none', status: 200 },
  { operation: 'GetTask', method: 'GET', path: '/v1/tasks/{id}', body: 'none', status: 200 },
  { operation: 'CreateTaskPushNotificationConfig', method: 'POST', path: '/v1/tasks/{taskId}/pushNotificationConfigs', body: '*', status: 201 },
  { operation: 'ListTaskPushNotificationConfigs', method: 'GET', path: '/v1/tasks/{taskId}/pushNotificationConfigs', body: 'none', status: 200 },
  { operation: 'GetTaskPushNotificationConfig', method: 'GET', path: '/v1/tasks/{taskId}/pushNotificationConfigs/{id}', body: 'none', status: 200 },
  { operation: 'DeleteTaskPushNotificationConfig', method: 'DELETE', path: '/v1/tasks/{taskId}/pushNotificationConfigs/{id}', body: 'none', status: 204 },
];

/**
 * Finds the 0.3 route for `method` + `path` (relative to the interface URL, `/v1` included).
 * @throws MethodNotFoundError, MethodNotAllowedError, InvalidParamsError (see `restRouteMatcher`)
 */
export const matchV03RestRoute = restRouteMatcher(V03_REST_ROUTES, { tenants: false }) as (method: string, path: string) => RestMatch<V03Operation> & { route: V03RestRoute };

/** A request as a REST server received it: the route's path fields, the query, the parsed body. */
export interface V03RestRequest {
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** A request as a REST client sends it. */
export interface V03RestCall {
  readonly route: V03RestRoute;
  /** Path fields by name (not yet percent-encoded). */
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body, for a POST. */
  readonly body?: unknown;
}

export interface V03RestCodec<Op extends V03Operation = V03Operation> {
  /** Server: the 1.0 request, its body decoded with `options` (the server's `limits`). @throws InvalidParamsError naming each bad field */
  readonly requestFromV03: (request: V03RestRequest, options?: DecodeOptions) => V03OperationTypes[Op]['request'];
  /** Client: how to send the 1.0 request. */
  readonly requestToV03: (request: V03OperationTypes[Op]['request']) => V03RestCall;
  /** Server: the answer's body (of a stream: one event); `undefined` for no body (204). */
  readonly resultToV03: (result: V03OperationTypes[Op]['result']) => unknown;
  /** Client: the 1.0 result from the answer's body. @throws InvalidParamsError naming each bad field */
  readonly resultFromV03: (body: unknown) => V03OperationTypes[Op]['result'];
}

/** The route a client uses: the only one, or of SubscribeToTask the POST (what a2a-js 0.3 sends). */
function routeOf(operation: V03Operation): V03RestRoute {
  return V03_REST_ROUTES.find((r) => r.operation === operation)!;
}

const call = (operation: V03Operation, pathParams: Record<string, string>, extra: { query?: Record<string, string>; body?: unknown } = {}): V03RestCall => ({
  route: routeOf(operation),
  pathParams,
  query: extra.query ?? {},
  ...(extra.body === undefined ? {} : { body: extra.body }),
});

const GetTaskQuerySchema = schema<{ id: string; historyLength?: number }>('GetTaskRequest', { id: { type: 'string', required: true }, historyLength: { type: 'int32', min: 0 } });

/** The `name` of a task, as the proto writes it in request bodies. */
const taskName = (id: string) => ({ name: `tasks/${id}` });

const sendMessage = {
  requestFromV03: ({ body }: V03RestRequest, options?: DecodeOptions) =>
    X.fromV03MessageSendParams(P.fromProtoSendMessageRequest(decode(P.ProtoSendMessageRequestSchema, body ?? {}, '', options))),
  requestToV03: (request: V03OperationTypes['SendMessage']['request']) => ({
    ...call('SendMessage', {}),
    body: encode(P.ProtoSendMessageRequestSchema, P.toProtoSendMessageRequest(X.toV03MessageSendParams(request))),
  }),
};

const stream = {
  resultToV03: (event: V03OperationTypes['SendStreamingMessage']['result']) => encode(P.ProtoStreamResponseSchema, P.toProtoStreamResponse(X.toV03StreamEvent(event))),
  resultFromV03: (body: unknown) => X.fromV03StreamEvent(P.fromProtoStreamResponse(decode(P.ProtoStreamResponseSchema, body))),
};

const task = {
  resultToV03: (result: V03OperationTypes['GetTask']['result']) => encode(P.ProtoTaskSchema, P.toProtoTask(X.toV03Task(result))),
  resultFromV03: (body: unknown) => X.fromV03Task(P.fromProtoTask(decode(P.ProtoTaskSchema, body))),
};

const pushConfig = {
  resultToV03: (result: V03OperationTypes['GetTaskPushNotificationConfig']['result']) =>
    encode(P.ProtoTaskPushNotificationConfigSchema, P.toProtoTaskPushNotificationConfig(X.toV03TaskPushNotificationConfig(result))),
  resultFromV03: (body: unknown) => X.fromV03TaskPushNotificationConfig(P.fromProtoTaskPushNotificationConfig(decode(P.ProtoTaskPushNotificationConfigSchema, body))),
};

const CODECS: { readonly [Op in V03Operation]: V03RestCodec<Op> } = {
  SendMessage: {
    ...sendMessage,
    resultToV03: (result) => encode(P.ProtoSendMessageResponseSchema, 'task' in result ? { task: P.toProtoTask(X.toV03Task(result.task)) } : { message: P.toProtoMessage(X.toV03Message(result.message)) }),
    resultFromV03: (body) => {
      const response = decode(P.ProtoSendMessageResponseSchema, body);
      return 'task' in response ? { task: X.fromV03Task(P.fromProtoTask(response.task)) } : { message: X.fromV03Message(P.fromProtoMessage(response.message)) };
    },
  },
  SendStreamingMessage: { ...sendMessage, requestToV03: (request) => ({ ...sendMessage.requestToV03(request), route: routeOf('SendStreamingMessage') }), ...stream },
  GetTask: {
    requestFromV03: ({ pathParams, query }, options) => decode(GetTaskQuerySchema, { ...query, id: pathParams.id }, '', options),
    requestToV03: ({ id, historyLength }) => call('GetTask', { id }, { query: { historyLength: String(X.v03HistoryLength(historyLength)) } }),
    ...task,
  },
  CancelTask: {
    requestFromV03: ({ pathParams }) => ({ id: pathParams.id }),
    requestToV03: ({ id }) => call('CancelTask', { id }, { body: taskName(id) }),
    ...task,
  },
  SubscribeToTask: {
    requestFromV03: ({ pathParams }) => ({ id: pathParams.id }),
    requestToV03: ({ id }) => call('SubscribeToTask', { id }, { body: taskName(id) }),
    ...stream,
  },
  CreateTaskPushNotificationConfig: {
    requestFromV03: ({ pathParams, body }, options) => {
      const create = decode(P.ProtoCreatePushConfigBodySchema, body ?? {}, '', options);
      const nested = create.config?.pushNotificationConfig ?? create.pushNotificationConfig;
      if (nested === undefined) throw InvalidParamsError.field('config', 'is required (or a bare pushNotificationConfig)');
      const config = P.fromProtoPushNotificationConfig(nested);
      const taskId = pathParams.taskId;
      const v1 = X.fromV03TaskPushNotificationConfig({ taskId, pushNotificationConfig: config }, create.config ? 'config' : '');
      // as over JSON-RPC: a config without an id gets the task's
      return { ...v1, id: create.configId || v1.id || taskId };
    },
    requestToV03: (config) => {
      const v03 = X.toV03TaskPushNotificationConfig(config);
      const bare = encode(P.ProtoTaskPushNotificationConfigSchema, P.toProtoTaskPushNotificationConfig(v03));
      // both bodies in one: the bare config (the proto) beside { parent, configId, config } (a2a-js 0.3's server)
      return call('CreateTaskPushNotificationConfig', { taskId: v03.taskId }, { body: { parent: `tasks/${v03.taskId}`, ...(config.id ? { configId: config.id } : {}), config: bare, ...bare } });
    },
    ...pushConfig,
  },
  GetTaskPushNotificationConfig: {
    requestFromV03: ({ pathParams }) => ({ taskId: pathParams.taskId, id: pathParams.id }),
    requestToV03: ({ taskId, id }) => call('GetTaskPushNotificationConfig', { taskId, id }),
    ...pushConfig,
  },
  ListTaskPushNotificationConfigs: {
    requestFromV03: ({ pathParams }) => ({ taskId: pathParams.taskId }),
    requestToV03: ({ taskId }) => call('ListTaskPushNotificationConfigs', { taskId }),
    resultToV03: ({ configs }) => encode(P.ProtoListTaskPushNotificationConfigResponseSchema, { configs: configs.map((c) => P.toProtoTaskPushNotificationConfig(X.toV03TaskPushNotificationConfig(c))) }),
    resultFromV03: (body) => {
      const { configs = [] } = decode(P.ProtoListTaskPushNotificationConfigResponseSchema, body ?? {});
      return X.fromV03TaskPushNotificationConfigList(configs.map((c, i) => P.fromProtoTaskPushNotificationConfig(c, `configs[${i}]`)));
    },
  },
  DeleteTaskPushNotificationConfig: {
    requestFromV03: ({ pathParams }) => ({ taskId: pathParams.taskId, id: pathParams.id }),
    requestToV03: ({ taskId, id }) => call('DeleteTaskPushNotificationConfig', { taskId, id }),
    resultToV03: () => undefined,
    resultFromV03: () => ({}),
  },
  GetExtendedAgentCard: {
    requestFromV03: () => ({}),
    requestToV03: () => call('GetExtendedAgentCard', {}),
    resultToV03: (card: AgentCard) => toV03ProtoAgentCard(card),
    resultFromV03: agentCardFromV03,
  },
};

/** The REST codec of a 1.0 operation; `undefined` for ListTasks, which 0.3 does not have. */
export function v03RestCodecOf(operation: string): V03RestCodec | undefined {
  return Object.hasOwn(CODECS, operation) ? (CODECS[operation as V03Operation] as V03RestCodec) : undefined;
}
