/** The operation table: JSON-RPC method names = gRPC RPC names (spec digest §0.1, §2.2). */
import { describe, expect, it } from '@jest/globals';
import { OPERATIONS, isOperation } from './operations.js';
import * as S from './schemas.js';

describe('OPERATIONS', () => {
  it.each([
    { method: 'SendMessage', request: S.SendMessageRequestSchema, response: S.SendMessageResponseSchema, streaming: false },
    { method: 'SendStreamingMessage', request: S.SendMessageRequestSchema, response: S.StreamResponseSchema, streaming: true },
    { method: 'GetTask', request: S.GetTaskRequestSchema, response: S.TaskSchema, streaming: false },
    { method: 'ListTasks', request: S.ListTasksRequestSchema, response: S.ListTasksResponseSchema, streaming: false },
    { method: 'CancelTask', request: S.CancelTaskRequestSchema, response: S.TaskSchema, streaming: false },
    { method: 'SubscribeToTask', request: S.SubscribeToTaskRequestSchema, response: S.StreamResponseSchema, streaming: true },
    {
      method: 'CreateTaskPushNotificationConfig',
      request: S.TaskPushNotificationConfigSchema,
      response: S.TaskPushNotificationConfigSchema,
      streaming: false,
    },
    {
      method: 'GetTaskPushNotificationConfig',
      request: S.GetTaskPushNotificationConfigRequestSchema,
      response: S.TaskPushNotificationConfigSchema,
      streaming: false,
    },
    {
      method: 'ListTaskPushNotificationConfigs',
      request: S.ListTaskPushNotificationConfigsRequestSchema,
      response: S.ListTaskPushNotificationConfigsResponseSchema,
      streaming: false,
    },
    {
      method: 'DeleteTaskPushNotificationConfig',
      request: S.DeleteTaskPushNotificationConfigRequestSchema,
      response: S.EmptySchema,
      streaming: false,
    },
    { method: 'GetExtendedAgentCard', request: S.GetExtendedAgentCardRequestSchema, response: S.AgentCardSchema, streaming: false },
  ])('$method: streaming $streaming', ({ method, request, response, streaming }) => {
    expect(isOperation(method)).toBe(true);
    const spec = OPERATIONS[method as keyof typeof OPERATIONS];
    expect(spec.request).toBe(request);
    expect(spec.response).toBe(response);
    expect(spec.streaming).toBe(streaming);
  });

  it('has exactly the eleven operations of the digest §0.1', () => {
    expect(Object.keys(OPERATIONS)).toHaveLength(11);
  });

  it.each(['message/send', 'tasks/resubscribe', 'ListTaskPushNotificationConfig', 'getTask', '', 'constructor', 'toString', '__proto__'])(
    'isOperation(%j) is false',
    (name) => {
      expect(isOperation(name)).toBe(false);
    },
  );
});
