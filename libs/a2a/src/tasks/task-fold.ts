/** The task snapshot as a fold of its event log: one rule per event kind. */
import { withFields } from '../protocol/json-value.js';
import type { Artifact, Part, StreamResponse, Task } from '../protocol/types.js';

/** `task` events replace the snapshot; status and artifact updates change it. */
export function applyEvent(task: Task | undefined, event: StreamResponse): Task | undefined {
  if ('task' in event) return event.task;
  if (!task) return undefined;
  if ('statusUpdate' in event) {
    const status = event.statusUpdate.status;
    const message = status.message;
    const known = message && task.history?.some((m) => m.messageId === message.messageId);
    return { ...task, status, history: message && !known ? [...(task.history ?? []), message] : task.history };
  }
  if ('artifactUpdate' in event) {
    const { artifact, append } = event.artifactUpdate;
    return withFields(task, { artifacts: mergeArtifact(task.artifacts ?? [], artifact, append === true) });
  }
  return task;
}

function mergeArtifact(artifacts: Artifact[], update: Artifact, append: boolean): Artifact[] {
  const index = artifacts.findIndex((a) => a.artifactId === update.artifactId);
  if (index < 0) return [...artifacts, update];
  const next = [...artifacts];
  next[index] = append ? { ...artifacts[index], parts: [...artifacts[index].parts, ...update.parts.filter(hasContent)] } : update;
  return next;
}

/** The empty text part that only closes a streamed artifact (`lastChunk`) adds nothing to it. */
function hasContent(part: Part): boolean {
  return part.text !== '';
}
