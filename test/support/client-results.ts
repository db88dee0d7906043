/** What the A2AClient specs read out of answers and streams, and how their scripted peers answer. */
import type { ServerResponse } from 'node:http';
import type { StreamResponse, Task } from 'nestjs-a2a';

/** A compact, order-preserving description of a stream event, e.g. `task:TASK_STATE_WORKING`, `artifact:echo: hi`. */
export function describeEvent(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('message' in event) return `message:${event.message.parts.map((p) => p.text).join('')}`;
  if ('statusUpdate' in event) return `status:${event.statusUpdate.status.state}`;
  return `artifact:${event.artifactUpdate.artifact.parts.map((p) => p.text).join('')}`;
}

/** The task of a SendMessage answer; throws when the answer is a message. */
export function taskOf(result: { task: Task } | { message: unknown }): Task {
  if (!('task' in result)) throw new Error(`expected a task: ${JSON.stringify(result)}`);
  return result.task;
}

/** A scripted peer's JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Every message of an error and its causes, joined by ` | `. */
export function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) out.push(String(e.message ?? e));
  return out.join(' | ');
}
