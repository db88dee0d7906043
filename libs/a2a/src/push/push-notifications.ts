/**
 * What the request handler asks of push notifications: the four config operations and the inline
 * config of SendMessage. With push off, every one answers PushNotificationNotSupported.
 */
import { PushNotificationNotSupportedError } from '../protocol/errors.js';
import type { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '../protocol/types.js';
import type { TaskScope } from '../tasks/task-store.js';

/** @publicApi */
export interface PushNotifications {
  /** Push is configured: the card says `capabilities.pushNotifications: true`. */
  readonly enabled: boolean;
  /**
   * Checks a config before anything is stored (the egress policy at registration).
   * @param field where the config's `url` sits in the request, for the error (default `url`)
   * @throws InvalidParamsError naming the reason, the URL's secrets redacted
   */
  validate(config: TaskPushNotificationConfig, field?: string): Promise<void>;
  /**
   * Stores a config of a task of `scope` (an id is assigned when it has none; an existing config
   * with the same id is replaced) and answers it as given, with its id. `protocolVersion`: the A2A
   * version of the request that registered it, which its notifications follow (default 1.0).
   * `newTask`: the task is not stored yet (a new task's inline config, before its first event), so
   * there is nothing of it to read: the config hears it from its first event on.
   */
  create(scope: TaskScope, taskId: string, config: TaskPushNotificationConfig, options?: { protocolVersion?: string; newTask?: boolean }): Promise<TaskPushNotificationConfig>;
  /** The config with its secrets redacted. @throws TaskNotFoundError when there is no such config */
  get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig>;
  list(scope: TaskScope, taskId: string, pageSize: number | undefined, pageToken: string | undefined): Promise<ListTaskPushNotificationConfigsResponse>;
  /** Idempotent. */
  delete(scope: TaskScope, taskId: string, id: string): Promise<void>;
}

/** Injection token of {@link PushNotifications}. @publicApi */
export const PushNotifications = Symbol('A2A:PushNotifications');

/** Push not configured. */
export class DisabledPushNotifications implements PushNotifications {
  readonly enabled = false;

  private refuse(): never {
    throw new PushNotificationNotSupportedError();
  }

  async validate(): Promise<void> {
    this.refuse();
  }
  async create(): Promise<TaskPushNotificationConfig> {
    this.refuse();
  }
  async get(): Promise<TaskPushNotificationConfig> {
    this.refuse();
  }
  async list(): Promise<ListTaskPushNotificationConfigsResponse> {
    this.refuse();
  }
  async delete(): Promise<void> {
    this.refuse();
  }
}
