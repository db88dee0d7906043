/**
 * The ProtoJSON codec, driven through the real message schemas. Tables are fed with the JSON
 * examples of the spec digest (§1.1 rules, §1.2 shapes, §1.3 field tables).
 */
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_DECODE_LIMITS, MAX_VIOLATIONS, decode, encode, schema, union, type DecodeLimits, type Schema } from './codec.js';
import { BAD_REQUEST_TYPE, InvalidParamsError, type FieldViolation } from './errors.js';
import * as S from './schemas.js';
import { thrown } from '../testing/thrown.js';


/** The violations `decode` reports; fails the test when it does not throw InvalidParamsError. */
function violations(schema: Schema, input: unknown, path?: string): FieldViolation[] {
  const error = thrown(() => decode(schema, input, path));
  expect(error).toBeInstanceOf(InvalidParamsError);
  return (error as InvalidParamsError).fieldViolations;
}

/** The violations `run` throws, as InvalidParamsError. */
function thrownViolations(run: () => unknown): FieldViolation[] {
  const error = thrown(run);
  expect(error).toBeInstanceOf(InvalidParamsError);
  return (error as InvalidParamsError).fieldViolations;
}

function fields(schema: Schema, input: unknown, path?: string): string[] {
  return violations(schema, input, path).map((v) => v.field);
}

const userMessage = (extra: Record<string, unknown> = {}) => ({
  messageId: 'm1',
  role: 'ROLE_USER',
  parts: [{ text: 'Book a flight' }],
  ...extra,
});

// ---- spec digest §1.2 examples ----

const MESSAGE_EXAMPLE = {
  messageId: '9f1c…',
  role: 'ROLE_USER',
  parts: [{ text: 'Book a flight' }],
  contextId: 'ctx-1',
  taskId: 'task-1',
  referenceTaskIds: ['task-0'],
  extensions: ['https://example.com/ext/geo/v1'],
  metadata: { 'https://example.com/ext/geo/v1': { lat: 1.0 } },
};

const TASK_EXAMPLE = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: {
    state: 'TASK_STATE_INPUT_REQUIRED',
    timestamp: '2026-03-12T10:00:00.000Z',
    message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'From where?' }], contextId: 'ctx-1', taskId: 'task-1' },
  },
  artifacts: [{ artifactId: 'a1', name: 'Report', parts: [{ text: '…' }] }],
  history: [MESSAGE_EXAMPLE],
  metadata: {},
};

const PART_EXAMPLES = [
  { text: 'Hello', mediaType: 'text/plain' },
  // the digest abbreviates the bytes as "iVBORw0KGgo..."; this is the full 8-byte PNG signature
  { raw: 'iVBORw0KGgo=', filename: 'in.png', mediaType: 'image/png' },
  { url: 'https://storage.example.com/out.png', filename: 'out.png', mediaType: 'image/png' },
  { data: { ticket: 'REQ-1' }, mediaType: 'application/json' },
];

const STREAM_RESPONSE_EXAMPLES = [
  { task: TASK_EXAMPLE },
  { message: MESSAGE_EXAMPLE },
  { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } },
  {
    artifactUpdate: {
      taskId: 'task-1',
      contextId: 'ctx-1',
      artifact: { artifactId: 'a1', parts: [{ text: 'chunk' }] },
      append: true,
      // lastChunk: false is the default of a plain bool and is left out on encode (see below)
    },
  },
];

const SECURITY_SCHEMES_EXAMPLE = {
  apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
  bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
  oauth: {
    oauth2SecurityScheme: {
      flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { 'a2a.read': 'read' } } },
    },
  },
  oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://accounts.example.com/.well-known/openid-configuration' } },
  mtls: { mtlsSecurityScheme: { description: 'client cert' } },
};

describe('decode → encode round trip of the digest §1.2 examples', () => {
  it.each(PART_EXAMPLES)('Part %j', (part) => {
    expect(encode(S.PartSchema, decode(S.PartSchema, part))).toEqual(part);
  });

  it.each([
    { name: 'Message', schema: S.MessageSchema as Schema, value: MESSAGE_EXAMPLE },
    { name: 'Task', schema: S.TaskSchema as Schema, value: TASK_EXAMPLE },
    { name: 'SendMessageResponse task', schema: S.SendMessageResponseSchema as Schema, value: { task: TASK_EXAMPLE } },
    { name: 'SendMessageResponse message', schema: S.SendMessageResponseSchema as Schema, value: { message: MESSAGE_EXAMPLE } },
  ])('$name', ({ schema, value }) => {
    expect(encode(schema, decode(schema, value))).toEqual(value);
  });

  it.each(STREAM_RESPONSE_EXAMPLES)('StreamResponse %#', (event) => {
    expect(encode(S.StreamResponseSchema, decode(S.StreamResponseSchema, event))).toEqual(event);
  });

  it.each(Object.entries(SECURITY_SCHEMES_EXAMPLE))('SecurityScheme %s', (_name, scheme) => {
    expect(encode(S.SecuritySchemeSchema, decode(S.SecuritySchemeSchema, scheme))).toEqual(scheme);
  });

  it('securityRequirements: an empty scope list is omitted, as ProtoJSON does', () => {
    const requirements = [{ schemes: { oauth: { list: ['a2a.read'] } } }, { schemes: { apiKey: { list: [] } } }];
    const decoded = requirements.map((r) => decode(S.SecurityRequirementSchema, r));
    expect(decoded.map((r) => encode(S.SecurityRequirementSchema, r))).toEqual([
      { schemes: { oauth: { list: ['a2a.read'] } } },
      { schemes: { apiKey: {} } },
    ]);
  });

  it('artifactUpdate: "lastChunk": false (a non-presence default) is dropped, "append": true kept', () => {
    const wire = {
      artifactUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        artifact: { artifactId: 'a1', parts: [{ text: 'chunk' }] },
        append: true,
        lastChunk: false,
      },
    };
    expect(encode(S.StreamResponseSchema, decode(S.StreamResponseSchema, wire))).toEqual({
      artifactUpdate: { taskId: 'task-1', contextId: 'ctx-1', artifact: { artifactId: 'a1', parts: [{ text: 'chunk' }] }, append: true },
    });
  });
});

describe('decode: field names', () => {
  it.each([
    {
      name: 'Message in snake_case',
      schema: S.MessageSchema as Schema,
      input: { message_id: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi', media_type: 'text/plain' }], context_id: 'c1', task_id: 't1', reference_task_ids: ['t0'] },
      expected: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi', mediaType: 'text/plain' }], contextId: 'c1', taskId: 't1', referenceTaskIds: ['t0'] },
    },
    {
      name: 'artifact_update with last_chunk',
      schema: S.StreamResponseSchema as Schema,
      input: { artifact_update: { task_id: 't', context_id: 'c', artifact: { artifact_id: 'a', parts: [{ text: 'x' }] }, last_chunk: true } },
      expected: { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, lastChunk: true } },
    },
    {
      name: 'open_id_connect_security_scheme',
      schema: S.SecuritySchemeSchema as Schema,
      input: { open_id_connect_security_scheme: { open_id_connect_url: 'https://idp/.well-known/openid-configuration' } },
      expected: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp/.well-known/openid-configuration' } },
    },
    {
      name: 'oauth2_metadata_url',
      schema: S.SecuritySchemeSchema as Schema,
      input: { oauth2_security_scheme: { flows: { device_code: { device_authorization_url: 'https://d', token_url: 'https://t', scopes: { s: 'S' } } }, oauth2_metadata_url: 'https://m' } },
      expected: { oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://d', tokenUrl: 'https://t', scopes: { s: 'S' } } }, oauth2MetadataUrl: 'https://m' } },
    },
    {
      name: 'mtls_security_scheme',
      schema: S.SecuritySchemeSchema as Schema,
      input: { mtls_security_scheme: { description: 'client cert' } },
      expected: { mtlsSecurityScheme: { description: 'client cert' } },
    },
    {
      name: 'task_push_notification_config inside configuration',
      schema: S.SendMessageRequestSchema as Schema,
      input: { message: userMessage(), configuration: { task_push_notification_config: { url: 'https://hook' }, return_immediately: true, history_length: 2 } },
      expected: { message: userMessage(), configuration: { taskPushNotificationConfig: { url: 'https://hook' }, returnImmediately: true, historyLength: 2 } },
    },
  ])('accepts $name', ({ schema, input, expected }) => {
    expect(decode(schema, input)).toEqual(expected);
  });

  it('refuses a field given both in camelCase and snake_case', () => {
    expect(violations(S.MessageSchema, userMessage({ context_id: 'a', contextId: 'b' }))).toEqual([
      { field: 'contextId', description: expect.stringContaining('twice') },
    ]);
    expect(violations(S.MessageSchema, userMessage({ contextId: 'a', task_id: 't', context_id: 'b' }))).toEqual([
      { field: 'contextId', description: expect.stringContaining('twice') },
    ]);
  });

  it('ignores unknown fields (0.3 "kind", typos, prototype names) at every level', () => {
    const input = JSON.parse(
      JSON.stringify({
        ...userMessage(),
        kind: 'message',
        constructor: 1,
        toString: 'x',
        hasOwnProperty: null,
        parts: [{ kind: 'text', text: 'hi', mimeType: 'text/plain' }],
      }).replace('"kind":"message"', '"kind":"message","__proto__":{"role":"ROLE_AGENT"}'),
    ) as unknown;
    const decoded = decode(S.MessageSchema, input);
    expect(decoded).toEqual({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] });
    expect(Object.keys(decoded).sort()).toEqual(['messageId', 'parts', 'role']);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });
});

describe('decode: null means unset', () => {
  it.each([
    { name: 'optional string', extra: { contextId: null }, absent: 'contextId' },
    { name: 'struct', extra: { metadata: null }, absent: 'metadata' },
    { name: 'repeated', extra: { extensions: null }, absent: 'extensions' },
  ])('$name', ({ extra, absent }) => {
    const decoded = decode(S.MessageSchema, userMessage(extra)) as unknown as Record<string, unknown>;
    expect(absent in decoded).toBe(false);
  });

  it.each([
    { name: 'messageId', input: userMessage({ messageId: null }), field: 'messageId' },
    { name: 'role', input: userMessage({ role: null }), field: 'role' },
    { name: 'parts', input: userMessage({ parts: null }), field: 'parts' },
  ])('null on REQUIRED $name reports it as missing', ({ input, field }) => {
    expect(fields(S.MessageSchema, input)).toEqual([field]);
  });

  it('presence field historyLength: null is unset, not 0', () => {
    expect(decode(S.GetTaskRequestSchema, { id: 't', historyLength: null })).toEqual({ id: 't' });
  });

  it('Part.data: null is the JSON null value (google.protobuf.Value), a set data part', () => {
    expect(decode(S.PartSchema, { data: null })).toEqual({ data: null });
    expect(encode(S.PartSchema, decode(S.PartSchema, { data: null }))).toEqual({ data: null });
  });

  it('a oneof member set to null does not count as set', () => {
    expect(decode(S.PartSchema, { text: null, url: 'https://x' })).toEqual({ url: 'https://x' });
    expect(fields(S.PartSchema, { text: null })).toEqual(['content']);
  });
});

describe('decode: enums', () => {
  it.each([
    { input: 'ROLE_USER', expected: 'ROLE_USER' },
    { input: 'ROLE_AGENT', expected: 'ROLE_AGENT' },
    { input: 1, expected: 'ROLE_USER' },
    { input: 2, expected: 'ROLE_AGENT' },
  ])('role $input → $expected', ({ input, expected }) => {
    expect(decode(S.MessageSchema, userMessage({ role: input })).role).toBe(expected);
  });

  it.each([
    { input: 'TASK_STATE_SUBMITTED', expected: 'TASK_STATE_SUBMITTED' },
    { input: 'TASK_STATE_CANCELED', expected: 'TASK_STATE_CANCELED' },
    { input: 1, expected: 'TASK_STATE_SUBMITTED' },
    { input: 2, expected: 'TASK_STATE_WORKING' },
    { input: 3, expected: 'TASK_STATE_COMPLETED' },
    { input: 4, expected: 'TASK_STATE_FAILED' },
    { input: 5, expected: 'TASK_STATE_CANCELED' },
    { input: 6, expected: 'TASK_STATE_INPUT_REQUIRED' },
    { input: 7, expected: 'TASK_STATE_REJECTED' },
    { input: 8, expected: 'TASK_STATE_AUTH_REQUIRED' },
  ])('task state $input → $expected (digest §0.2 numbers)', ({ input, expected }) => {
    expect(decode(S.TaskStatusSchema, { state: input }).state).toBe(expected);
  });

  it.each([
    { name: 'ROLE_UNSPECIFIED (the zero value counts as unset)', role: 'ROLE_UNSPECIFIED', description: 'is required' },
    { name: '0 (the zero value by number)', role: 0, description: 'is required' },
    { name: 'out of range 3', role: 3, description: expect.stringContaining('must be one of') },
    { name: 'negative', role: -1, description: expect.stringContaining('must be one of') },
    { name: 'fractional', role: 1.5, description: expect.stringContaining('must be one of') },
    { name: '0.3 spelling "user"', role: 'user', description: expect.stringContaining('must be one of') },
    { name: 'wrong case', role: 'role_user', description: expect.stringContaining('must be one of') },
    { name: 'boolean', role: true, description: expect.stringContaining('must be one of') },
  ])('role $name is refused', ({ role, description }) => {
    const found = violations(S.MessageSchema, userMessage({ role }));
    expect(found).toContainEqual({ field: 'role', description });
    expect(new Set(found.map((v) => v.field))).toEqual(new Set(['role']));
  });

  it.each([9, -1, 'working', 'input-required', 'TASK_STATE_CANCELLED', 'TASK_STATE_UNKNOWN'])('task state %j is refused', (state) => {
    const found = violations(S.TaskStatusSchema, { state });
    expect(found).toContainEqual({ field: 'state', description: expect.stringContaining('must be one of') });
    expect(new Set(found.map((v) => v.field))).toEqual(new Set(['state']));
  });

  it.each([
    { status: 'TASK_STATE_UNSPECIFIED', expected: {} },
    { status: 0, expected: {} },
    { status: 'TASK_STATE_WORKING', expected: { status: 'TASK_STATE_WORKING' } },
  ])('ListTasksRequest.status $status: the zero value means "no filter"', ({ status, expected }) => {
    expect(decode(S.ListTasksRequestSchema, { status })).toEqual(expected);
  });
});

describe('decode: int32', () => {
  it.each([
    { input: 5, expected: 5 },
    { input: '5', expected: 5 },
    { input: '0', expected: 0 },
    { input: 0, expected: 0 },
    { input: 7.0, expected: 7 },
    { input: '2147483647', expected: 2147483647 },
  ])('GetTaskRequest.historyLength $input → $expected', ({ input, expected }) => {
    expect(decode(S.GetTaskRequestSchema, { id: 't', historyLength: input })).toEqual({ id: 't', historyLength: expected });
  });

  it.each([
    { input: -5, description: 'must be at least 0' },
    { input: '-5', description: 'must be at least 0' },
    { input: 1.5, description: 'must be an integer' },
    { input: '1.5', description: 'must be an integer' },
    { input: 'abc', description: 'must be an integer' },
    { input: '', description: 'must be an integer' },
    { input: '0x10', description: 'must be an integer' },
    { input: true, description: 'must be an integer' },
    { input: 2147483648, description: 'must be an integer' },
    { input: '99999999999', description: 'must be an integer' },
    { input: [1], description: 'must be an integer' },
  ])('historyLength $input is refused: $description', ({ input, description }) => {
    expect(violations(S.GetTaskRequestSchema, { id: 't', historyLength: input })).toEqual([{ field: 'historyLength', description }]);
  });

  it.each([
    { pageSize: 1, ok: true },
    { pageSize: '50', ok: true },
    { pageSize: 100, ok: true },
    { pageSize: 0, ok: false },
    { pageSize: 101, ok: false },
    { pageSize: 150, ok: false },
  ])('ListTasksRequest.pageSize $pageSize within 1..100: $ok', ({ pageSize, ok }) => {
    if (ok) expect(decode(S.ListTasksRequestSchema, { pageSize }).pageSize).toBe(Number(pageSize));
    else expect(fields(S.ListTasksRequestSchema, { pageSize })).toEqual(['pageSize']);
  });
});

describe('decode: bytes (Part.raw) in either base64 alphabet, normalised to standard padded', () => {
  it.each([
    { name: 'standard, padded', raw: 'iVBORw0KGgo=', expected: 'iVBORw0KGgo=' },
    { name: 'standard, unpadded', raw: 'iVBORw0KGgo', expected: 'iVBORw0KGgo=' },
    { name: 'two pad chars', raw: 'SGVsbG8gd29ybGQ=', expected: 'SGVsbG8gd29ybGQ=' },
    { name: 'two pad chars missing', raw: 'SGk', expected: 'SGk=' },
    { name: 'one pad char missing', raw: 'SGVsbG8', expected: 'SGVsbG8=' },
    { name: 'URL-safe, unpadded', raw: 'SGVsbG8gd29ybGQ_Pz8-', expected: 'SGVsbG8gd29ybGQ/Pz8+' },
    { name: 'URL-safe, padded', raw: '-_-_-w==', expected: '+/+/+w==' },
    { name: 'empty (a set raw part)', raw: '', expected: '' },
  ])('$name', ({ raw, expected }) => {
    expect(decode(S.PartSchema, { raw })).toEqual({ raw: expected });
  });

  it.each([
    { name: 'single char', raw: 'a' },
    { name: 'misplaced padding', raw: 'ab=c' },
    { name: 'one = after two chars', raw: 'ab=' },
    { name: 'not base64 characters', raw: '!!!!' },
    { name: 'the digest abbreviation', raw: 'iVBORw0KGgo...' },
    { name: 'whitespace', raw: 'SGVs bG8=' },
    { name: 'a number', raw: 1234 },
  ])('refuses $name', ({ raw }) => {
    // reported once, for the value: the part's missing content is not reported again
    expect(violations(S.PartSchema, { raw })).toEqual([{ field: 'raw', description: 'must be a base64 string' }]);
  });
});

describe('decode: timestamps, normalised to UTC "Z" with milliseconds', () => {
  it.each([
    { input: '2026-03-12T10:00:00Z', expected: '2026-03-12T10:00:00.000Z' },
    { input: '2026-03-12T10:00:00.000Z', expected: '2026-03-12T10:00:00.000Z' },
    { input: '2026-03-12T10:00:00.123Z', expected: '2026-03-12T10:00:00.123Z' },
    { input: '2026-03-12T10:00:00.123456Z', expected: '2026-03-12T10:00:00.123Z' },
    { input: '2026-03-12T10:00:00.123456789Z', expected: '2026-03-12T10:00:00.123Z' },
    { input: '2026-03-12T10:00:00.1Z', expected: '2026-03-12T10:00:00.100Z' },
    { input: '2026-03-12T12:00:00+02:00', expected: '2026-03-12T10:00:00.000Z' },
    { input: '2026-03-12T04:30:00.250-05:30', expected: '2026-03-12T10:00:00.250Z' },
    { input: '2026-03-12T10:00:00+00:00', expected: '2026-03-12T10:00:00.000Z' },
    { input: '2026-03-12t10:00:00z', expected: '2026-03-12T10:00:00.000Z' },
    { input: '2026-03-13T00:30:00+01:00', expected: '2026-03-12T23:30:00.000Z' },
    { input: '2024-02-29T10:00:00Z', expected: '2024-02-29T10:00:00.000Z' },
    { input: '2025-11-09T10:30:00Z', expected: '2025-11-09T10:30:00.000Z' },
  ])('$input → $expected', ({ input, expected }) => {
    expect(decode(S.TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: input }).timestamp).toBe(expected);
  });

  it('ListTasksRequest.statusTimestampAfter (query form of §2.3.3) is normalised too', () => {
    expect(decode(S.ListTasksRequestSchema, { statusTimestampAfter: '2025-11-09T10:30:00Z' })).toEqual({
      statusTimestampAfter: '2025-11-09T10:30:00.000Z',
    });
  });

  it.each([
    { name: 'date only', input: '2026-03-12' },
    { name: 'no offset', input: '2026-03-12T10:00:00' },
    { name: 'space instead of T', input: '2026-03-12 10:00:00Z' },
    { name: 'ten fraction digits', input: '2026-03-12T10:00:00.1234567890Z' },
    { name: 'empty fraction', input: '2026-03-12T10:00:00.Z' },
    { name: 'offset without colon', input: '2026-03-12T10:00:00+0200' },
    { name: 'month 13', input: '2026-13-01T10:00:00Z' },
    { name: 'February 30', input: '2026-02-30T10:00:00Z' },
    { name: 'February 29 of a common year', input: '2026-02-29T10:00:00Z' },
    { name: 'April 31', input: '2026-04-31T10:00:00Z' },
    { name: 'hour 24', input: '2026-03-12T24:00:00Z' },
    { name: 'minute 60', input: '2026-03-12T10:60:00Z' },
    { name: 'offset hour 25', input: '2026-03-12T10:00:00+25:00' },
    { name: 'epoch milliseconds', input: 1773309600000 },
    { name: 'prose', input: '12 March 2026' },
    { name: 'empty string', input: '' },
  ])('refuses $name', ({ input }) => {
    expect(violations(S.TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: input })).toEqual([
      { field: 'timestamp', description: expect.stringContaining('RFC 3339') },
    ]);
  });
});

describe('decode: scalar and container type checks', () => {
  it.each([
    { name: 'string given a number', input: userMessage({ messageId: 5 }), field: 'messageId', description: 'must be a string' },
    { name: 'repeated given an object', input: userMessage({ parts: { text: 'x' } }), field: 'parts', description: 'must be an array' },
    { name: 'repeated string item', input: userMessage({ extensions: ['a', 2] }), field: 'extensions[1]', description: 'must be a string' },
    { name: 'struct given an array', input: userMessage({ metadata: [1] }), field: 'metadata', description: 'must be a JSON object' },
    { name: 'message item given null', input: userMessage({ parts: [null] }), field: 'parts[0]', description: 'must be a JSON object' },
    { name: 'message item given a string', input: userMessage({ parts: ['hello'] }), field: 'parts[0]', description: 'must be a JSON object' },
  ])('$name', ({ input, field, description }) => {
    const found = violations(S.MessageSchema, input);
    expect(found[0]).toEqual({ field, description });
    // a REQUIRED field left unset by its bad value may be reported as missing too, never another field
    expect(found.every((v) => v.field === field || field.startsWith(`${v.field}[`))).toBe(true);
  });

  it('bool refuses the string "true" in a JSON body', () => {
    expect(violations(S.SendMessageRequestSchema, { message: userMessage(), configuration: { returnImmediately: 'true' } })).toEqual([
      { field: 'configuration.returnImmediately', description: 'must be a boolean' },
    ]);
  });

  it('map values are checked with their key in the path', () => {
    const input = { clientCredentials: { tokenUrl: 'https://t', scopes: { 'a2a.read': 'read', 'a2a.write': 1 } } };
    expect(fields(S.OAuthFlowsSchema, input)).toEqual(['clientCredentials.scopes.a2a.write']);
  });

  it.each([
    { name: 'a string', input: 'x', path: undefined, field: '(body)' },
    { name: 'an array', input: [], path: undefined, field: '(body)' },
    { name: 'null', input: null, path: undefined, field: '(body)' },
    { name: 'a string under a path', input: 'x', path: 'params', field: 'params' },
  ])('a top-level value that is $name', ({ input, path, field }) => {
    expect(violations(S.MessageSchema, input, path)).toEqual([{ field, description: 'must be a JSON object' }]);
  });

  it('Part.data takes any JSON value', () => {
    for (const data of [{ a: 1 }, [1, 'two'], 'text', 3.5, false, null]) {
      expect(decode(S.PartSchema, { data })).toEqual({ data });
    }
  });

  it('metadata (Struct) is kept verbatim, nested unknown keys included', () => {
    const metadata = { 'https://example.com/ext/geo/v1': { lat: 1.0, extra: [null, { deep: true }] } };
    expect(decode(S.MessageSchema, userMessage({ metadata })).metadata).toEqual(metadata);
  });

  it('a map key "__proto__" is an ordinary scheme name, not lost', () => {
    const input = JSON.parse('{"schemes":{"__proto__":{"list":["x"]},"bearer":{}}}') as unknown;
    const decoded = decode(S.SecurityRequirementSchema, input);
    expect(Object.keys(decoded.schemes ?? {}).sort()).toEqual(['__proto__', 'bearer']);
    expect(JSON.stringify(encode(S.SecurityRequirementSchema, decoded))).toBe('{"schemes":{"__proto__":{"list":["x"]},"bearer":{}}}');
  });
});

describe('decode: REQUIRED fields, reported with their path', () => {
  it.each([
    {
      name: 'message missing',
      schema: S.SendMessageRequestSchema as Schema,
      input: {},
      violations: [{ field: 'message', description: 'is required' }],
    },
    {
      name: 'message.parts empty (the digest §2.2 example)',
      schema: S.SendMessageRequestSchema as Schema,
      input: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } },
      violations: [{ field: 'message.parts', description: 'is required and must not be empty' }],
    },
    {
      name: 'message.messageId empty string',
      schema: S.SendMessageRequestSchema as Schema,
      input: { message: userMessage({ messageId: '' }) },
      violations: [{ field: 'message.messageId', description: 'is required' }],
    },
    {
      name: 'message.role ROLE_UNSPECIFIED',
      schema: S.SendMessageRequestSchema as Schema,
      input: { message: userMessage({ role: 'ROLE_UNSPECIFIED' }) },
      violations: [{ field: 'message.role', description: 'is required' }],
    },
    {
      name: 'a part with no content',
      schema: S.SendMessageRequestSchema as Schema,
      input: { message: userMessage({ parts: [{ text: 'ok' }, { mediaType: 'text/plain' }] }) },
      violations: [{ field: 'message.parts[1]', description: 'one of text, raw, url, data is required' }],
    },
    {
      name: 'artifact.artifactId',
      schema: S.StreamResponseSchema as Schema,
      input: { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { parts: [{ text: 'x' }] } } },
      violations: [{ field: 'artifactUpdate.artifact.artifactId', description: 'is required' }],
    },
    {
      name: 'artifact.parts',
      schema: S.TaskSchema as Schema,
      input: { id: 't', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: 'a' }] },
      violations: [{ field: 'artifacts[0].parts', description: 'is required and must not be empty' }],
    },
    {
      name: 'task status and id',
      schema: S.TaskSchema as Schema,
      input: { contextId: 'c' },
      violations: [
        { field: 'id', description: 'is required' },
        { field: 'status', description: 'is required' },
      ],
    },
    {
      name: 'status.state',
      schema: S.TaskSchema as Schema,
      input: { id: 't', status: { timestamp: '2026-03-12T10:00:00Z' } },
      violations: [{ field: 'status.state', description: 'is required' }],
    },
    {
      name: 'statusUpdate taskId/contextId',
      schema: S.StreamResponseSchema as Schema,
      input: { statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } },
      violations: [
        { field: 'statusUpdate.taskId', description: 'is required' },
        { field: 'statusUpdate.contextId', description: 'is required' },
      ],
    },
    {
      name: 'push config url',
      schema: S.TaskPushNotificationConfigSchema as Schema,
      input: { taskId: 't', authentication: { credentials: 'secret' } },
      violations: [
        { field: 'authentication.scheme', description: 'is required' },
        { field: 'url', description: 'is required' },
      ],
    },
    {
      name: 'GetTaskPushNotificationConfigRequest ids',
      schema: S.GetTaskPushNotificationConfigRequestSchema as Schema,
      input: { tenant: 'acme' },
      violations: [
        { field: 'taskId', description: 'is required' },
        { field: 'id', description: 'is required' },
      ],
    },
    {
      name: 'APIKeySecurityScheme location and name',
      schema: S.SecuritySchemeSchema as Schema,
      input: { apiKeySecurityScheme: { description: 'k' } },
      violations: [
        { field: 'apiKeySecurityScheme.location', description: 'is required' },
        { field: 'apiKeySecurityScheme.name', description: 'is required' },
      ],
    },
  ])('$name', ({ schema, input, violations: expected }) => {
    expect(violations(schema, input)).toEqual(expected);
  });

  it('decode(…, path) prefixes every path (JSON-RPC params)', () => {
    expect(fields(S.MessageSchema, { role: 'ROLE_USER', parts: [] }, 'params.message')).toEqual([
      'params.message.messageId',
      'params.message.parts',
    ]);
  });

  it('names every kind of path under a prefix: list items in messages, lists in lists in maps, snake_case twins, bounds', () => {
    const limits: DecodeLimits = { ...DEFAULT_DECODE_LIMITS, maxListItems: 2, maxContextIdLength: 4 };
    const input = {
      message: {
        message_id: 'm1',
        messageId: 'm2',
        role: 'ROLE_USER',
        parts: [{ text: 'a' }, { text: 1 }, {}, { text: 'a', url: 'https://b' }, { data: null, metadata: [] }],
        referenceTaskIds: ['t', 2],
        extensions: ['a', 'b', 'c'],
        context_id: 'long-context',
      },
      configuration: { accepted_output_modes: ['a', 3], history_length: -1, taskPushNotificationConfig: { authentication: {}, url: 7 } },
    };
    expect(thrownViolations(() => decode(S.SendMessageRequestSchema, input, 'params', { limits }))).toEqual([
      { field: 'params.message.messageId', description: 'given twice (camelCase and snake_case)' },
      { field: 'params.message.parts[1].text', description: 'must be a string' },
      { field: 'params.message.parts[2]', description: 'one of text, raw, url, data is required' },
      { field: 'params.message.parts[3].url', description: 'only one of text, raw, url, data may be set' },
      { field: 'params.message.parts[4].metadata', description: 'must be a JSON object' },
      { field: 'params.message.referenceTaskIds[1]', description: 'must be a string' },
      { field: 'params.message.extensions', description: 'must have at most 2 items (limits.maxListItems)' },
      { field: 'params.message.contextId', description: 'must be a string of at most 4 characters (limits.maxContextIdLength)' },
      { field: 'params.configuration.acceptedOutputModes[1]', description: 'must be a string' },
      { field: 'params.configuration.historyLength', description: 'must be at least 0' },
      { field: 'params.configuration.taskPushNotificationConfig.authentication.scheme', description: 'is required' },
      { field: 'params.configuration.taskPushNotificationConfig.url', description: 'must be a string' },
    ]);
    const Grid = schema('Grid', { cells: { type: { map: { list: { list: 'int32' } } } }, rows: { type: { list: 'string' }, repeated: true } });
    const key = 'k'.repeat(100);
    expect(fields(Grid, { cells: { a: [[1, 'x']], [key]: [[], [2, 3, 'y']] }, rows: [['a'], ['b', false]] }, 'grid')).toEqual([
      'grid.cells.a[0][1]',
      `grid.cells.${'k'.repeat(64)}…[1][2]`,
      'grid.rows[1][1]',
    ]);
    expect(fields(Grid, { cells: { a: 'x' } })).toEqual(['cells.a']);
    expect(fields(Grid, { rows: [1] })).toEqual(['rows[0]']);
  });

  it('collects every violation at once, not only the first', () => {
    const input = {
      message: {
        role: 'user',
        parts: [{}, { text: 'a', url: 'https://b' }, { raw: '!' }],
        extensions: 'not-a-list',
      },
      configuration: { historyLength: -1, returnImmediately: 'yes' },
    };
    // a REQUIRED field with a bad value (role) is reported once, for the value
    expect(violations(S.SendMessageRequestSchema, input).map((v) => v.field).sort()).toEqual(
      [
        'message.role',
        'message.parts[0]',
        'message.parts[1].url',
        'message.parts[2].raw',
        'message.extensions',
        'message.messageId',
        'configuration.historyLength',
        'configuration.returnImmediately',
      ].sort(),
    );
  });

  it('the error carries the violations as google.rpc.BadRequest', () => {
    const error = thrown(() => decode(S.SendMessageRequestSchema, { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).toJsonRpc()).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid parameters/),
      data: [{ '@type': BAD_REQUEST_TYPE, fieldViolations: [{ field: 'message.parts', description: 'is required and must not be empty' }] }],
    });
  });

  it('skills: [] and tasks: [] are REQUIRED yet may be empty (digest §1.1)', () => {
    expect(decode(S.AgentSkillSchema, { id: 's', name: 'S', description: 'd', tags: ['t'] }).tags).toEqual(['t']);
    expect(decode(S.ListTasksResponseSchema, { tasks: [], nextPageToken: 'n', pageSize: 50, totalSize: 3 }).tasks).toEqual([]);
    expect(decode(S.ListTasksResponseSchema, { nextPageToken: 'n', pageSize: 50, totalSize: 3 }).tasks).toEqual([]);
  });

  it('ListTasksResponse of the last page: nextPageToken "" and totalSize 0 are valid (digest §1.1, §5.9)', () => {
    const lastPage = { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 };
    expect(decode(S.ListTasksResponseSchema, lastPage)).toEqual(lastPage);
  });

  it('ListTasksResponse without nextPageToken is refused (it MUST always be present)', () => {
    expect(fields(S.ListTasksResponseSchema, { tasks: [], pageSize: 50, totalSize: 0 })).toEqual(['nextPageToken']);
  });

  it('an empty REQUIRED scopes map decodes as an empty map, not a list', () => {
    const input = { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: {} } };
    const decoded = decode(S.OAuthFlowsSchema, input);
    expect(decoded.clientCredentials?.scopes).toEqual({});
    expect(Array.isArray(decoded.clientCredentials?.scopes)).toBe(false);
    expect(encode(S.OAuthFlowsSchema, decoded)).toEqual(input);
  });
});

describe('decode: oneof', () => {
  it.each([
    { name: 'text and url', schema: S.PartSchema as Schema, input: { text: 'a', url: 'https://b' }, field: 'url' },
    { name: 'raw and data', schema: S.PartSchema as Schema, input: { raw: 'SGk=', data: { a: 1 } }, field: 'data' },
    { name: 'empty text and data', schema: S.PartSchema as Schema, input: { text: '', data: null }, field: 'data' },
    {
      name: 'StreamResponse task and message',
      schema: S.StreamResponseSchema as Schema,
      input: { task: TASK_EXAMPLE, message: MESSAGE_EXAMPLE },
      field: 'message',
    },
    {
      name: 'SecurityScheme apiKey and mtls',
      schema: S.SecuritySchemeSchema as Schema,
      input: { apiKeySecurityScheme: { location: 'header', name: 'X' }, mtlsSecurityScheme: {} },
      field: 'mtlsSecurityScheme',
    },
    {
      name: 'OAuthFlows with two flows',
      schema: S.OAuthFlowsSchema as Schema,
      input: {
        clientCredentials: { tokenUrl: 'https://t', scopes: { a: 'A' } },
        deviceCode: { deviceAuthorizationUrl: 'https://d', tokenUrl: 'https://t', scopes: { a: 'A' } },
      },
      field: 'deviceCode',
    },
  ])('two members set is an error: $name', ({ schema, input, field }) => {
    expect(violations(schema, input)).toEqual([{ field, description: expect.stringContaining('only one of') }]);
  });

  it.each([
    { name: 'Part', schema: S.PartSchema as Schema, input: { mediaType: 'text/plain' }, field: 'content' },
    { name: 'StreamResponse', schema: S.StreamResponseSchema as Schema, input: {}, field: 'payload' },
    { name: 'SendMessageResponse', schema: S.SendMessageResponseSchema as Schema, input: { kind: 'task' }, field: 'payload' },
    { name: 'SecurityScheme (0.3 "type" form)', schema: S.SecuritySchemeSchema as Schema, input: { type: 'apiKey', in: 'header', name: 'X' }, field: 'scheme' },
  ])('none set when required is an error: $name', ({ schema, input, field }) => {
    expect(violations(schema, input)).toEqual([{ field, description: expect.stringContaining('is required') }]);
  });

  it.each([
    { name: '{"text": ""}', input: { text: '' } },
    { name: '{"url": ""}', input: { url: '' } },
    { name: '{"raw": ""}', input: { raw: '' } },
    { name: '{"data": {}}', input: { data: {} } },
    { name: '{"data": false}', input: { data: false } },
  ])('members have presence: $name is a valid part, kept on encode', ({ input }) => {
    expect(decode(S.PartSchema, input)).toEqual(input);
    expect(encode(S.PartSchema, decode(S.PartSchema, input))).toEqual(input);
  });

  it('an optional oneof (OAuthFlows.flow) may be empty', () => {
    expect(decode(S.OAuthFlowsSchema, {})).toEqual({});
  });
});

describe('decode: presence fields keep 0 / false, plain fields drop their defaults', () => {
  it.each([
    { name: 'GetTaskRequest.historyLength 0', schema: S.GetTaskRequestSchema as Schema, input: { id: 't', historyLength: 0 } },
    { name: 'SendMessageConfiguration.historyLength 0', schema: S.SendMessageConfigurationSchema as Schema, input: { historyLength: 0 } },
    { name: 'ListTasksRequest.includeArtifacts false', schema: S.ListTasksRequestSchema as Schema, input: { includeArtifacts: false } },
    { name: 'ListTasksRequest.historyLength 0', schema: S.ListTasksRequestSchema as Schema, input: { historyLength: 0 } },
    {
      name: 'capabilities all false',
      schema: S.AgentCapabilitiesSchema as Schema,
      input: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    },
  ])('kept: $name', ({ schema, input }) => {
    expect(decode(schema, input)).toEqual(input);
    expect(encode(schema, decode(schema, input))).toEqual(input);
  });

  it.each([
    { name: 'contextId ""', input: userMessage({ contextId: '' }) },
    { name: 'extensions []', input: userMessage({ extensions: [] }) },
    { name: 'referenceTaskIds []', input: userMessage({ referenceTaskIds: [] }) },
  ])('dropped on decode: $name', ({ input }) => {
    expect(decode(S.MessageSchema, input)).toEqual(userMessage());
  });

  it('capabilities {} stays {} (unset presence fields are not default-filled)', () => {
    expect(decode(S.AgentCapabilitiesSchema, {})).toEqual({});
    expect(encode(S.AgentCapabilitiesSchema, {})).toEqual({});
  });
});

describe('encode', () => {
  it.each([
    { name: 'GetTaskRequest.historyLength 0', schema: S.GetTaskRequestSchema as Schema, value: { id: 't', historyLength: 0 }, expected: { id: 't', historyLength: 0 } },
    {
      name: 'capabilities.streaming false',
      schema: S.AgentCapabilitiesSchema as Schema,
      value: { streaming: false },
      expected: { streaming: false },
    },
    {
      name: 'ListTasksRequest.includeArtifacts false',
      schema: S.ListTasksRequestSchema as Schema,
      value: { includeArtifacts: false, pageSize: 10 },
      expected: { includeArtifacts: false, pageSize: 10 },
    },
    {
      name: 'documentationUrl "" (presence) on a card',
      schema: S.AgentCardSchema as Schema,
      value: {
        name: 'n',
        description: 'd',
        version: '1',
        supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
        documentationUrl: '',
      },
      expected: {
        name: 'n',
        description: 'd',
        version: '1',
        supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
        documentationUrl: '',
      },
    },
  ])('presence field kept: $name', ({ schema, value, expected }) => {
    expect(encode(schema, value)).toEqual(expected);
  });

  it.each([
    {
      name: 'Message contextId "", extensions [], referenceTaskIds []',
      schema: S.MessageSchema as Schema,
      value: userMessage({ contextId: '', extensions: [], referenceTaskIds: [] }),
      expected: userMessage(),
    },
    {
      name: 'artifactUpdate append/lastChunk false',
      schema: S.TaskArtifactUpdateEventSchema as Schema,
      value: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: false, lastChunk: false },
      expected: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    },
    {
      name: 'configuration returnImmediately false, acceptedOutputModes []',
      schema: S.SendMessageConfigurationSchema as Schema,
      value: { returnImmediately: false, acceptedOutputModes: [] },
      expected: {},
    },
    {
      name: 'ListTasksRequest status UNSPECIFIED, pageToken ""',
      schema: S.ListTasksRequestSchema as Schema,
      value: { status: 'TASK_STATE_UNSPECIFIED', pageToken: '', contextId: '' },
      expected: {},
    },
    {
      name: 'Task artifacts [] and history []',
      schema: S.TaskSchema as Schema,
      value: { id: 't', status: { state: 'TASK_STATE_WORKING' }, artifacts: [], history: [] },
      expected: { id: 't', status: { state: 'TASK_STATE_WORKING' } },
    },
    {
      name: 'AgentExtension required false, securitySchemes {}',
      schema: S.AgentCapabilitiesSchema as Schema,
      value: { extensions: [{ uri: 'https://ext', required: false, description: '' }] },
      expected: { extensions: [{ uri: 'https://ext' }] },
    },
    {
      name: 'ListTaskPushNotificationConfigsRequest pageSize 0 (plain int32)',
      schema: S.ListTaskPushNotificationConfigsRequestSchema as Schema,
      value: { taskId: 't', pageSize: 0, pageToken: '' },
      expected: { taskId: 't' },
    },
  ])('non-presence default dropped: $name', ({ schema, value, expected }) => {
    expect(encode(schema, value)).toEqual(expected);
  });

  it.each([
    { name: 'last page', value: { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 } },
    { name: 'tasks unset', value: { nextPageToken: '', pageSize: 50, totalSize: 0 } },
  ])('ListTasksResponse ($name): tasks [] and nextPageToken "" always emitted', ({ value }) => {
    const wire = encode(S.ListTasksResponseSchema, value as never);
    expect(wire).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    expect(JSON.stringify(wire)).toBe('{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}');
  });

  it('REQUIRED fields appear even when they hold the default', () => {
    expect(encode(S.MessageSchema, { messageId: '', role: 'ROLE_UNSPECIFIED', parts: [] })).toEqual({
      messageId: '',
      role: 'ROLE_UNSPECIFIED',
      parts: [],
    });
  });

  it('keys not in the schema never reach the output, at any depth; Struct content is kept', () => {
    const value = {
      id: 'task-1',
      secret: 'do-not-leak',
      kind: 'task',
      status: {
        state: 'TASK_STATE_WORKING',
        internal: { lease: 'x' },
        message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ kind: 'text', text: 'hi', file: {} }], password: 'p' },
      },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }], index: 0 }],
      metadata: { keep: { nested: 'yes' } },
    };
    const wire = encode(S.TaskSchema, value as never);
    expect(wire).toEqual({
      id: 'task-1',
      status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
      metadata: { keep: { nested: 'yes' } },
    });
    expect(JSON.stringify(wire)).not.toMatch(/secret|do-not-leak|kind|internal|lease|password|index|file/);
  });

  it('drops unknown keys inside map values (security schemes)', () => {
    const schemes = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', clientSecret: 's3cr3t' }, type: 'http' } };
    expect(encode(S.AgentCardSchema, { securitySchemes: schemes } as never)).toMatchObject({
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    });
    expect(JSON.stringify(encode(S.AgentCardSchema, { securitySchemes: schemes } as never))).not.toContain('s3cr3t');
  });

  it('emits fields in proto order with camelCase names only', () => {
    const wire = encode(S.MessageSchema, { parts: [{ text: 'x' }], role: 'ROLE_USER', messageId: 'm', contextId: 'c' });
    expect(Object.keys(wire)).toEqual(['messageId', 'contextId', 'role', 'parts']);
  });
});

describe('decode: limits, checked while decoding', () => {
  const LIMITS: DecodeLimits = { maxPartsPerMessage: 3, maxPartBytes: 16, maxMetadataBytes: 40, maxListItems: 2 };
  const limited = (schema: Schema, input: unknown): FieldViolation[] => {
    const error = thrown(() => decode(schema, input, '', { limits: LIMITS }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    return (error as InvalidParamsError).fieldViolations;
  };
  const send = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ message: userMessage({ parts: [{ text: 'hi' }], ...message }), ...extra });

  it('has defaults a server can defend', () => {
    expect(DEFAULT_DECODE_LIMITS).toEqual({ maxPartsPerMessage: 1000, maxPartBytes: 1024 * 1024, maxMetadataBytes: 64 * 1024, maxListItems: 100 });
  });

  it('accepts what is within every bound, and without limits bounds nothing', () => {
    const within = send({ parts: [{ text: '0123456789abcdef' }, { raw: 'AAAA' }, { data: { k: 'v' } }], metadata: { a: 1 }, extensions: ['a', 'b'] });
    expect(() => decode(S.SendMessageRequestSchema, within, '', { limits: LIMITS })).not.toThrow();
    const over = send({ parts: Array.from({ length: 5 }, () => ({ text: 'x'.repeat(50) })) });
    expect(() => decode(S.SendMessageRequestSchema, over)).not.toThrow();
  });

  it("holds a message's contextId to maxContextIdLength, when given: a string of at most that many characters, the value never quoted", () => {
    const limits = { ...LIMITS, maxContextIdLength: 8 };
    const rule = { field: 'message.contextId', description: 'must be a string of at most 8 characters (limits.maxContextIdLength)' };
    for (const contextId of ['123456789', 12345, { a: 'b' }, ['x']]) {
      const error = thrown(() => decode(S.SendMessageRequestSchema, send({ contextId }), '', { limits }));
      expect((error as InvalidParamsError).fieldViolations).toEqual([rule]);
      expect((error as Error).message).not.toMatch(/123456789|12345/);
    }
    expect(() => decode(S.SendMessageRequestSchema, send({ contextId: '12345678' }), '', { limits })).not.toThrow();
    // without the bound, only the type is checked
    expect(() => decode(S.SendMessageRequestSchema, send({ contextId: 'x'.repeat(500) }), '', { limits: LIMITS })).not.toThrow();
  });

  it('counts parts before reading them: one violation naming the field and the bound, whatever the parts hold', () => {
    // each of these parts is itself invalid: none is read
    const parts = Array.from({ length: 1_000_000 }, () => ({ bogus: true }));
    expect(limited(S.SendMessageRequestSchema, send({ parts }))).toEqual([
      { field: 'message.parts', description: 'must hold at most 3 parts (limits.maxPartsPerMessage)' },
    ]);
  });

  it('bounds the bytes of a part\'s content: text as UTF-8, raw as sent, url, data as JSON; never quoting the value', () => {
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ text: 'x'.repeat(16) }, true],
      [{ text: 'x'.repeat(17) }, false],
      [{ text: 'é'.repeat(8) }, true], // 16 bytes
      [{ text: 'é'.repeat(9) }, false], // 9 units, 18 bytes
      [{ raw: 'QUJDREVGR0hJSktMTU5PUA==' }, false], // 24 characters as sent
      [{ url: `https://${'a'.repeat(20)}` }, false],
      [{ data: { k: 'v' } }, true],
      [{ data: { key: 'a long value' } }, false],
      [{ data: Array.from({ length: 1_000_000 }, (_, i) => i) }, false],
    ];
    for (const [part, ok] of cases) {
      const input = send({ parts: [part] });
      if (ok) {
        expect(() => decode(S.SendMessageRequestSchema, input, '', { limits: LIMITS })).not.toThrow();
        continue;
      }
      const [violation, ...rest] = limited(S.SendMessageRequestSchema, input);
      expect(rest).toEqual([]);
      expect(violation.field).toMatch(/^message\.parts\[0\]\.(text|raw|url|data)$/);
      expect(violation.description).toBe('must take at most 16 bytes (limits.maxPartBytes)');
    }
  });

  it('bounds every metadata object: the request\'s, the message\'s, a part\'s', () => {
    const big = { note: 'x'.repeat(100) };
    expect(limited(S.SendMessageRequestSchema, send({ metadata: big, parts: [{ text: 'a', metadata: big }] }, { metadata: big })).map((v) => v.field)).toEqual([
      'message.parts[0].metadata',
      'message.metadata',
      'metadata',
    ]);
    const deep = { list: Array.from({ length: 1_000_000 }, () => ({})) };
    expect(limited(S.SendMessageRequestSchema, send({ metadata: deep }))).toEqual([
      { field: 'message.metadata', description: 'must take at most 40 bytes (limits.maxMetadataBytes)' },
    ]);
  });

  it('bounds every other list and every map', () => {
    const many = Array.from({ length: 500_000 }, () => 7); // not strings: none is read
    expect(limited(S.SendMessageRequestSchema, send({ extensions: many, referenceTaskIds: many }, { configuration: { acceptedOutputModes: many } }))).toEqual([
      { field: 'message.extensions', description: 'must have at most 2 items (limits.maxListItems)' },
      { field: 'message.referenceTaskIds', description: 'must have at most 2 items (limits.maxListItems)' },
      { field: 'configuration.acceptedOutputModes', description: 'must have at most 2 items (limits.maxListItems)' },
    ]);
    const scopes = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`s${i}`, 'x']));
    expect(limited(S.OAuthFlowsSchema, { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes } })).toEqual([
      { field: 'authorizationCode.scopes', description: 'must have at most 2 items (limits.maxListItems)' },
    ]);
  });

  it(`stops after ${MAX_VIOLATIONS} violations, and quotes at most 64 characters of a map key`, () => {
    const parts = Array.from({ length: 3 }, () => ({ text: 1 }));
    const requests = { message: { messageId: 1, role: 'nope', parts, metadata: 'x', extensions: [1, 2], contextId: 3 }, configuration: { historyLength: -1 } };
    expect(() => decode(S.SendMessageRequestSchema, requests, '', { limits: LIMITS })).toThrow(InvalidParamsError);
    const wide = Array.from({ length: 1_000 }, () => ({ text: 1 }));
    const all = violations(S.SendMessageRequestSchema, { message: userMessage({ parts: wide }) });
    expect(all).toHaveLength(MAX_VIOLATIONS + 1);
    expect(all.at(-1)).toEqual({ field: '(body)', description: `more violations not listed (decoding stops after ${MAX_VIOLATIONS})` });
    const key = 'k'.repeat(5000);
    const [violation] = violations(S.OAuthFlowsSchema, { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { [key]: 1 } } });
    expect(violation.field).toBe(`authorizationCode.scopes.${'k'.repeat(64)}…`);
  });
});

// ---- what the A2A 0.3 JSON model needs (see v03/schemas.ts) ----

describe('discriminated schemas and unions', () => {
  const Cat = schema('Cat', { name: { type: 'string', required: true } }, undefined, { discriminator: { key: 'kind', value: 'cat' } });
  const Dog = schema('Dog', { barks: { type: 'bool' } }, undefined, { discriminator: { key: 'kind', value: 'dog' } });
  const Pet = union('Pet', () => [Cat, Dog]);
  const Home = schema('Home', { pet: { type: { message: () => Pet } }, cat: { type: { message: () => Cat } } });

  it('a union picks the variant by the discriminator, written first on output', () => {
    expect(decode(Home, { pet: { kind: 'dog', barks: true } })).toEqual({ pet: { kind: 'dog', barks: true } });
    expect(Object.keys(encode(Pet, { name: 'Tom', kind: 'cat' } as never))).toEqual(['kind', 'name']);
  });

  it('in a union the discriminator must be there and one of the variants; its value is never echoed', () => {
    expect(violations(Home, { pet: { barks: true } })).toEqual([{ field: 'pet.kind', description: 'must be one of "cat", "dog"' }]);
    expect(violations(Home, { pet: { kind: 'x'.repeat(10_000) } })).toEqual([{ field: 'pet.kind', description: 'must be one of "cat", "dog"' }]);
  });

  it('where only one schema can be, the discriminator may be left out; a wrong one is refused', () => {
    expect(decode(Home, { cat: { name: 'Tom' } })).toEqual({ cat: { kind: 'cat', name: 'Tom' } });
    expect(violations(Home, { cat: { kind: 'dog', name: 'Tom' } })).toEqual([{ field: 'cat.kind', description: 'must be "cat"' }]);
  });
});

describe('aliases, lists in maps, names-only enums, ISO 8601 date-times', () => {
  const S03 = schema('S03', {
    message: { type: 'string', aliases: ['request', 'legacyName'] },
    scopes: { type: { map: { list: 'string' } } },
    state: { type: { enum: ['a', 'b'], namesOnly: true }, presence: true },
    at: { type: 'datetime' },
  });

  it('reads a field under an alias (and its snake_case form); two names for one field are refused', () => {
    expect(decode(S03, { request: 'x' })).toEqual({ message: 'x' });
    expect(decode(S03, { legacy_name: 'x' })).toEqual({ message: 'x' });
    expect(fields(S03, { message: 'x', request: 'y' })).toEqual(['message']);
    expect(fields(S03, { request: 'x', message: 'y' })).toEqual(['message']);
    expect(fields(S03, { request: 'x', legacy_name: 'y' })).toEqual(['message']);
    expect(fields(S03, { state: 'a', request: 'x', legacy_name: 'y' })).toEqual(['message']);
  });

  it('a map of lists', () => {
    expect(decode(S03, { scopes: { google: ['openid'], none: [] } })).toEqual({ scopes: { google: ['openid'], none: [] } });
    expect(violations(S03, { scopes: { google: 'openid', bad: [1] } })).toEqual([
      { field: 'scopes.google', description: 'must be an array' },
      { field: 'scopes.bad[0]', description: 'must be a string' },
    ]);
  });

  it('a names-only enum refuses numbers', () => {
    expect(decode(S03, { state: 'a' })).toEqual({ state: 'a' });
    expect(fields(S03, { state: 0 })).toEqual(['state']);
  });

  it.each([
    ['2025-04-02T16:59:25.331844', '2025-04-02T16:59:25.331Z'],
    ['2024-03-15T10:10:00Z', '2024-03-15T10:10:00.000Z'],
    ['2024-03-15T12:10:00+02:00', '2024-03-15T10:10:00.000Z'],
  ])('a date-time %s, without an offset read as UTC → %s', (input, expected) => {
    expect(decode(S03, { at: input })).toEqual({ at: expected });
  });

  it.each(['2025-04-02', '2025-02-30T10:00:00', 'yesterday'])('refuses %s', (input) => {
    expect(violations(S03, { at: input })).toEqual([{ field: 'at', description: expect.stringContaining('ISO 8601') }]);
  });
});
