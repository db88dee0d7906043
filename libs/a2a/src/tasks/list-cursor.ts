/** The opaque ListTasks page token: the sort key of the last task of the previous page. */
import { InvalidParamsError } from '../protocol/errors.js';
import type { Task } from '../protocol/types.js';

export interface SortKey {
  /** Status timestamp, milliseconds since the epoch. */
  readonly time: number;
  readonly id: string;
}

export function sortKeyOf(task: Task): SortKey {
  return { time: task.status.timestamp ? Date.parse(task.status.timestamp) : 0, id: task.id };
}

/** Newest first; ties broken by id, so the order is total and pages never overlap. */
export function compareNewestFirst(a: SortKey, b: SortKey): number {
  return b.time - a.time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify([key.time, key.id])).toString('base64url');
}

/** @throws InvalidParamsError for a token this server did not issue */
export function decodeCursor(token: string): SortKey {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isFinite(value[0]) && typeof value[1] === 'string') {
      return { time: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw InvalidParamsError.field('pageToken', 'is not a page token issued by this server');
}
