/**
 * A conversation as the executor reads it (`ctx.conversation()`): the earlier tasks of its
 * contextId, of the same caller only, read through the store's context index (ListTasks' own).
 */
import type { Artifact, Message, Task, TaskState } from '../protocol/types.js';
import type { TaskScope, TaskStore } from './task-store.js';

/** One earlier task of the conversation. @publicApi */
export interface ConversationTurn {
  readonly taskId: string;
  readonly state: TaskState;
  /** The task's history: the caller's messages and the agent's, oldest first. */
  readonly messages: readonly Message[];
  readonly artifacts: readonly Artifact[];
}

/** @publicApi */
export interface Conversation {
  /**
   * The tasks of this context before the incoming message, oldest first (by their latest status
   * change, as ListTasks orders them): the other tasks, then this task as it stood (a continuation).
   */
  readonly turns: readonly ConversationTurn[];
  /** Earlier tasks the bound left out (older than the first of `turns`). */
  readonly omitted: number;
}

/** @publicApi */
export interface ConversationOptions {
  /** At most this many tasks, the newest ones. Default 20, at most 100. */
  maxTurns?: number;
}

export const DEFAULT_CONVERSATION_TURNS = 20;
export const MAX_CONVERSATION_TURNS = 100;

/** Where a turn stands in its conversation. */
export interface ConversationPlace {
  readonly scope: TaskScope;
  readonly contextId: string;
  readonly taskId: string;
  /** The task as it stood before the incoming message (a continuation). */
  readonly prior: Task | undefined;
}

/**
 * The conversation before `place`'s message. Scoped like every read: another caller's tasks in a
 * context of the same id are not in it.
 */
export async function readConversation(store: Pick<TaskStore, 'list'>, place: ConversationPlace, options: ConversationOptions = {}): Promise<Conversation> {
  const asked = Number.isFinite(options.maxTurns) ? Math.trunc(options.maxTurns!) : DEFAULT_CONVERSATION_TURNS;
  const max = Math.min(MAX_CONVERSATION_TURNS, Math.max(1, asked));
  const room = place.prior ? max - 1 : max;
  // one more than needed: the turn's own task may be among them (stored as soon as it opened)
  const page = await store.list(place.scope, { contextId: place.contextId, pageSize: room + 1 });
  const own = place.prior !== undefined || page.tasks.some((t) => t.id === place.taskId);
  const others = page.tasks.filter((t) => t.id !== place.taskId).slice(0, room);
  const total = page.totalSize - (own ? 1 : 0);
  const tasks = [...others.reverse(), ...(place.prior ? [place.prior] : [])];
  return { turns: tasks.map(turnOf), omitted: Math.max(0, total - others.length) };
}

function turnOf(task: Task): ConversationTurn {
  return { taskId: task.id, state: task.status.state, messages: task.history ?? [], artifacts: task.artifacts ?? [] };
}
