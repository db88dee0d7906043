import { describe, expect, it } from '@jest/globals';
import {
  A2A_ERROR_CLASSES,
  ContentTypeNotSupportedError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  JsonParseError,
  MethodNotAllowedError,
  MethodNotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  VersionNotSupportedError,
} from '../protocol/errors.js';
import { A2AHttpError, UnknownA2AError } from './client-errors.js';
import { retryAfterMs } from '../net/retry-after.js';
import { errorFacts, errorFromJsonRpc, errorFromRest, errorFromStatus, type HttpFacts } from './error-mapping.js';
import { toV03Error } from '../protocol/v03/errors.js';

const facts = (statusCode = 200, headers: HttpFacts['headers'] = {}): HttpFacts => ({ statusCode, headers, target: 'https://peer.example/a2a' });
const info = (reason: string, domain = 'a2a-protocol.org', metadata?: Record<string, unknown>) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain,
  ...(metadata ? { metadata } : {}),
});

describe('errorFromJsonRpc', () => {
  it.each(A2A_ERROR_CLASSES.map((cls) => [cls.name, cls] as const))('%s: by code, and by reason under another code', (_name, cls) => {
    const byCode = errorFromJsonRpc({ code: cls.spec.jsonRpcCode, message: 'peer words' }, facts());
    expect(byCode).toBeInstanceOf(cls);
    expect(byCode.message).toBe('peer words');
    expect(errorFromJsonRpc({ code: -32099, message: 'x', data: [info(cls.spec.reason!)] }, facts())).toBeInstanceOf(cls);
  });

  it.each([
    [-32700, JsonParseError],
    [-32600, InvalidRequestError],
    [-32601, MethodNotFoundError],
    [-32602, InvalidParamsError],
    [-32603, InternalError],
  ] as const)('generic code %i → %p', (code, cls) => {
    expect(errorFromJsonRpc({ code, message: 'm' }, facts())).toBeInstanceOf(cls);
  });

  it('keeps BadRequest violations and the peer message of InvalidParams', () => {
    const error = errorFromJsonRpc(
      {
        code: -32602,
        message: 'Invalid parameters',
        data: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.parts', description: 'At least one part is required' }] }],
      },
      facts(),
    ) as InvalidParamsError;
    expect(error.message).toBe('Invalid parameters');
    expect(error.fieldViolations).toEqual([{ field: 'message.parts', description: 'At least one part is required' }]);
  });

  it.each([
    ['an array with ErrorInfo', [info('TASK_NOT_FOUND', 'a2a-protocol.org', { taskId: 't-1', count: 3 })]],
    ['a 0.3-style object', { taskId: 't-1' }],
    ['nothing', undefined],
    ['a string', 'free text'],
  ])('tolerates data as %s', (_what, data) => {
    const error = errorFromJsonRpc({ code: -32001, message: 'Task not found', data }, facts());
    expect(error).toBeInstanceOf(TaskNotFoundError);
    if (Array.isArray(data)) expect(error.metadata).toEqual({ taskId: 't-1' }); // non-string metadata values are dropped
  });

  it('-32000 is read by reason (this library) or by HTTP status', () => {
    expect(errorFromJsonRpc({ code: -32000, message: 'm', data: [info('RESOURCE_EXHAUSTED', 'nestjs-a2a')] }, facts())).toBeInstanceOf(ResourceExhaustedError);
    expect(errorFromJsonRpc({ code: -32000, message: 'm' }, facts(503))).toBeInstanceOf(UnavailableError);
  });

  it('HTTP 401/403 win over the body, with the challenge kept', () => {
    const error = errorFromJsonRpc({ code: -32000, message: 'who?' }, facts(401, { 'www-authenticate': 'Bearer realm="a2a"' }));
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error.message).toBe('who?');
    expect(error.metadata.wwwAuthenticate).toBe('Bearer realm="a2a"');
    expect(errorFromJsonRpc({ code: -32001, message: 'x' }, facts(403))).toBeInstanceOf(PermissionDeniedError);
  });

  it('an unknown code keeps what the wire said', () => {
    const error = errorFromJsonRpc({ code: -32050, message: 'custom', data: [info('MY_REASON', 'example.com')] }, facts());
    expect(error).toBeInstanceOf(UnknownA2AError);
    expect(error).toMatchObject({ jsonRpcCode: -32050, reason: 'MY_REASON', domain: 'example.com', message: 'custom' });
  });

  it('a broken error object still becomes an error', () => {
    expect(errorFromJsonRpc('nonsense', facts())).toBeInstanceOf(UnknownA2AError);
    expect(errorFromJsonRpc({ code: 'x' }, facts()).message).toContain('JSON-RPC error (no code)');
  });
});

describe('errorFromRest', () => {
  const body = (code: number, status: string, details: unknown[] = [], message = 'peer words') => ({ error: { code, status, message, details } });

  it.each(A2A_ERROR_CLASSES.map((cls) => [cls.name, cls] as const))('%s by its ErrorInfo reason', (_name, cls) => {
    const error = errorFromRest(body(cls.spec.httpStatus, cls.spec.grpcStatus, [info(cls.spec.reason!)]), facts(cls.spec.httpStatus));
    expect(error).toBeInstanceOf(cls);
    expect(error!.message).toBe('peer words');
  });

  it('the reason decides between errors sharing HTTP 400', () => {
    expect(errorFromRest(body(400, 'FAILED_PRECONDITION', [info('TASK_NOT_CANCELABLE')]), facts(400))).toBeInstanceOf(TaskNotCancelableError);
    expect(errorFromRest(body(400, 'FAILED_PRECONDITION', [info('VERSION_NOT_SUPPORTED')]), facts(400))).toBeInstanceOf(VersionNotSupportedError);
    expect(errorFromRest(body(400, 'INVALID_ARGUMENT', [info('CONTENT_TYPE_NOT_SUPPORTED')]), facts(400))).toBeInstanceOf(ContentTypeNotSupportedError);
  });

  it.each([
    [400, 'INVALID_ARGUMENT', InvalidParamsError],
    [404, 'NOT_FOUND', MethodNotFoundError],
    [405, 'UNIMPLEMENTED', MethodNotAllowedError],
    [415, 'INVALID_ARGUMENT', UnsupportedMediaTypeError],
    [429, 'RESOURCE_EXHAUSTED', ResourceExhaustedError],
    [500, 'INTERNAL', InternalError],
    [503, 'UNAVAILABLE', UnavailableError],
    [401, 'UNAUTHENTICATED', UnauthenticatedError],
    [403, 'PERMISSION_DENIED', PermissionDeniedError],
  ] as const)('without a reason, HTTP %i (%s) → %p', (status, grpc, cls) => {
    expect(errorFromRest(body(status, grpc), facts(status))).toBeInstanceOf(cls);
  });

  it('an unknown 4xx keeps its status', () => {
    const error = errorFromRest(body(409, 'ABORTED'), facts(409));
    expect(error).toBeInstanceOf(UnknownA2AError);
    expect(error).toMatchObject({ httpStatus: 409, grpcStatus: 'FAILED_PRECONDITION' });
  });

  it('a mid-stream error (HTTP 200) takes its status from error.code', () => {
    expect(errorFromRest(body(404, 'NOT_FOUND', [info('TASK_NOT_FOUND')]), facts(200))).toBeInstanceOf(TaskNotFoundError);
    expect(errorFromRest(body(500, 'INTERNAL'), facts(200))).toBeInstanceOf(InternalError);
  });

  it('is undefined for a body that is not an error body', () => {
    expect(errorFromRest({ message: 'x' }, facts(500))).toBeUndefined();
    expect(errorFromRest(undefined, facts(500))).toBeUndefined();
  });
});

describe('errorFromStatus', () => {
  it('types 401/403; anything else is an A2AHttpError; a redirect names its redacted target', () => {
    expect(errorFromStatus(facts(401))).toBeInstanceOf(UnauthenticatedError);
    expect(errorFromStatus(facts(403))).toBeInstanceOf(PermissionDeniedError);
    const gateway = errorFromStatus(facts(502));
    expect(gateway).toBeInstanceOf(A2AHttpError);
    expect((gateway as A2AHttpError).statusCode).toBe(502);
    const redirect = errorFromStatus(facts(302, { location: 'https://evil.example/x?token=SECRET' }));
    expect(redirect.message).toBe('https://peer.example/a2a: answered with a redirect, HTTP 302 to https://evil.example/x?token=REDACTED; redirects are not followed');
  });

  it('remembers the status and Retry-After for the retry policy', () => {
    const error = errorFromStatus(facts(503, { 'retry-after': '2' }));
    expect(errorFacts(error)).toEqual({ statusCode: 503, retryAfterMs: 2000 });
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['soon', undefined],
    ['1.5', undefined], // not a date, though V8's Date.parse reads one
    [undefined, undefined],
  ])('%p → %p', (value, expected) => {
    expect(retryAfterMs(value, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected);
  });
});

describe('errors on the 0.3 wire (protocol/v03 toV03Error) read back into the same class', () => {
  it.each([
    ...A2A_ERROR_CLASSES.map((cls) => [cls.name, new cls('the peer says', { detail: 'x' })] as const),
    ['InvalidParamsError', new InvalidParamsError([{ field: 'message.parts', description: 'is required and must not be empty' }])] as const,
    ['UnauthenticatedError (HTTP 401)', new UnauthenticatedError()] as const,
  ])('%s', (_name, error) => {
    const read = errorFromJsonRpc(toV03Error(error), facts(error.httpStatus === 401 ? 401 : 200));
    expect(read).toBeInstanceOf(error.constructor);
    expect(read.message).toBe(error.message);
    expect(read.metadata).toEqual(error.metadata);
    expect(read.fieldViolations).toEqual(error.fieldViolations);
  });
});
