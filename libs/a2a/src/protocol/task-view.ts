/** How a stored task is shown to a caller: `historyLength` and `includeArtifacts` (spec §3.2.4, §3.1.4). */
import type { Task } from './types.js';

export interface TaskViewOptions {
  /** unset: all history; 0: none (the field is omitted); N: the N most recent messages. */
  historyLength?: number;
  /** false: the `artifacts` key is absent (ListTasks without includeArtifacts). */
  includeArtifacts?: boolean;
}

export function taskView(task: Task, options: TaskViewOptions = {}): Task {
  const { history, artifacts } = task;
  // the usual case (a whole task, nothing to leave out or cut) is the task itself: tasks are never changed in place
  const wholeHistory = history === undefined || (history.length > 0 && options.historyLength === undefined);
  const sameArtifacts = artifacts === undefined || (artifacts.length > 0 && options.includeArtifacts !== false);
  if (wholeHistory && sameArtifacts) return task;
  const { history: _history, artifacts: _artifacts, ...rest } = task;
  const view: Task = { ...rest };
  if (history && history.length > 0 && options.historyLength !== 0) {
    view.history = options.historyLength === undefined ? history : history.slice(-options.historyLength);
  }
  if (options.includeArtifacts !== false && artifacts && artifacts.length > 0) view.artifacts = artifacts;
  return view;
}
