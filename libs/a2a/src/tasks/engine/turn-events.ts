/**
 * The events a turn writes and the texts the module puts in them: pure functions (ids and times are
 * arguments), so every rule about what reaches the log is read here and tested without a clock.
 */
import type { Artifact, Message, StreamResponse, Task, TaskState } from '../../protocol/types.js';

/** Safe status texts: what the wire says when something went wrong inside. */
export const FAILURE_TEXT = {
  threw: 'The agent encountered an internal error.',
  silent: 'The agent ended without a response.',
  unfinished: 'The agent stopped before finishing the task.',
  timeout: 'The agent did not finish in time.',
  shutdown: 'The agent was stopped because the server is shutting down.',
  orphaned: 'The agent instance running this task stopped before finishing it.',
} as const;

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
  return { ...message, taskId, contextId };
}

/**
 * The task a turn opens with, in SUBMITTED: a new task, or `prior` continued, its history ending
 * with the incoming message (and the SUBMITTED status message, when the executor gave one).
 */
export function openingTask(prior: Task | undefined, taskId: string, contextId: string, userMessage: Message, statusMessage: Message | undefined, timestamp: string): Task {
  const status = { state: 'TASK_STATE_SUBMITTED' as const, message: statusMessage, timestamp };
  const base: Task = prior ?? { id: taskId, contextId, status };
  const history = [...(base.history ?? []), userMessage, ...(statusMessage ? [statusMessage] : [])];
  return { ...base, status, history };
}

/** Milliseconds since the epoch as RFC 3339. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
