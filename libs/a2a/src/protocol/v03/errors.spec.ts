/** 1.0 errors on the 0.3 wire: the same codes, ErrorInfo and field violations in a free-form `data`. */
import { describe, expect, it } from '@jest/globals';
import type * as Sdk from 'a2a-sdk-v03';
import * as E from '../errors.js';
import { toV03Error, v03RestErrorStatus } from './errors.js';

describe('toV03Error', () => {
  it.each<[string, E.A2AError, number, number]>([
    ['TaskNotFound', new E.TaskNotFoundError(), -32001, 404],
    ['TaskNotCancelable (409, as a2a-js 0.3 answers it)', new E.TaskNotCancelableError(), -32002, 409],
    ['PushNotificationNotSupported', new E.PushNotificationNotSupportedError(), -32003, 400],
    ['UnsupportedOperation', new E.UnsupportedOperationError(), -32004, 400],
    ['ContentTypeNotSupported', new E.ContentTypeNotSupportedError(), -32005, 400],
    ['InvalidAgentResponse', new E.InvalidAgentResponseError(), -32006, 500],
    ['ExtendedAgentCardNotConfigured (0.3: AuthenticatedExtendedCardNotConfigured)', new E.ExtendedAgentCardNotConfiguredError(), -32007, 400],
    ['ExtensionSupportRequired: 1.0 only, kept in the server range', new E.ExtensionSupportRequiredError('needs urn:x', { extensions: 'urn:x' }), -32008, 400],
    ['VersionNotSupported: 1.0 only, kept in the server range', new E.VersionNotSupportedError('speaks 1.0', { supportedVersions: '1.0' }), -32009, 400],
    ['JSON parse', new E.JsonParseError(), -32700, 400],
    ['invalid request', new E.InvalidRequestError(), -32600, 400],
    ['method not found', new E.MethodNotFoundError(), -32601, 404],
    ['internal', new E.InternalError(), -32603, 500],
    ['unauthenticated (this library, -32000)', new E.UnauthenticatedError(), -32000, 401],
  ])('%s', (_what, error, code, status) => {
    const v03 = toV03Error(error);
    expect(v03.code).toBe(code);
    expect(v03.message).toBe(error.message);
    expect(v03RestErrorStatus(error)).toBe(status);
    if (error.reason === undefined) expect(v03).not.toHaveProperty('data');
    else expect(v03.data).toEqual({ reason: error.reason, domain: error.domain, ...(Object.keys(error.metadata).length > 0 ? { metadata: error.metadata } : {}) });
    const sdk: Sdk.JSONRPCError = v03;
    expect(sdk.code).toBe(code);
  });

  it('invalid params list their field violations', () => {
    const error = new E.InvalidParamsError([{ field: 'message.parts', description: 'is required and must not be empty' }]);
    expect(toV03Error(error)).toEqual({ code: -32602, message: error.message, data: { fieldViolations: [{ field: 'message.parts', description: 'is required and must not be empty' }] } });
  });
});
