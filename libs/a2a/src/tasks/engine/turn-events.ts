/**
 * The events a turn writes and the texts the module puts in them: pure functions (ids and times are
 * arguments), so every rule about what reaches the log is read here and tested without a clock.
 */
import { withFields } from '../../protocol/json-value.js';
import type { Artifact, Message, StreamResponse, Task, TaskState } from '../../protocol/types.js';

/**
 * Why a task failed, as the wire tells it: a stable `code` (in the status message's metadata, under
 * `error`) and a safe `text`, never the exception's own message; `step` when a tool step failed.
 */
export interface Failure {
  readonly code: string;
  readonly text: string;
  readonly step?: number;
  readonly steps?: number;
}

/** The failures the module itself writes. */
export const FAILURES = {
  threw: { code: 'INTERNAL', text: 'The agent encountered an internal error.' },
  silent: { code: 'NO_RESPONSE', text: 'The agent ended without a response.' },
  unfinished: { code: 'UNFINISHED', text: 'The agent stopped before finishing the task.' },
  timeout: { code: 'DEADLINE_EXCEEDED', text: 'The agent did not finish in time.' },
  shutdown: { code: 'SHUTTING_DOWN', text: 'The agent was stopped because the server is shutting down.' },
  orphaned: { code: 'INSTANCE_LOST', text: 'The agent instance running this task stopped before finishing it.' },
} as const satisfies Record<string, Failure>;

/** What a declared error code looks like (`TOOL_TIMEOUT`, `ECONNREFUSED`): anything else is not quoted. */
const DECLARED_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/** The stable code an exception declares: its `code` (or an A2A error's `reason`) when it looks like one. */
export function declaredCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, reason } = error as { code?: unknown; reason?: unknown };
  for (const candidate of [code, reason]) if (typeof candidate === 'string' && DECLARED_CODE.test(candidate)) return candidate;
  return undefined;
}

/** The failure an executor's exception makes: its declared code or `INTERNAL`, and which tool step it came from, if one. */
export function thrownFailure(error: unknown, step?: { readonly step: number; readonly steps?: number }): Failure {
  const code = declaredCode(error) ?? FAILURES.threw.code;
  if (step) {
    const of = step.steps === undefined ? '' : ` of ${step.steps}`;
    return { code, text: `Step ${step.step}${of} failed (${code}).`, ...step };
  }
  return code === FAILURES.threw.code ? FAILURES.threw : { code, text: `The agent stopped on an error (${code}).` };
}

/** Where ids and times come from (the engine's `newId` and `now`). */
export interface IdsAndClock {
  readonly newId: () => string;
  readonly now: () => number;
}

/** `taskId` now in `state`, at `timestamp` (RFC 3339). */
export function statusEvent(taskId: string, contextId: string, state: TaskState, message: Message | undefined, timestamp: string): StreamResponse {
  return { statusUpdate: { taskId, contextId, status: { state, message, timestamp } } };
}

/** A status the module sets itself, with its text (if any) as a message of the agent's own. */
export function moduleStatusEvent(taskId: string, contextId: string, state: TaskState, text: string | undefined, { newId, now }: IdsAndClock): StreamResponse {
  const message = text === undefined ? undefined : agentMessage(newId(), taskId, contextId, text);
  return statusEvent(taskId, contextId, state, message, isoTime(now()));
}

/** FAILED, saying why: the safe text, and the code (and step) in the message's metadata. */
export function failureEvent(taskId: string, contextId: string, failure: Failure, { newId, now }: IdsAndClock): StreamResponse {
  const { text, ...error } = failure;
  const message = { ...agentMessage(newId(), taskId, contextId, text), metadata: { error } };
  return statusEvent(taskId, contextId, 'TASK_STATE_FAILED', message, isoTime(now()));
}

/** How the module ends a task itself: FAILED saying why, or (no failure) CANCELED. */
export function endingEvent(taskId: string, contextId: string, failure: Failure | undefined, ids: IdsAndClock): StreamResponse {
  return failure ? failureEvent(taskId, contextId, failure, ids) : moduleStatusEvent(taskId, contextId, 'TASK_STATE_CANCELED', undefined, ids);
}

/** A chunk of an artifact, or a whole one. */
export function artifactEvent(taskId: string, contextId: string, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  return { artifactUpdate: { taskId, contextId, artifact, append: append || undefined, lastChunk: lastChunk || undefined } };
}

/** A message of the agent's own in a task (the text of a status the module sets). */
export function agentMessage(messageId: string, taskId: string, contextId: string, text: string): Message {
  return { messageId, role: 'ROLE_AGENT', parts: [{ text }], contextId, taskId };
}

/** The incoming message as the task stores it: with the ids the server assigned. */
export function userMessageOf(message: Message, taskId: string, contextId: string): Message {
  return withFields(message, { taskId, contextId });
}

/**
 * The task a turn opens with, in SUBMITTED: a new task, or `prior` continued, its history ending
 * with the incoming message (and the SUBMITTED status message, when the executor gave one).
 */
export function openingTask(prior: Task | undefined, taskId: string, contextId: string, userMessage: Message, statusMessage: Message | undefined, timestamp: string): Task {
  const status = { state: 'TASK_STATE_SUBMITTED' as const, message: statusMessage, timestamp };
  const base: Task = prior ?? { id: taskId, contextId, status };
  const history = [...(base.history ?? []), userMessage, ...(statusMessage ? [statusMessage] : [])];
  return withFields(base, { status, history });
}

/** The last time formatted: a busy server stamps many events within one millisecond. */
let lastTime = { ms: Number.NaN, text: '' };

/** Milliseconds since the epoch as RFC 3339. */
export function isoTime(ms: number): string {
  if (ms !== lastTime.ms) lastTime = { ms, text: new Date(ms).toISOString() };
  return lastTime.text;
}
