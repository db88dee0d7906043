/** The error taxonomy against the spec digest §3.1 (1.0.1 columns), §2.2 and §2.3.4. */
import { describe, expect, it } from '@jest/globals';
import {
  A2A_ERROR_CLASSES,
  echoed,
  A2AError,
  BAD_REQUEST_TYPE,
  ContentTypeNotSupportedError,
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  GRPC_CODES,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  MethodNotAllowedError,
  MethodNotFoundError,
  PayloadTooLargeError,
  PushNotificationNotSupportedError,
  ResourceExhaustedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedMediaTypeError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  toA2AError,
  type GrpcStatus,
} from './errors.js';
import { jsonRpcError } from './jsonrpc.js';

type ErrorClass = new (message?: string, metadata?: Record<string, string>) => A2AError;

/** Digest §3.1: A2A error | JSON-RPC code | ErrorInfo reason | gRPC status [1.0.1] | HTTP [1.0.1]. */
interface A2AErrorRow {
  name: string;
  ErrorClass: ErrorClass;
  code: number;
  reason: string;
  grpc: GrpcStatus;
  http: number;
}
const A2A_ERRORS: A2AErrorRow[] = [
  { name: 'TaskNotFoundError', ErrorClass: TaskNotFoundError, code: -32001, reason: 'TASK_NOT_FOUND', grpc: 'NOT_FOUND', http: 404 },
  { name: 'TaskNotCancelableError', ErrorClass: TaskNotCancelableError, code: -32002, reason: 'TASK_NOT_CANCELABLE', grpc: 'FAILED_PRECONDITION', http: 400 },
  { name: 'PushNotificationNotSupportedError', ErrorClass: PushNotificationNotSupportedError, code: -32003, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', grpc: 'FAILED_PRECONDITION', http: 400 },
  { name: 'UnsupportedOperationError', ErrorClass: UnsupportedOperationError, code: -32004, reason: 'UNSUPPORTED_OPERATION', grpc: 'FAILED_PRECONDITION', http: 400 },
  { name: 'ContentTypeNotSupportedError', ErrorClass: ContentTypeNotSupportedError, code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED', grpc: 'INVALID_ARGUMENT', http: 400 },
  { name: 'InvalidAgentResponseError', ErrorClass: InvalidAgentResponseError, code: -32006, reason: 'INVALID_AGENT_RESPONSE', grpc: 'INTERNAL', http: 500 },
  { name: 'ExtendedAgentCardNotConfiguredError', ErrorClass: ExtendedAgentCardNotConfiguredError, code: -32007, reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', grpc: 'FAILED_PRECONDITION', http: 400 },
  { name: 'ExtensionSupportRequiredError', ErrorClass: ExtensionSupportRequiredError, code: -32008, reason: 'EXTENSION_SUPPORT_REQUIRED', grpc: 'FAILED_PRECONDITION', http: 400 },
  { name: 'VersionNotSupportedError', ErrorClass: VersionNotSupportedError, code: -32009, reason: 'VERSION_NOT_SUPPORTED', grpc: 'FAILED_PRECONDITION', http: 400 },
];

/** Digest §2.2 standard JSON-RPC errors (code, spec message) and §3.2 generic categories. */
interface GenericErrorRow {
  name: string;
  ErrorClass: ErrorClass;
  code: number;
  message: string;
  grpc: GrpcStatus;
  http: number;
}
const GENERIC_ERRORS: GenericErrorRow[] = [
  { name: 'JsonParseError', ErrorClass: JsonParseError, code: -32700, message: 'Invalid JSON payload', grpc: 'INVALID_ARGUMENT', http: 400 },
  { name: 'InvalidRequestError', ErrorClass: InvalidRequestError, code: -32600, message: 'Request payload validation error', grpc: 'INVALID_ARGUMENT', http: 400 },
  { name: 'MethodNotFoundError', ErrorClass: MethodNotFoundError, code: -32601, message: 'Method not found', grpc: 'NOT_FOUND', http: 404 },
  { name: 'InternalError', ErrorClass: InternalError, code: -32603, message: 'Internal error', grpc: 'INTERNAL', http: 500 },
];

describe('A2A-specific errors (digest §3.1, 1.0.1 columns)', () => {
  it.each(A2A_ERRORS)('$name: $code / $reason / $grpc / HTTP $http', ({ name, ErrorClass, code, reason, grpc, http }) => {
    const error = new ErrorClass();
    expect(error).toBeInstanceOf(A2AError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.jsonRpcCode).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.grpcStatus).toBe(grpc);
    expect(error.httpStatus).toBe(http);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it.each(A2A_ERRORS)('$name always carries an ErrorInfo in JSON-RPC data and REST details', ({ ErrorClass, code, reason, grpc, http }) => {
    const error = new ErrorClass('custom message');
    const info = { '@type': ERROR_INFO_TYPE, reason, domain: 'a2a-protocol.org' };
    expect(error.toJsonRpc()).toEqual({ code, message: 'custom message', data: [info] });
    expect(error.toRest()).toEqual({ error: { code: http, status: grpc, message: 'custom message', details: [info] } });
  });

  it('reason is the class name in UPPER_SNAKE_CASE without "Error" (digest §2.3.4 rule)', () => {
    for (const { name, reason } of A2A_ERRORS) {
      const expected = name
        .replace(/Error$/, '')
        .replace(/([a-z])([A-Z])/g, '$1_$2')
        .toUpperCase();
      expect(reason).toBe(expected);
    }
  });

  it('A2A_ERROR_CLASSES lists exactly the nine A2A errors, -32001 … -32009 in order', () => {
    expect(A2A_ERROR_CLASSES.map((C) => new C().jsonRpcCode)).toEqual([-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);
    expect([...A2A_ERROR_CLASSES]).toEqual(A2A_ERRORS.map((row) => row.ErrorClass));
  });

  it('the domain is a2a-protocol.org and the @type names are the google.rpc ones', () => {
    expect(ERROR_DOMAIN).toBe('a2a-protocol.org');
    expect(ERROR_INFO_TYPE).toBe('type.googleapis.com/google.rpc.ErrorInfo');
    expect(BAD_REQUEST_TYPE).toBe('type.googleapis.com/google.rpc.BadRequest');
  });
});

describe('generic errors (digest §2.2 standard JSON-RPC errors, §3.2 categories)', () => {
  it.each(GENERIC_ERRORS)('$name: $code "$message" / $grpc / HTTP $http, without ErrorInfo', ({ name, ErrorClass, code, message, grpc, http }) => {
    const error = new ErrorClass();
    expect(error.name).toBe(name);
    expect(error.reason).toBeUndefined();
    expect(error.toJsonRpc()).toEqual({ code, message });
    expect(error.toRest()).toEqual({ error: { code: http, status: grpc, message, details: [] } });
  });

  it.each<{ name: string; ErrorClass: ErrorClass; code: number; http: number; grpc: GrpcStatus }>([
    { name: 'UnsupportedMediaTypeError', ErrorClass: UnsupportedMediaTypeError, code: -32005, http: 415, grpc: 'INVALID_ARGUMENT' },
    { name: 'PayloadTooLargeError', ErrorClass: PayloadTooLargeError, code: -32600, http: 413, grpc: 'INVALID_ARGUMENT' },
    { name: 'MethodNotAllowedError', ErrorClass: MethodNotAllowedError, code: -32601, http: 405, grpc: 'UNIMPLEMENTED' },
    { name: 'ResourceExhaustedError', ErrorClass: ResourceExhaustedError, code: -32000, http: 429, grpc: 'RESOURCE_EXHAUSTED' },
  ])('$name: $code / HTTP $http / $grpc', ({ name, ErrorClass, code, http, grpc }) => {
    const error = new ErrorClass();
    expect(error.name).toBe(name);
    expect(error.jsonRpcCode).toBe(code);
    expect(error.httpStatus).toBe(http);
    expect(error.grpcStatus).toBe(grpc);
  });

  it('metadata of an error without a reason stays on the object, not on the wire', () => {
    const error = new MethodNotAllowedError('use POST', { allow: 'POST' });
    expect(error.metadata).toEqual({ allow: 'POST' });
    expect(error.toJsonRpc()).toEqual({ code: -32601, message: 'use POST' });
    expect(error.toRest().error.details).toEqual([]);
  });

  it.each(Object.entries({
    INVALID_ARGUMENT: 3,
    DEADLINE_EXCEEDED: 4,
    NOT_FOUND: 5,
    PERMISSION_DENIED: 7,
    RESOURCE_EXHAUSTED: 8,
    FAILED_PRECONDITION: 9,
    UNIMPLEMENTED: 12,
    INTERNAL: 13,
    UNAVAILABLE: 14,
    UNAUTHENTICATED: 16,
  }))('google.rpc.Code %s = %i', (status, code) => {
    expect(GRPC_CODES[status as GrpcStatus]).toBe(code);
  });
});

describe('wire shapes exactly as the digest examples', () => {
  it('JSON-RPC TaskNotFoundError (§2.2)', () => {
    const expected =
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found","data":[' +
      '{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org",' +
      '"metadata":{"taskId":"nonexistent-task-id","timestamp":"2025-11-09T10:30:00.000Z"}}]}}';
    const error = new TaskNotFoundError(undefined, { taskId: 'nonexistent-task-id', timestamp: '2025-11-09T10:30:00.000Z' });
    expect(error.message).toBe('Task not found');
    expect(jsonRpcError(2, error)).toEqual(JSON.parse(expected));
    expect(JSON.stringify(jsonRpcError(2, error))).toBe(expected);
  });

  it('JSON-RPC InvalidParams with google.rpc.BadRequest (§2.2)', () => {
    const example = JSON.parse(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid parameters","data":[' +
        '{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.parts","description":"At least one part is required"}]}]}}',
    ) as { error: { data: unknown } };
    const wire = jsonRpcError(1, InvalidParamsError.field('message.parts', 'At least one part is required'));
    expect(wire).toEqual({
      jsonrpc: '2.0',
      id: 1,
      // the message names the violations after the standard text (human-readable, spec gives no fixed text)
      error: { code: -32602, message: expect.stringMatching(/^Invalid parameters/), data: example.error.data },
    });
    expect(wire.error.message).toContain('message.parts');
  });

  it('REST TaskNotFoundError (§2.3.4)', () => {
    const expected =
      '{"error":{"code":404,"status":"NOT_FOUND","message":"The specified task ID does not exist or is not accessible",' +
      '"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org",' +
      '"metadata":{"taskId":"task-123","timestamp":"2025-11-09T10:30:00.000Z"}}]}}';
    const error = new TaskNotFoundError('The specified task ID does not exist or is not accessible', {
      taskId: 'task-123',
      timestamp: '2025-11-09T10:30:00.000Z',
    });
    expect(error.toRest()).toEqual(JSON.parse(expected));
    expect(JSON.stringify(error.toRest())).toBe(expected);
  });

  it('REST InvalidParams: 400 INVALID_ARGUMENT with BadRequest details', () => {
    const error = new InvalidParamsError([
      { field: 'historyLength', description: 'must be at least 0' },
      { field: 'pageSize', description: 'must be at most 100' },
    ]);
    expect(error.toRest()).toEqual({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'Invalid parameters: historyLength: must be at least 0; pageSize: must be at most 100',
        details: [
          {
            '@type': BAD_REQUEST_TYPE,
            fieldViolations: [
              { field: 'historyLength', description: 'must be at least 0' },
              { field: 'pageSize', description: 'must be at most 100' },
            ],
          },
        ],
      },
    });
  });

  it('ErrorInfo has no metadata key when there is no metadata', () => {
    expect(new VersionNotSupportedError().details()).toEqual([{ '@type': ERROR_INFO_TYPE, reason: 'VERSION_NOT_SUPPORTED', domain: ERROR_DOMAIN }]);
  });
});

describe('InvalidParamsError', () => {
  it.each([
    { violations: [], message: 'Invalid parameters', data: undefined },
    {
      violations: [{ field: 'message.messageId', description: 'is required' }],
      message: 'Invalid parameters: message.messageId: is required',
      data: [{ '@type': BAD_REQUEST_TYPE, fieldViolations: [{ field: 'message.messageId', description: 'is required' }] }],
    },
  ])('with $violations.length violation(s)', ({ violations, message, data }) => {
    const error = new InvalidParamsError(violations);
    expect(error.jsonRpcCode).toBe(-32602);
    expect(error.httpStatus).toBe(400);
    expect(error.grpcStatus).toBe('INVALID_ARGUMENT');
    expect(error.reason).toBeUndefined();
    expect(error.fieldViolations).toEqual(violations);
    expect(error.toJsonRpc()).toEqual(data ? { code: -32602, message, data } : { code: -32602, message });
  });

  it('InvalidParamsError.field builds one violation', () => {
    const error = InvalidParamsError.field('id', 'is not valid percent-encoding');
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(error.fieldViolations).toEqual([{ field: 'id', description: 'is not valid percent-encoding' }]);
  });
});

describe('toA2AError', () => {
  it.each([
    { name: 'a plain Error', value: new Error('connect ECONNREFUSED 10.0.0.5:6379 password=hunter2') },
    { name: 'a TypeError', value: new TypeError("Cannot read properties of undefined (reading 'secret')") },
    { name: 'a thrown string', value: 'db password hunter2' },
    { name: 'undefined', value: undefined },
    { name: 'an object with code/message', value: { code: -32001, message: 'Task not found' } },
  ])('$name becomes an InternalError with the fixed message', ({ value }) => {
    const error = toA2AError(value);
    expect(error).toBeInstanceOf(InternalError);
    expect(error.message).toBe('Internal error');
    expect(error.toJsonRpc()).toEqual({ code: -32603, message: 'Internal error' });
    expect(error.toRest()).toEqual({ error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] } });
    expect(JSON.stringify([error.toJsonRpc(), error.toRest()])).not.toMatch(/hunter2|ECONNREFUSED|secret/);
  });

  it.each([
    new TaskNotFoundError(),
    new InvalidParamsError([{ field: 'x', description: 'y' }]),
    new MethodNotFoundError(),
    new InternalError(),
  ])('passes an A2AError through unchanged (%p)', (error) => {
    expect(toA2AError(error)).toBe(error);
  });
});

describe('what an error may echo', () => {
  it('echoed() quotes at most 128 characters of a caller\'s value', () => {
    expect(echoed('short')).toBe('short');
    expect(echoed('a'.repeat(129))).toBe(`${'a'.repeat(128)}…`);
  });

  it('bounds the message, metadata and violations of any error, whatever the thrower quoted', () => {
    const huge = 'h'.repeat(5 * 1024 * 1024);
    const error = new TaskNotFoundError(`Task ${huge} not found`, { taskId: huge });
    expect(error.message.length).toBeLessThanOrEqual(2049);
    expect(error.metadata.taskId.length).toBeLessThanOrEqual(1025);
    expect(JSON.stringify(error.toJsonRpc()).length).toBeLessThan(4096);
    const invalid = new InvalidParamsError([{ field: huge, description: huge }]);
    expect(JSON.stringify(invalid.toRest()).length).toBeLessThan(8192);
  });
});
