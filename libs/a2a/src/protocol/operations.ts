/**
 * The eleven A2A operations, with the schemas of their request and response. JSON-RPC method
 * names are the operation names (spec §9.1), so this is also the JSON-RPC method table.
 */
import type { Schema } from './codec.js';
import * as S from './schemas.js';

export interface OperationSpec {
  readonly request: Schema;
  /** Schema of the result; for streaming operations, of each event. */
  readonly response: Schema;
  readonly streaming: boolean;
}

export const OPERATIONS = {
  SendMessage: { request: S.SendMessageRequestSchema, response: S.SendMessageResponseSchema, streaming: false },
  SendStreamingMessage: { request: S.SendMessageRequestSchema, response: S.StreamResponseSchema, streaming: true },
  GetTask: { request: S.GetTaskRequestSchema, response: S.TaskSchema, streaming: false },
  ListTasks: { request: S.ListTasksRequestSchema, response: S.ListTasksResponseSchema, streaming: false },
  CancelTask: { request: S.CancelTaskRequestSchema, response: S.TaskSchema, streaming: false },
  SubscribeToTask: { request: S.SubscribeToTaskRequestSchema, response: S.StreamResponseSchema, streaming: true },
  CreateTaskPushNotificationConfig: {
    request: S.TaskPushNotificationConfigSchema,
    response: S.TaskPushNotificationConfigSchema,
    streaming: false,
  },
  GetTaskPushNotificationConfig: {
    request: S.GetTaskPushNotificationConfigRequestSchema,
    response: S.TaskPushNotificationConfigSchema,
    streaming: false,
  },
  ListTaskPushNotificationConfigs: {
    request: S.ListTaskPushNotificationConfigsRequestSchema,
    response: S.ListTaskPushNotificationConfigsResponseSchema,
    streaming: false,
  },
  DeleteTaskPushNotificationConfig: {
    request: S.DeleteTaskPushNotificationConfigRequestSchema,
    response: S.EmptySchema,
    streaming: false,
  },
  GetExtendedAgentCard: { request: S.GetExtendedAgentCardRequestSchema, response: S.AgentCardSchema, streaming: false },
} as const satisfies Record<string, OperationSpec>;

/** @publicApi */
export type A2AOperation = keyof typeof OPERATIONS;

export function isOperation(name: string): name is A2AOperation {
  return Object.hasOwn(OPERATIONS, name);
}
