/**
 * Wiring of the task engine: the options choose the backend (your own `taskBackend`, Redis with
 * `redis`, or memory), and the task manager runs every turn on it. Nothing else branches on it.
 */
import type { Provider } from '@nestjs/common';
import type { ResolvedA2AOptions } from './a2a-options.js';
import { A2A_OPTIONS, A2A_REDIS } from './config/a2a.constants.js';
import type { RedisConnection } from './redis/redis-connection.js';
import { InMemoryTaskBackend } from './tasks/in-memory/in-memory-task-backend.js';
import { RedisTaskBackend } from './tasks/redis/redis-task-backend.js';
import { TaskBackend } from './tasks/task-backend.js';
import { TASK_EVENT_LISTENERS, type TaskEventListener } from './tasks/task-events.js';
import { TaskManager } from './tasks/engine/task-manager.js';
import { ToolCallEvents } from './tasks/tool-call-events.js';

function taskBackendFor(options: ResolvedA2AOptions, redis: RedisConnection | undefined): TaskBackend {
  if (options.taskBackend) return options.taskBackend;
  const { tasks } = options;
  const retention = { ttlMs: tasks.retentionMs, maxTerminalTasks: tasks.maxTerminalTasks, interruptedTtlMs: tasks.interruptedTtlMs };
  const budget = { maxBytes: tasks.maxStoredBytes, maxBytesPerCaller: tasks.maxStoredBytesPerCaller };
  if (redis) return new RedisTaskBackend(redis.client, { keyPrefix: options.redis?.keyPrefix, leaseMs: options.redis?.leaseMs, retention, budget });
  return new InMemoryTaskBackend({ ...retention, budget });
}

export const TASK_PROVIDERS: Provider[] = [
  { provide: TaskBackend, useFactory: taskBackendFor, inject: [A2A_OPTIONS, A2A_REDIS] },
  { provide: ToolCallEvents, useFactory: () => new ToolCallEvents() },
  {
    provide: TaskManager,
    useFactory: (backend: TaskBackend, listeners: TaskEventListener[], toolEvents: ToolCallEvents, options: ResolvedA2AOptions) =>
      new TaskManager(
        { backend, listeners, toolEvents },
        { executorTimeoutMs: options.limits.executorTimeoutMs, maxContextIdLength: options.limits.maxContextIdLength },
      ),
    inject: [TaskBackend, TASK_EVENT_LISTENERS, ToolCallEvents, A2A_OPTIONS],
  },
];
