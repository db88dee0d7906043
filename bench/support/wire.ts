/**
 * What the server processes (../servers/server.ts) and the load generator (./load.ts) agree on:
 * which server to start, the IPC messages, the agents' texts, the requests of each scenario and the
 * checks of their answers. Every answer is checked, so a broken stack fails the run instead of
 * looking fast.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { randomUUID } from 'node:crypto';
import { JSON_RPC_PATH, REST_PATH } from './http.js';
import { answerTo, MESSAGE_PREFIX } from './lifecycle.js';

// ---------------------------------------------------------------- the servers

/** The environment variable that carries a {@link ServerSpec} to a server process. */
export const SERVER_ENV = 'BENCH_SERVER';

export type StackKind = 'ours' | 'sdk' | 'ceiling' | 'raw';
export type Platform = 'express' | 'fastify';

/** Which server a process runs. */
export interface ServerSpec {
  readonly stack: StackKind;
  /** The Nest platform of `ours` and `ceiling` (the SDK is Express's; `raw` is node:http alone). */
  readonly platform: Platform;
  /** `ours` only: tasks and event logs in this Redis, under this key prefix. */
  readonly redis?: { readonly url: string; readonly keyPrefix: string };
}

/** What `handler-path` tells its workers (./handler-worker.ts), one process per build. */
export const HANDLER_ENV = { root: 'BENCH_HANDLER_ROOT', kind: 'BENCH_HANDLER_KIND', rounds: 'BENCH_HANDLER_ROUNDS', roundMs: 'BENCH_HANDLER_ROUND_MS' } as const;

/** `message`: SendMessage answered with a Message; `lifecycle`: blocking SendMessage → the COMPLETED task. */
export type HandlerKind = 'message' | 'lifecycle';

/** What a handler worker sends its parent: µs per operation of each measured round, or why it could not. */
export type HandlerReply = { readonly perRound: number[] } | { readonly failed: string };

/** A server's memory after full collections, in bytes (`process.memoryUsage()`). */
export interface MemoryFigures {
  readonly rss: number;
  readonly heapUsed: number;
  /** What V8 holds for its heap, used or not: RSS that a collection does not give back at once. */
  readonly heapTotal: number;
  /** Memory outside the JS heap that JS objects own (Buffers and the like). */
  readonly external: number;
}

/** Parent → server process. */
export type ServerRequest =
  | { type: 'memory'; id: number }
  /** Answered once at least `atLeast` `hold` tasks wait for `release`. */
  | { type: 'held'; id: number; atLeast: number }
  | { type: 'release'; id: number }
  | { type: 'close' };

/** Server process → parent. */
export type ServerReply =
  | { type: 'ready'; origin: string }
  | { type: 'failed'; reason: string }
  | { type: 'memory'; id: number; memory: MemoryFigures }
  | { type: 'held'; id: number }
  | { type: 'released'; id: number };

// ---------------------------------------------------------------- the agents (./lifecycle.ts)

/** The ceiling's answer to every SendMessage: a fixed Message (ProtoJSON). */
export const FIXED_MESSAGE = { messageId: 'fixed-answer', contextId: 'fixed-context', role: 'ROLE_AGENT', parts: [{ text: answerTo('fixed') }] } as const;

/** The message whose text is `text` (ProtoJSON), with a fresh id. */
function userMessage(text: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

// ---------------------------------------------------------------- requests

export type Binding = 'jsonrpc' | 'rest';

/** One HTTP request of a scenario, and the check of its answer's body. */
export interface WireRequest {
  readonly path: string;
  readonly body: string;
  /** Throws unless `body` (the whole answer: JSON, or SSE for the streaming ones) is the right answer. */
  check(status: number, body: string): void;
}

const rpc = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** SendMessage answered with a Message (the agents' echo, or the ceiling's fixed one). */
export function messageRequest(binding: Binding, seq: number): WireRequest {
  const text = `${MESSAGE_PREFIX}${seq}`;
  const message = userMessage(text);
  const check = (status: number, body: string) => {
    const answer = parseAnswer(status, body);
    const result = (binding === 'jsonrpc' ? rpcResult(answer, seq) : answer) as { message?: { role?: string; parts?: Array<{ text?: string }> } };
    const got = result?.message?.parts?.[0]?.text;
    if (result?.message?.role !== 'ROLE_AGENT' || (got !== answerTo(text) && got !== FIXED_MESSAGE.parts[0].text)) unexpected('a Message', body);
  };
  return binding === 'jsonrpc'
    ? { path: JSON_RPC_PATH, body: rpc(seq, 'SendMessage', { message }), check }
    : { path: `${REST_PATH}/message:send`, body: JSON.stringify({ message }), check };
}

/** Blocking SendMessage (JSON-RPC) answered with the COMPLETED task and its one artifact. */
export function lifecycleRequest(seq: number): WireRequest {
  const text = `task ${seq}`;
  return {
    path: JSON_RPC_PATH,
    body: rpc(seq, 'SendMessage', { message: userMessage(text) }),
    check(status, body) {
      const task = (rpcResult(parseAnswer(status, body), seq) as { task?: WireTask })?.task;
      if (task?.status?.state !== 'TASK_STATE_COMPLETED' || task.artifacts?.length !== 1 || task.artifacts[0].parts?.[0]?.text !== answerTo(text)) unexpected('the COMPLETED task', body);
    },
  };
}

/** SendStreamingMessage (JSON-RPC): exactly 4 events, the task, WORKING, the artifact, COMPLETED. */
export function streamingRequest(seq: number): WireRequest {
  const text = `task ${seq}`;
  return {
    path: JSON_RPC_PATH,
    body: rpc(seq, 'SendStreamingMessage', { message: userMessage(text) }),
    check(status, body) {
      if (status !== 200) unexpected('HTTP 200', body);
      const events = parseSseData(body).map((data) => rpcResult(JSON.parse(data), seq) as StreamResponse);
      const artifact = events.find((e) => e.artifactUpdate)?.artifactUpdate?.artifact?.parts?.[0]?.text;
      if (events.length !== 4 || !events[0].task || artifact !== answerTo(text) || stateOf(events[3]) !== 'TASK_STATE_COMPLETED') {
        unexpected('4 events: the task, WORKING, the artifact, COMPLETED', body);
      }
    },
  };
}

/** Starts a held task (`hold <steps>`, answered at creation); the answer carries its id. */
export function holdRequest(seq: number, steps: number): { path: string; body: string; taskId(status: number, body: string): string } {
  return {
    path: JSON_RPC_PATH,
    body: rpc(seq, 'SendMessage', { message: userMessage(`hold ${steps} ${seq}`), configuration: { returnImmediately: true } }),
    taskId(status, body) {
      const id = (rpcResult(parseAnswer(status, body), seq) as { task?: { id?: string } })?.task?.id;
      if (typeof id !== 'string' || id === '') unexpected('a task', body);
      return id;
    },
  };
}

/** SubscribeToTask (JSON-RPC, SSE) on `taskId`. */
export function subscribeRequest(seq: number, taskId: string): { path: string; body: string } {
  return { path: JSON_RPC_PATH, body: rpc(seq, 'SubscribeToTask', { id: taskId }) };
}

/**
 * What every SubscribeToTask stream on a held task (`hold <steps>`, subscribed before the release)
 * must receive, in this order: the task itself, WORKING; `steps` WORKING updates whose message is
 * `step-<i>`, i = 0, 1, …; COMPLETED; each of task `taskId`, and nothing after.
 *
 * The streams on one task are sent the same events, and a stream's JSON-RPC envelope differs from
 * another's only by its request id: `{"jsonrpc":"2.0","id":<id>,"result":<result>}`. An event in that
 * form has its result's text looked up among those already parsed and checked on this task, and
 * only a text not seen before is parsed: 200 streams of the same 51 events cost 51 parses, not
 * 10,200, for the same verdict (a text that parses on its own makes that envelope valid JSON with
 * the same result). An event in any other form (spaces, another key order) is parsed whole.
 */
export class HeldTaskEvents {
  /** Result texts already checked, and their place in the stream. */
  private readonly places = new Map<string, number>();

  constructor(
    readonly taskId: string,
    readonly steps: number,
  ) {}

  /** The place of the last event, COMPLETED: the task is 0, `step-<i>` is i + 1. */
  get completedPlace(): number {
    return this.steps + 1;
  }

  /** The place of SSE event `data` sent to request `id`; throws unless it is a JSON-RPC result of `id` and one of this task's events. */
  placeOf(data: string, envelope: string, id: number): number {
    if (!data.startsWith(envelope) || !data.endsWith('}')) return this.placeOfResult(rpcResult(JSON.parse(data), id) as StreamResponse, data);
    const text = data.slice(envelope.length, -1);
    let place = this.places.get(text);
    if (place === undefined) {
      place = this.placeOfResult(JSON.parse(text) as StreamResponse, data);
      this.places.set(text, place);
    }
    return place;
  }

  private placeOfResult(event: StreamResponse, data: string): number {
    if (event?.task) {
      if (event.task.id === this.taskId && event.task.status?.state === 'TASK_STATE_WORKING') return 0;
    } else if (event?.statusUpdate?.taskId === this.taskId) {
      const state = event.statusUpdate.status?.state;
      if (state === 'TASK_STATE_COMPLETED') return this.completedPlace;
      const step = /^step-(0|[1-9]\d*)$/.exec(statusTextOf(event) ?? '')?.[1];
      if (state === 'TASK_STATE_WORKING' && step !== undefined && Number(step) < this.steps) return Number(step) + 1;
    }
    return unexpected(`the task ${this.taskId} WORKING, a step of it or its COMPLETED update`, data);
  }
}

/** The start of a JSON-RPC result to request `id` as `JSON.stringify` writes it, up to the result. */
export const rpcResultPrefix = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":`;

// ---------------------------------------------------------------- answers

interface WireTask {
  id?: string;
  status?: { state?: string; message?: { parts?: Array<{ text?: string }> } };
  artifacts?: Array<{ parts?: Array<{ text?: string }> }>;
}

/** One event of a stream (ProtoJSON `StreamResponse`), as far as the checks look. */
export interface StreamResponse {
  task?: WireTask;
  message?: unknown;
  statusUpdate?: { taskId?: string; status?: { state?: string; message?: { parts?: Array<{ text?: string }> } } };
  artifactUpdate?: { artifact?: { parts?: Array<{ text?: string }> } };
}

export const stateOf = (event: StreamResponse | undefined) => event?.statusUpdate?.status?.state ?? event?.task?.status?.state;

/** The text of a status update's message (`step-<i>` for the held tasks' steps). */
export const statusTextOf = (event: StreamResponse) => event.statusUpdate?.status?.message?.parts?.[0]?.text;

function parseAnswer(status: number, body: string): unknown {
  if (status !== 200) unexpected('HTTP 200', `HTTP ${status} ${body}`);
  try {
    return JSON.parse(body);
  } catch {
    return unexpected('JSON', body);
  }
}

/** The `result` of a JSON-RPC answer to request `id`. */
export function rpcResult(answer: unknown, id: number): unknown {
  const envelope = answer as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  if (envelope?.jsonrpc !== '2.0' || envelope.id !== id || envelope.result === undefined) unexpected(`the JSON-RPC result of request ${id}`, JSON.stringify(answer));
  return envelope.result;
}

/** The `data` of every event in a complete SSE body (comments and other fields skipped). */
export function parseSseData(body: string): string[] {
  return body
    .split(/\r?\n\r?\n/)
    .map(frameData)
    .filter((data) => data !== '');
}

/** The `data` of one SSE frame (its `data:` lines joined), '' for a comment or an empty frame. */
export function frameData(frame: string): string {
  return frame
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

function unexpected(what: string, body: string): never {
  throw new Error(`expected ${what}, got ${body.slice(0, 300)}`);
}
