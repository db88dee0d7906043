/**
 * Is an answer a well-formed A2A answer in its binding's shape? Written from the spec (digest §2.2,
 * §2.3.4, §2.5, §3), not from the library's code, so it can catch the library's mistakes:
 *
 * - JSON-RPC: a 2.0 envelope (`jsonrpc`, `id`, exactly one of `result`/`error`) carrying the
 *   request's id, or null when the id could not be read; `error.code` from the A2A/JSON-RPC
 *   table; `error.data` an array of `@type` objects (an ErrorInfo with the right reason for the
 *   A2A-specific codes); HTTP 200, or the HTTP status of a failure of the exchange itself.
 * - HTTP+JSON: `{"error":{code,status,message,details}}` with `code` = the HTTP status and a
 *   `status` name that belongs to it.
 * - Streams: every SSE event one of those (an event's data a StreamResponse, or an error).
 * - Never a 5xx but 503 (a dependency down), never an internal error, and nothing that looks like
 *   a stack trace, a source path or a secret, unless the request itself said it (the echo agent
 *   answers with what it was sent).
 * - A server that serves A2A 0.3 beside 1.0 (`servesV03`) answers a request that names no version
 *   (or 0.3) in 0.3's shapes (its §7, §8 and the REST transport of `@a2a-js/sdk` 0.3): JSON-RPC
 *   errors with a free-form object `data`, results told apart by `kind`; REST errors as a bare
 *   `{code,message,data?}` with a JSON-RPC code, successes with 200, 201, 202 or 204.
 */
import { createParser } from 'eventsource-parser';
import { gunzipSync } from 'node:zlib';
import type { HostileRequest } from './hostile-requests.js';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** JSON-RPC and A2A codes a server may answer with (digest §2.2, §3.1; -32000 is this library's auth and limits). */
const A2A_REASONS: Record<number, string> = {
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32006]: 'INVALID_AGENT_RESPONSE',
  [-32007]: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  [-32008]: 'EXTENSION_SUPPORT_REQUIRED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
};
const JSONRPC_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32000, ...Object.keys(A2A_REASONS).map(Number)]);

/**
 * JSON-RPC errors travel in HTTP 200, except failures of the HTTP exchange, which keep their
 * HTTP status: the codes each of those may carry.
 */
const JSONRPC_TRANSPORT_CODES: Record<number, number[]> = {
  401: [-32000],
  403: [-32000],
  404: [-32601], // no such agent in the path
  405: [-32601],
  413: [-32600],
  415: [-32005],
  429: [-32000],
  503: [-32603],
};

/** Errors raised once the envelope was read: they must carry the request's id. */
const CODES_AFTER_ENVELOPE = new Set([-32602, -32001, -32002, -32003, -32004, -32006, -32007, -32008, -32009]);

/** The canonical status names each HTTP status may carry (AIP-193, digest §2.3.4 and §3.1). */
const REST_STATUS_NAMES: Record<number, string[]> = {
  400: ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'OUT_OF_RANGE'],
  401: ['UNAUTHENTICATED'],
  403: ['PERMISSION_DENIED'],
  404: ['NOT_FOUND'],
  405: ['UNIMPLEMENTED'],
  413: ['INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED', 'OUT_OF_RANGE'],
  415: ['INVALID_ARGUMENT'],
  429: ['RESOURCE_EXHAUSTED'],
  503: ['UNAVAILABLE'],
};

const STREAM_RESPONSE_MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'];

/** What must never reach the wire: secrets, stack frames, source paths, error class dumps. */
const LEAKS: RegExp[] = [
  /SECRET-[\w-]*/g,
  /\bat [\w$.<>]+ \([^)]*\)/g,
  /\bat (?:file:\/\/|\/)[^\s)]+:\d+/g,
  /(?:\/work\/|\/home\/|node_modules)[^\s"]*/g,
  /[\w-]+\.(?:ts|js|mjs):\d+(?::\d+)?/g,
  /\b(?:TypeError|ReferenceError|RangeError|SyntaxError): [^"]*/g,
  /\bredis:\/\/[^\s"]*/g,
];

export interface AnswerCheckOptions {
  /** The server serves A2A 0.3 beside 1.0: a request without `A2A-Version` (or with 0.3) is answered in 0.3. */
  readonly servesV03?: boolean;
}

/**
 * The version a request is answered in by a server serving 0.3 beside 1.0: `A2A-Version` from its
 * header (present, even empty), else from the query; absent or empty means 0.3 (spec §3.6.2), and
 * `Major.Minor[.patch]` of 0.3 is 0.3. Anything else is read at 1.0 (and refused there when not 1.0).
 */
export function answeredVersion(request: HostileRequest): '0.3' | '1.0' {
  const name = Object.keys(request.headers).find((key) => key.toLowerCase() === 'a2a-version');
  const query = new URLSearchParams(request.path.includes('?') ? request.path.slice(request.path.indexOf('?') + 1) : '');
  const asked = name !== undefined ? request.headers[name] : (query.get('A2A-Version') ?? query.get('a2a-version') ?? undefined);
  const value = asked?.trim() ?? '';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  return value === '' || (match !== null && Number(match[1]) === 0 && Number(match[2]) === 3) ? '0.3' : '1.0';
}

/** Problems with `answer` to `request`; empty when it is a well-formed protocol answer. */
export function answerProblems(request: HostileRequest, answer: Answer, options: AnswerCheckOptions = {}): string[] {
  const problems = leakProblems(request, answer);
  if (answer.status >= 500 && answer.status !== 503) problems.push(`HTTP ${answer.status}: a 5xx other than 503`);
  const v03 = options.servesV03 === true && answeredVersion(request) === '0.3';
  const contentType = header(answer, 'content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    if (answer.status !== 200) problems.push(`an event stream with HTTP ${answer.status}`);
    return [...problems, ...streamProblems(request, answer, v03)];
  }
  // a 0.3 REST delete answers 204, as a2a-js 0.3 does
  if (v03 && answer.status === 204 && request.binding === 'HTTP+JSON' && request.method === 'DELETE') return problems;
  if (answer.status === 204 || answer.status === 304) return [...problems, `HTTP ${answer.status}: no body where an answer is due`];
  if (!/^application\/(?:a2a\+)?json\b/.test(contentType)) return [...problems, `Content-Type "${contentType}" is not JSON`];
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  if (request.binding === 'JSONRPC') problems.push(...jsonRpcProblems(request, answer, body, v03));
  else problems.push(...(v03 ? v03RestProblems(request, answer, body) : restProblems(request, answer, body)));
  return problems;
}

// ---- JSON-RPC ----

/**
 * The id the server must echo: read from the request as a lenient reader would (inflated, bad
 * UTF-8 replaced, the last of duplicate keys winning), since a host's parser may read it so;
 * undefined when the body holds no envelope with a valid id. A server that refuses the bytes
 * answers with id null, which is allowed for errors raised before the envelope was read.
 */
export function requestId(request: HostileRequest): string | number | null | undefined {
  const parsed = parsedBody(request);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const id = (parsed as { id?: unknown }).id;
  if (id === undefined || id === null) return null;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

/** The request body as a lenient reader parses it (see requestId); undefined when it does not parse. */
function parsedBody(request: HostileRequest): unknown {
  if (!request.body) return undefined;
  try {
    const bytes = /gzip/i.test(request.headers['Content-Encoding'] ?? '') ? gunzipSync(request.body) : request.body;
    return JSON.parse(new TextDecoder(request.shape.includes('utf-16') ? 'utf-16le' : 'utf-8').decode(bytes));
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isTask = (value: unknown) => isObject(value) && typeof value.id === 'string' && isObject(value.status) && typeof value.status.state === 'string';

/** What a successful result of each v1.0 operation looks like (digest §2.2); v0.3 results are not judged. */
const RESULT_SHAPES: Record<string, (result: unknown) => boolean> = {
  SendMessage: (r) => isObject(r) && ['task', 'message'].filter((m) => m in r).length === 1 && (!('task' in r) || isTask(r.task)),
  GetTask: isTask,
  CancelTask: isTask,
  ListTasks: (r) => isObject(r) && Array.isArray(r.tasks) && r.tasks.every(isTask),
  GetExtendedAgentCard: (r) => isObject(r) && typeof r.name === 'string',
  CreateTaskPushNotificationConfig: (r) => isObject(r) && typeof r.url === 'string',
  GetTaskPushNotificationConfig: (r) => isObject(r) && typeof r.url === 'string',
  ListTaskPushNotificationConfigs: (r) => isObject(r) && Array.isArray(r.configs),
  DeleteTaskPushNotificationConfig: (r) => r === null || isObject(r),
};

/** The v1.0 operation a REST request names, for the routes whose result is judged. */
function restOperation(request: HostileRequest): string | undefined {
  const path = request.path.split('?')[0];
  if (request.method === 'POST' && path.endsWith('/message:send')) return 'SendMessage';
  if (request.method === 'POST' && path.endsWith(':cancel')) return 'CancelTask';
  if (request.method === 'GET' && /\/tasks\/[^/:]+$/.test(path)) return 'GetTask';
  if (request.method === 'GET' && path.endsWith('/tasks')) return 'ListTasks';
  return undefined;
}

const isV03Task = (value: unknown) => isTask(value) && (value as { kind?: unknown }).kind === 'task';
const isV03PushConfig = (value: unknown) => isObject(value) && typeof value.taskId === 'string' && isObject(value.pushNotificationConfig) && typeof value.pushNotificationConfig.url === 'string';

/** What a successful result of each 0.3 JSON-RPC method looks like (0.3 §7): objects say what they are in `kind`. */
const V03_RESULT_SHAPES: Record<string, (result: unknown) => boolean> = {
  'message/send': (r) => isV03Task(r) || (isObject(r) && r.kind === 'message' && Array.isArray(r.parts)),
  'tasks/get': isV03Task,
  'tasks/cancel': isV03Task,
  'tasks/pushNotificationConfig/set': isV03PushConfig,
  'tasks/pushNotificationConfig/get': isV03PushConfig,
  'tasks/pushNotificationConfig/list': (r) => Array.isArray(r) && r.every(isV03PushConfig),
  'tasks/pushNotificationConfig/delete': (r) => r === null,
  'agent/getAuthenticatedExtendedCard': (r) => isObject(r) && typeof r.name === 'string' && typeof r.url === 'string',
};

/** The kinds of a 0.3 stream event. */
const V03_EVENT_KINDS = ['task', 'message', 'status-update', 'artifact-update'];

function resultProblems(operation: unknown, result: unknown, shapes: Record<string, (result: unknown) => boolean> = RESULT_SHAPES): string[] {
  const shape = typeof operation === 'string' && Object.hasOwn(shapes, operation) ? shapes[operation] : undefined;
  return shape && !shape(result) ? [`a ${operation} result that is not one: ${JSON.stringify(result).slice(0, 200)}`] : [];
}

function jsonRpcProblems(request: HostileRequest, answer: Answer, body: unknown, v03: boolean): string[] {
  // a batch may one day be answered with an array of responses: each must then be well-formed
  if (Array.isArray(body)) {
    if (answer.status !== 200) return [`a batch answer with HTTP ${answer.status}`];
    return body.length === 0 ? ['an empty batch answer'] : body.flatMap((item, i) => envelopeProblems(item, undefined, v03).map((p) => `[${i}] ${p}`));
  }
  const problems = envelopeProblems(body, requestId(request), v03);
  const error = (body as { error?: { code?: unknown } })?.error;
  if (error === undefined) {
    if (answer.status !== 200) problems.push(`a result with HTTP ${answer.status}`);
    const method = (parsedBody(request) as { method?: unknown })?.method;
    problems.push(...resultProblems(method, (body as { result?: unknown })?.result, v03 ? V03_RESULT_SHAPES : RESULT_SHAPES));
    return problems;
  }
  const code = error.code as number;
  if (answer.status !== 200) {
    const allowed = JSONRPC_TRANSPORT_CODES[answer.status];
    if (!allowed) problems.push(`a JSON-RPC error with HTTP ${answer.status}`);
    else if (!allowed.includes(code)) problems.push(`code ${code} with HTTP ${answer.status} (expected ${allowed.join(' or ')})`);
  } else if (code === -32000) {
    problems.push('code -32000 (authentication, authorization or a limit) with HTTP 200');
  }
  problems.push(...authAndAllowProblems(answer));
  return problems;
}

/** One JSON-RPC response object; `expectedId` undefined: the id could not be read, so null is due. */
function envelopeProblems(body: unknown, expectedId: string | number | null | undefined, v03: boolean): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['the answer is not a JSON-RPC response object'];
  const envelope = body as Record<string, unknown>;
  const problems: string[] = [];
  const extra = Object.keys(envelope).filter((k) => !['jsonrpc', 'id', 'result', 'error'].includes(k));
  if (extra.length > 0) problems.push(`unexpected members ${extra.join(', ')}`);
  if (envelope.jsonrpc !== '2.0') problems.push('"jsonrpc" is not "2.0"');
  if (!('id' in envelope)) problems.push('no "id"');
  if (('result' in envelope) === ('error' in envelope)) return [...problems, 'not exactly one of "result" and "error"'];
  const id = envelope.id;
  if ('result' in envelope) {
    if (expectedId === undefined || id !== expectedId) problems.push(`a result with id ${JSON.stringify(id)} (request id ${JSON.stringify(expectedId)})`);
    if (envelope.result === undefined) problems.push('an undefined result');
    return problems;
  }
  problems.push(...(v03 ? v03ErrorProblems(envelope.error) : jsonRpcErrorProblems(envelope.error)));
  const code = (envelope.error as { code?: unknown })?.code as number;
  if (expectedId === undefined) {
    if (id !== null) problems.push(`id ${JSON.stringify(id)} where the request's id could not be read (null is due)`);
  } else if (id !== expectedId && !(id === null && !CODES_AFTER_ENVELOPE.has(code))) {
    problems.push(`id ${JSON.stringify(id)} instead of the request's ${JSON.stringify(expectedId)}`);
  }
  return problems;
}

function jsonRpcErrorProblems(error: unknown): string[] {
  if (typeof error !== 'object' || error === null) return ['"error" is not an object'];
  const { code, message, data, ...rest } = error as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(rest).length > 0) problems.push(`unexpected error members ${Object.keys(rest).join(', ')}`);
  if (typeof code !== 'number' || !JSONRPC_CODES.has(code)) problems.push(`error code ${JSON.stringify(code)} is not in the A2A/JSON-RPC table`);
  if (typeof message !== 'string' || message === '') problems.push('error.message is not a non-empty string');
  if (data !== undefined) problems.push(...detailProblems(data, 'error.data'));
  if (code === -32603 && reasonOf(data) !== 'UNAVAILABLE') problems.push('an internal error (-32603 that is not UNAVAILABLE)');
  if (typeof code === 'number' && A2A_REASONS[code]) {
    const info = Array.isArray(data) ? data.find((d) => d?.['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') : undefined;
    if (info?.reason !== A2A_REASONS[code] || info?.domain !== 'a2a-protocol.org') problems.push(`code ${code} without an ErrorInfo { reason: ${A2A_REASONS[code]}, domain: a2a-protocol.org }`);
  }
  return problems;
}

/**
 * A 0.3 error object (the JSON-RPC `error`, or a whole REST error body): `{code, message, data?}`,
 * `data` a free-form object; where it names a reason, it is the code's.
 */
function v03ErrorProblems(error: unknown): string[] {
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return ['"error" is not an object'];
  const { code, message, data, ...rest } = error as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(rest).length > 0) problems.push(`unexpected error members ${Object.keys(rest).join(', ')}`);
  if (typeof code !== 'number' || !JSONRPC_CODES.has(code)) problems.push(`error code ${JSON.stringify(code)} is not in the A2A/JSON-RPC table`);
  if (typeof message !== 'string' || message === '') problems.push('error.message is not a non-empty string');
  if (data !== undefined && !isObject(data)) problems.push('error.data is not an object (0.3: free-form)');
  const reason = isObject(data) ? data.reason : undefined;
  if (code === -32603 && reason !== 'UNAVAILABLE') problems.push('an internal error (-32603 that is not UNAVAILABLE)');
  if (typeof code === 'number' && A2A_REASONS[code] && reason !== undefined && reason !== A2A_REASONS[code]) problems.push(`code ${code} with reason ${JSON.stringify(reason)}`);
  return problems;
}

// ---- HTTP+JSON ----

/** The REST binding of `@a2a-js/sdk` 0.3: successes in the 0.3 proto's JSON, bare error bodies with any 4xx (or 503). */
function v03RestProblems(request: HostileRequest, answer: Answer, body: unknown): string[] {
  if (answer.status >= 200 && answer.status < 300) {
    if (![200, 201, 202].includes(answer.status)) return [`success with HTTP ${answer.status}`];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['a success body that is not a JSON object'];
    if ('code' in body && 'message' in body) return ['a success that holds an error'];
    const operation = restOperation(request);
    if (operation === 'SendMessage' && ['task', 'message'].filter((m) => m in body).length !== 1) return ['a message:send answer that is not one of task, message'];
    if ((operation === 'GetTask' || operation === 'CancelTask') && !isTask(body)) return [`a ${operation} answer that is not a task`];
    return [];
  }
  if (!(answer.status >= 400 && answer.status < 500) && answer.status !== 503) return [`an error with HTTP ${answer.status}`];
  return [...v03ErrorProblems(body), ...authAndAllowProblems(answer)];
}

function restProblems(request: HostileRequest, answer: Answer, body: unknown): string[] {
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.status !== 200) return [`success with HTTP ${answer.status} (the spec's answers are 200)`];
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['a success body that is not a JSON object'];
    if ('error' in body) return ['a success (HTTP 200) that holds an "error"'];
    return resultProblems(restOperation(request), body);
  }
  const problems = restErrorProblems(body, answer.status);
  problems.push(...authAndAllowProblems(answer));
  return problems;
}

function restErrorProblems(body: unknown, httpStatus: number | undefined): string[] {
  const error = (body as { error?: unknown })?.error;
  if (typeof body !== 'object' || body === null || Object.keys(body).length !== 1 || typeof error !== 'object' || error === null) {
    return ['not a {"error":{...}} body'];
  }
  const { code, status, message, details, ...rest } = error as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(rest).length > 0) problems.push(`unexpected error members ${Object.keys(rest).join(', ')}`);
  if (typeof code !== 'number') problems.push('error.code is not a number');
  if (httpStatus !== undefined && code !== httpStatus) problems.push(`error.code ${JSON.stringify(code)} is not the HTTP status ${httpStatus}`);
  const names = REST_STATUS_NAMES[typeof code === 'number' ? code : -1];
  if (!names) problems.push(`error.code ${JSON.stringify(code)} is not a status an A2A server answers with`);
  else if (!names.includes(status as string)) problems.push(`error.status ${JSON.stringify(status)} does not belong to ${code} (${names.join(', ')})`);
  if (typeof message !== 'string' || message === '') problems.push('error.message is not a non-empty string');
  problems.push(...detailProblems(details, 'error.details'));
  return problems;
}

// ---- both ----

function detailProblems(details: unknown, where: string): string[] {
  if (!Array.isArray(details)) return [`${where} is not an array`];
  return details.some((d) => typeof d !== 'object' || d === null || Array.isArray(d) || typeof d['@type'] !== 'string' || d['@type'] === '')
    ? [`${where} holds an entry without "@type"`]
    : [];
}

function reasonOf(details: unknown): string | undefined {
  return Array.isArray(details) ? details.find((d) => typeof d?.reason === 'string')?.reason : undefined;
}

/** 401 names its challenge, 405 the methods that are allowed. */
function authAndAllowProblems(answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status === 401 && !header(answer, 'www-authenticate')) problems.push('401 without WWW-Authenticate');
  if (answer.status === 405 && !header(answer, 'allow')) problems.push('405 without Allow');
  return problems;
}

function streamProblems(request: HostileRequest, answer: Answer, v03: boolean): string[] {
  const events: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event, data: e.data }) });
  parser.feed(answer.body.toString('utf8'));
  // a reconnect that has seen every event so far (Last-Event-ID) of an interrupted task gets nothing more
  if (events.length === 0 && !/^\s*\d+\s*$/.test(request.headers['Last-Event-ID'] ?? '')) return ['an event stream with no event'];
  const id = requestId(request);
  return events.flatMap((e, i) => {
    let data: unknown;
    try {
      data = JSON.parse(e.data);
    } catch {
      return [`event ${i}: data is not JSON`];
    }
    const problems: string[] = [];
    let payload: unknown = data;
    let isError: boolean;
    if (request.binding === 'JSONRPC') {
      problems.push(...envelopeProblems(data, id, v03).map((p) => `event ${i}: ${p}`));
      isError = typeof data === 'object' && data !== null && 'error' in data;
      payload = (data as { result?: unknown })?.result;
    } else if (v03) {
      isError = e.event === 'error';
      if (isError) problems.push(...v03ErrorProblems(data).map((p) => `event ${i}: ${p}`));
    } else {
      isError = typeof data === 'object' && data !== null && 'error' in data;
      if (isError) problems.push(...restErrorProblems(data, undefined).map((p) => `event ${i}: ${p}`));
    }
    if (isError !== (e.event === 'error')) problems.push(`event ${i}: an error must be an "event: error" and only an error may be`);
    if (isError && i !== events.length - 1) problems.push(`event ${i}: an error event that does not end the stream`);
    if (!isError && v03 && request.binding === 'JSONRPC') {
      const kind = isObject(payload) ? payload.kind : undefined;
      if (!V03_EVENT_KINDS.includes(kind as string)) problems.push(`event ${i}: not a 0.3 stream event (kind one of ${V03_EVENT_KINDS.join(', ')})`);
    } else if (!isError) {
      const members = typeof payload === 'object' && payload !== null ? STREAM_RESPONSE_MEMBERS.filter((m) => m in payload) : [];
      if (members.length !== 1) problems.push(`event ${i}: not a StreamResponse (exactly one of ${STREAM_RESPONSE_MEMBERS.join(', ')})`);
    }
    return problems;
  });
}

function leakProblems(request: HostileRequest, answer: Answer): string[] {
  const received = [answer.body.toString('utf8'), ...Object.values(answer.headers).flat()].join('\n');
  if (leaksIn(received).length === 0) return [];
  const sent = [request.path, JSON.stringify(request.headers), request.body?.toString('utf8') ?? ''].join('\n');
  return leaksIn(received, sent).map((leak) => `leaks ${JSON.stringify(leak.slice(0, 80))}`);
}

/** Secrets, stack frames and source paths in `text` that `excused` (what the client itself sent) does not hold. */
export function leaksIn(text: string, excused = ''): string[] {
  return LEAKS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[0]).filter((leak) => !excused.includes(leak)));
}

function header(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
