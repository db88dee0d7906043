/** Where push-notification configs live, scoped like their task. */
import type { TaskScope } from '../tasks/task-store.js';

/**
 * One stored config. `token` and `credentials` are as the store received them: sealed
 * (encrypted) when the module has an encryption key.
 * @publicApi
 */
export interface StoredPushConfig {
  readonly id: string;
  readonly taskId: string;
  readonly url: string;
  readonly token?: string;
  readonly authentication?: { readonly scheme: string; readonly credentials?: string };
  /**
   * The A2A version the config was registered in (`0.3`): its notifications take that version's
   * shape. Absent: 1.0.
   */
  readonly protocolVersion?: string;
  /** When it was stored, in ms since the epoch. */
  readonly createdAt: number;
  /** The task's last event when the config was stored: it hears the events after it. Absent (configs stored by earlier versions): 0. */
  readonly afterSeq?: number;
}

/** What {@link PushConfigStore.put} did. */
export type PushConfigPutResult = 'created' | 'replaced' | 'full';

/**
 * Push configs of tasks. Every method is scoped: a config of another scope (agent, tenant,
 * subject) is never seen, as for tasks.
 * @publicApi
 */
export interface PushConfigStore {
  /**
   * Stores a config, replacing the one with the same id. `full` (nothing stored) when the task
   * already has `maxPerTask` other configs.
   */
  put(scope: TaskScope, config: StoredPushConfig, maxPerTask: number): Promise<PushConfigPutResult>;
  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  /** Every config of the task, by id. */
  list(scope: TaskScope, taskId: string): Promise<StoredPushConfig[]>;
  /** @returns false when there was no such config */
  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean>;
  /** The task has finished: its configs may go after `ttlMs` (the retries of its last notifications need them till then). */
  expire(scope: TaskScope, taskId: string, ttlMs: number): Promise<void>;
}

/** Injection token of the {@link PushConfigStore}. @publicApi */
export const PushConfigStore = Symbol('A2A:PushConfigStore');
