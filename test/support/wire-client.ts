/**
 * A deliberately raw A2A client for e2e tests: plain fetch, one adapter per binding, so one test
 * table can drive both bindings and compare what reaches the wire.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface WireError {
  /** ErrorInfo reason, when the error carries one. */
  reason?: string;
  /** JSON-RPC code (JSON-RPC binding) or REST `error.status` (HTTP+JSON binding). */
  code: number | string;
  message: string;
  details: Json[];
}

export interface WireResponse {
  status: number;
  headers: Headers;
  result?: Json;
  error?: WireError;
  raw: Json;
}

export interface SseEvent {
  id?: string;
  event?: string;
  /** For JSON-RPC: the `result` (or the whole body for an error); for REST: the data. */
  data: Json;
}

export interface WireStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Set when the answer was not a stream (an error before the stream started). */
  error?: WireError;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Abort the request (for streams: stop reading after `stopAfter` events). */
  stopAfter?: number;
  signal?: AbortSignal;
}

export const V1 = { 'A2A-Version': '1.0' };

export interface BindingClient {
  readonly name: 'JSONRPC' | 'HTTP+JSON';
  call(operation: string, params: Json, options?: CallOptions): Promise<WireResponse>;
  stream(operation: string, params: Json, options?: CallOptions): Promise<WireStream>;
}

/** JSON-RPC: POST to the endpoint, `result` or `error`. */
export function jsonRpcClient(endpoint: string): BindingClient {
  let nextId = 1;
  const post = (method: string, params: Json, options: CallOptions) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1, ...options.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: options.signal,
    });
  return {
    name: 'JSONRPC',
    async call(operation, params, options = {}) {
      const res = await post(operation, params, options);
      const raw: Json = await res.json();
      return { status: res.status, headers: res.headers, raw, result: raw.result, error: raw.error ? jsonRpcError(raw.error) : undefined };
    },
    async stream(operation, params, options = {}) {
      const res = await post(operation, params, options);
      if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
        const raw: Json = await res.json();
        return { status: res.status, headers: res.headers, events: [], error: jsonRpcError(raw.error) };
      }
      const events = await readSse(res, options.stopAfter);
      return {
        status: res.status,
        headers: res.headers,
        events: events.map((e) => {
          const body = JSON.parse(e.data);
          return { id: e.id, event: e.event, data: body.error ? body : body.result };
        }),
      };
    },
  };
}

/** Where each operation lives in the HTTP+JSON route table. */
function restRequest(base: string, operation: string, p: Json, tenant?: string): { method: string; url: string; body?: Json } {
  const t = tenant ? `/${encodeURIComponent(tenant)}` : '';
  const enc = encodeURIComponent;
  const query = (fields: Record<string, unknown>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  switch (operation) {
    case 'SendMessage':
      return { method: 'POST', url: `${base}${t}/message:send`, body: p };
    case 'SendStreamingMessage':
      return { method: 'POST', url: `${base}${t}/message:stream`, body: p };
    case 'GetTask':
      return { method: 'GET', url: `${base}${t}/tasks/${enc(p.id)}${query({ historyLength: p.historyLength })}` };
    case 'ListTasks': {
      const { tenant: _t, ...fields } = p;
      return { method: 'GET', url: `${base}${t}/tasks${query(fields)}` };
    }
    case 'CancelTask':
      return { method: 'POST', url: `${base}${t}/tasks/${enc(p.id)}:cancel`, body: p.metadata ? { metadata: p.metadata } : {} };
    case 'SubscribeToTask':
      return { method: p.viaGet ? 'GET' : 'POST', url: `${base}${t}/tasks/${enc(p.id)}:subscribe` };
    case 'CreateTaskPushNotificationConfig':
      return { method: 'POST', url: `${base}${t}/tasks/${enc(p.taskId)}/pushNotificationConfigs`, body: p };
    case 'GetTaskPushNotificationConfig':
      return { method: 'GET', url: `${base}${t}/tasks/${enc(p.taskId)}/pushNotificationConfigs/${enc(p.id)}` };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', url: `${base}${t}/tasks/${enc(p.taskId)}/pushNotificationConfigs` };
    case 'DeleteTaskPushNotificationConfig':
      return { method: 'DELETE', url: `${base}${t}/tasks/${enc(p.taskId)}/pushNotificationConfigs/${enc(p.id)}` };
    case 'GetExtendedAgentCard':
      return { method: 'GET', url: `${base}${t}/extendedAgentCard` };
    default:
      throw new Error(`unknown operation ${operation}`);
  }
}

/** HTTP+JSON: the route table, `{"error":{…}}` bodies. `params.tenant` becomes the path prefix. */
export function restClient(base: string): BindingClient {
  const send = (operation: string, params: Json, options: CallOptions) => {
    const { tenant, ...rest } = params ?? {};
    const req = restRequest(base, operation, operation === 'ListTasks' ? params : rest, tenant);
    return fetch(req.url, {
      method: req.method,
      headers: { ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}), ...V1, ...options.headers },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: options.signal,
    });
  };
  return {
    name: 'HTTP+JSON',
    async call(operation, params, options = {}) {
      const res = await send(operation, params, options);
      const text = await res.text();
      const raw = text ? JSON.parse(text) : undefined;
      const ok = res.status >= 200 && res.status < 300;
      return { status: res.status, headers: res.headers, raw, result: ok ? raw : undefined, error: ok ? undefined : restError(raw) };
    },
    async stream(operation, params, options = {}) {
      const res = await send(operation, params, options);
      if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
        return { status: res.status, headers: res.headers, events: [], error: restError(await res.json()) };
      }
      const events = await readSse(res, options.stopAfter);
      return { status: res.status, headers: res.headers, events: events.map((e) => ({ id: e.id, event: e.event, data: JSON.parse(e.data) })) };
    },
  };
}

export function jsonRpcError(error: Json): WireError {
  const details: Json[] = Array.isArray(error?.data) ? error.data : [];
  return { code: error?.code, message: error?.message, details, reason: details.find((d) => d.reason)?.reason };
}

export function restError(body: Json): WireError {
  const details: Json[] = body?.error?.details ?? [];
  return { code: body?.error?.status, message: body?.error?.message, details, reason: details.find((d) => d.reason)?.reason };
}

/** Reads an SSE body to its end (or `stopAfter` events), with a well-kept parser. */
export async function readSse(res: Response, stopAfter?: number): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (stopAfter !== undefined && events.length >= stopAfter) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

/** A user message with text (and a unique id unless given). */
export function userMessage(text: string, fields: Json = {}): Json {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...fields };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls GetTask until `until(task)` or the deadline. */
export async function waitForTask(client: BindingClient, id: string, until: (task: Json) => boolean, timeoutMs = 5000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { result } = await client.call('GetTask', { id });
    if (result && until(result)) return result;
    if (Date.now() > deadline) throw new Error(`task ${id} did not reach the expected state: ${JSON.stringify(result)}`);
    await sleep(50);
  }
}
