/**
 * fast-check generators of hostile A2A requests for both HTTP bindings: envelopes and params of
 * every operation (v1.0 and v0.3 method names and shapes), then mutated on the wire (truncated,
 * nested deep, huge strings, duplicate keys, invalid UTF-8, odd content types, encodings and
 * headers). Each request is plain data (method, path, headers, body bytes), so a failure report
 * shows exactly what was sent.
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { ROLES, TASK_STATES } from 'nestjs-a2a';
import { OPERATIONS, type A2AOperation } from '../../libs/a2a/src/protocol/operations.js';
import { REST_ROUTES } from '../../libs/a2a/src/protocol/rest-routes.js';

export type FuzzBinding = 'JSONRPC' | 'HTTP+JSON';

export interface HostileRequest {
  readonly binding: FuzzBinding;
  /** HTTP method. */
  readonly method: string;
  /** Path and query, from the server's root. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** Sent with `Transfer-Encoding: chunked` (no Content-Length). */
  readonly chunked?: boolean;
  /** How the body was made, for the failure report. */
  readonly shape: string;
}

export interface FuzzTargets {
  /** Ids of tasks that exist on the server (some interrupted, some finished), mixed into ids. */
  readonly taskIds: readonly string[];
  /** Headers a well-behaved caller sends (its credentials); sometimes dropped or replaced. */
  readonly auth: Record<string, string>;
}

/** The v1.0 operations, which are also the JSON-RPC method names. */
const V1_METHODS = Object.keys(OPERATIONS) as A2AOperation[];

/** v0.3 method names: served at 0.3 to requests without A2A-Version (or with 0.3) when the server serves 0.3, method-not-found otherwise. */
const V03_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
] as const;

const V03_FOR: Partial<Record<A2AOperation, (typeof V03_METHODS)[number]>> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
};

/**
 * Texts the demo's echo agent acts on, and what is left out: `/task slow` waits (up to minutes),
 * and the `tck-`/`test-resubscribe` message ids drive long or open-ended tasks (AUTH_REQUIRED
 * keeps its stream open), which would only make the run slow, not more hostile.
 */
const AGENT_TEXTS = ['hello', '/task fuzz', '/ask', '/fail', '/throw', '', ' ', 'echo'];
const LONG_RUNNING = /\/task slow|tck-|test-resubscribe/;

// ---- scalars that break expectations ----

const oddNumber = fc.constantFrom(-1, 0, 1, 1.5, -0.5, 100, 101, 1000, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e21, 1e308, -1e308, Number.MIN_VALUE);
const oddNumericString = fc.constantFrom('', '0', '1', '-1', '1.5', '1e3', 'NaN', 'Infinity', '0x10', ' 5 ', '2147483648', '١٢', '5abc');
const oddString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\ufeff', '../..', '%00', '<script>', '${x}', '__proto__', 'constructor', 'a'.repeat(300)),
);
const smallJson = fc.jsonValue({ maxDepth: 2 });

/** Any wrong-typed or out-of-range value. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  oddNumber,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  oddNumericString,
  oddString,
  fc.array(smallJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 3 }),
);

/** Mostly `good`, now and then anything at all. */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: oddValue, weight: 1 });

const enumValue = (names: readonly string[], lowercase03: readonly string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...names), weight: 4 },
    { arbitrary: fc.constantFrom(...lowercase03), weight: 1 },
    { arbitrary: fc.integer({ min: -2, max: 12 }), weight: 1 }, // enums as numbers, in and out of range
    { arbitrary: fc.constantFrom('3', 'TASK_STATE_UNSPECIFIED', 'ROLE_UNSPECIFIED', 'task_state_working', ''), weight: 1 },
  );

const taskState = enumValue(TASK_STATES, ['working', 'completed', 'input-required', 'canceled']);
const role = enumValue(ROLES, ['user', 'agent']);

const base64 = fc.oneof(fc.base64String({ maxLength: 40 }), fc.constantFrom('!!!', 'YQ', 'YQ=', '-_-_', '===='));
const someUrl = fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1/hook', 'https://169.254.169.254/latest', 'file:///etc/passwd', 'not a url', ''));

const idArb = (targets: FuzzTargets) =>
  fc.oneof(
    { arbitrary: targets.taskIds.length > 0 ? fc.constantFrom(...targets.taskIds) : fc.uuid(), weight: 3 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: oddString, weight: 2 },
  );

// ---- messages and parts (v1.0, two oneof members, and v0.3 forms) ----

const partExtras = { mediaType: mostly(fc.constantFrom('text/plain', 'application/json', 'image/png', '')), filename: mostly(fc.string({ maxLength: 12 })), metadata: mostly(smallJson) };

const part: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ text: mostly(fc.oneof(fc.constantFrom(...AGENT_TEXTS), fc.string({ maxLength: 40 }))), ...partExtras }, { requiredKeys: ['text'] }),
  fc.record({ raw: mostly(base64), ...partExtras }, { requiredKeys: ['raw'] }),
  fc.record({ url: mostly(someUrl), ...partExtras }, { requiredKeys: ['url'] }),
  fc.record({ data: smallJson, ...partExtras }, { requiredKeys: ['data'] }),
  // two members of the `content` oneof at once, or none
  fc.record({ text: fc.string({ maxLength: 10 }), raw: base64 }),
  fc.record({ url: someUrl, data: smallJson }),
  fc.record({ text: fc.string({ maxLength: 10 }), raw: base64, url: someUrl, data: smallJson }),
  fc.record({ mediaType: fc.constant('text/plain') }),
  // v0.3 parts
  fc.record({ kind: fc.constant('text'), text: fc.string({ maxLength: 20 }) }),
  fc.record({ kind: fc.constant('file'), file: fc.record({ bytes: base64, mimeType: fc.constant('text/plain'), name: fc.string({ maxLength: 8 }) }) }),
  fc.record({ kind: fc.constantFrom('data', 'nope'), data: smallJson }),
  oddValue,
);

/** A security scheme with two members of its oneof (api key and http auth), where a struct may carry one. */
const twoMemberScheme = fc.constant({
  apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' },
  httpAuthSecurityScheme: { scheme: 'bearer' },
});

const message = (targets: FuzzTargets): fc.Arbitrary<unknown> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          messageId: mostly(fc.oneof(fc.uuid(), fc.string({ maxLength: 12 }))),
          role: role,
          parts: mostly(fc.array(part, { maxLength: 4 })),
          contextId: mostly(fc.oneof(fc.uuid(), fc.string({ maxLength: 12 }))),
          taskId: mostly(idArb(targets)),
          metadata: mostly(fc.oneof(smallJson, fc.record({ securityScheme: twoMemberScheme }))),
          extensions: mostly(fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 })),
          referenceTaskIds: mostly(fc.array(idArb(targets), { maxLength: 3 })),
          kind: fc.constant('message'), // v0.3 discriminator, an unknown field in 1.0
        },
        { requiredKeys: ['messageId', 'role', 'parts'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ messageId: fc.uuid(), role: fc.constant('user'), kind: fc.constant('message'), parts: fc.constant([{ kind: 'text', text: 'hello' }]) }) },
    { weight: 1, arbitrary: oddValue },
  );

const pushConfig = (targets: FuzzTargets) =>
  fc.record(
    {
      taskId: mostly(idArb(targets)),
      id: mostly(fc.string({ maxLength: 12 })),
      url: mostly(someUrl),
      token: mostly(fc.string({ maxLength: 20 })),
      authentication: mostly(fc.record({ scheme: mostly(fc.constantFrom('Bearer', 'Basic', '')), credentials: mostly(fc.string({ maxLength: 20 })) }, { requiredKeys: [] })),
      tenant: mostly(fc.string({ maxLength: 8 })),
    },
    { requiredKeys: [] },
  );

/** Params of each v1.0 operation, each field mostly right and sometimes wrong, missing or out of range. */
function paramsOf(operation: A2AOperation, targets: FuzzTargets): fc.Arbitrary<unknown> {
  const id = mostly(idArb(targets));
  const historyLength = mostly(fc.integer({ min: -5, max: 50 }));
  const tenant = mostly(fc.string({ maxLength: 8 }));
  const metadata = mostly(smallJson);
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return fc.record(
        {
          message: message(targets),
          configuration: mostly(
            fc.record(
              {
                acceptedOutputModes: mostly(fc.array(fc.constantFrom('text/plain', 'application/json', 'image/png', '*/*', ''), { maxLength: 3 })),
                historyLength,
                returnImmediately: mostly(fc.boolean()),
                blocking: mostly(fc.boolean()), // v0.3 name
                taskPushNotificationConfig: mostly(pushConfig(targets)),
                pushNotificationConfig: mostly(pushConfig(targets)), // v0.3 name
              },
              { requiredKeys: [] },
            ),
          ),
          metadata,
          tenant,
        },
        { requiredKeys: ['message'] },
      );
    case 'GetTask':
      return fc.record({ id, historyLength, tenant }, { requiredKeys: ['id'] });
    case 'ListTasks':
      return fc.record(
        {
          contextId: mostly(fc.string({ maxLength: 12 })),
          status: taskState,
          pageSize: mostly(fc.integer({ min: -2, max: 150 })),
          pageToken: mostly(fc.oneof(fc.string({ maxLength: 16 }), base64)),
          historyLength,
          statusTimestampAfter: mostly(fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.constantFrom('yesterday', '2025-13-45T99:99:99Z', '0'))),
          includeArtifacts: mostly(fc.boolean()),
          tenant,
        },
        { requiredKeys: [] },
      );
    case 'CancelTask':
      return fc.record({ id, metadata, tenant }, { requiredKeys: ['id'] });
    case 'SubscribeToTask':
      return fc.record({ id, tenant }, { requiredKeys: ['id'] });
    case 'CreateTaskPushNotificationConfig':
      return pushConfig(targets);
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return fc.record({ taskId: id, id: mostly(fc.string({ maxLength: 12 })), tenant }, { requiredKeys: ['taskId', 'id'] });
    case 'ListTaskPushNotificationConfigs':
      return fc.record({ taskId: id, pageSize: mostly(fc.integer({ min: -2, max: 150 })), pageToken: mostly(fc.string({ maxLength: 12 })), tenant }, { requiredKeys: ['taskId'] });
    case 'GetExtendedAgentCard':
      return fc.record({ tenant }, { requiredKeys: [] });
  }
}

/** An operation with its params: `v03` when the v0.3 method name is used. */
const operationCall = (targets: FuzzTargets) =>
  fc.constantFrom(...V1_METHODS).chain((operation) =>
    fc.record({ operation: fc.constant(operation), params: paramsOf(operation, targets), v03: fc.boolean() }),
  );

// ---- JSON-RPC envelopes ----

const rpcId = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(fc.integer(), fc.uuid(), fc.string({ maxLength: 10 })) },
  { weight: 1, arbitrary: fc.constantFrom(null, 0, -1, 1.5, 2 ** 53 + 1, 1e300, '', 'null') },
  { weight: 1, arbitrary: fc.oneof(fc.boolean(), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 })) },
);

const rpcMethod = (call: { operation: A2AOperation; v03: boolean }) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(call.v03 ? (V03_FOR[call.operation] ?? call.operation) : call.operation) },
    { weight: 1, arbitrary: fc.constantFrom(...V03_METHODS, 'sendMessage', 'SENDMESSAGE', 'SendMessage ', 'rpc.discover', 'constructor', '__proto__', 'toString', 'hasOwnProperty', '') },
    { weight: 1, arbitrary: oddValue },
  );

const envelope = (targets: FuzzTargets): fc.Arbitrary<Record<string, unknown>> =>
  operationCall(targets).chain((call) =>
    fc.record(
      {
        jsonrpc: fc.oneof({ weight: 12, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('1.0', '2', 2, ''), oddValue) }),
        id: rpcId,
        method: rpcMethod(call),
        params: fc.oneof({ weight: 12, arbitrary: fc.constant(call.params) }, { weight: 1, arbitrary: oddValue }),
      },
      { requiredKeys: ['jsonrpc', 'method'] },
    ),
  );

// ---- turning a JSON value into hostile bytes ----

const INVALID_UTF8 = [
  [0xff],
  [0xc3, 0x28], // bad continuation
  [0xc0, 0xaf], // overlong '/'
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xe2, 0x82], // truncated sequence
];

type Encoded = { body: Buffer; shape: string };

/** Serialises `value` and maybe breaks it; huge shapes are rarer (they cost the server the most). */
const hostileBytes = (value: unknown): fc.Arbitrary<Encoded> => {
  const text = JSON.stringify(value) ?? 'null';
  const plain = fc.constant<Encoded>({ body: Buffer.from(text), shape: 'json' });
  return fc.oneof(
    { weight: 20, arbitrary: plain },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => ({ body: Buffer.from(text.slice(0, n)), shape: `truncated at ${n}` })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(8, 63, 64, 65, 200, 5000, 60_000), fc.constantFrom('{"a":', '['), fc.boolean())
        .map(([depth, open, closed]) => {
          const close = open === '[' ? ']' : '}';
          const nested = `${open.repeat(depth)}${text}${closed ? close.repeat(depth) : ''}`;
          return { body: Buffer.from(wrapParams(value, nested)), shape: `nested ${depth}${closed ? '' : ' unclosed'}` };
        }),
    },
    {
      weight: 1,
      // beyond Nest's 100 kB JSON limit, and (more rarely: they cost the most) beyond the module's 1 MiB
      arbitrary: fc
        .oneof({ weight: 3, arbitrary: fc.constant(20_000) }, { weight: 2, arbitrary: fc.constant(150_000) }, { weight: 1, arbitrary: fc.constant(1_100_000) })
        .map((size) => ({ body: Buffer.from(withHugeString(value, size)), shape: `huge string ${size}` })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom('id', 'method', 'params', 'jsonrpc', 'message', 'parts', 'text'), oddValue, fc.boolean()).map(([key, other, first]) => ({
        body: Buffer.from(withDuplicateKey(text, key, other, first)),
        shape: `duplicate ${key}`,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([bytes, at]) => ({ body: withInvalidUtf8(text, bytes, at), shape: `invalid UTF-8 ${bytes.map((b) => b.toString(16)).join(' ')}` })),
    },
    { weight: 1, arbitrary: fc.constant({ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), shape: 'BOM' }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ body: Buffer.from(bytes), shape: 'random bytes' })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '[]', '{}', 'null', 'true', '1', '"x"', '{', '}', '{"jsonrpc":"2.0"}', '\u0000').map((t) => ({ body: Buffer.from(t), shape: `literal ${JSON.stringify(t)}` })),
    },
  );
};

/** `nested` (already JSON text) put where the params go, so the depth is not just the envelope's. */
function wrapParams(value: unknown, nested: string): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return nested;
  const { params: _params, ...rest } = value as Record<string, unknown>;
  const head = JSON.stringify(rest).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}"params":${nested}}`;
}

/** A string of `size` characters in the first text part, or in a field of its own. */
function withHugeString(value: unknown, size: number): string {
  const huge = 'x'.repeat(size);
  const copy = structuredClone(value) as Record<string, unknown> | null;
  const parts = (copy as { params?: { message?: { parts?: unknown } }; message?: { parts?: unknown } } | null);
  const target = parts?.params?.message ?? parts?.message;
  if (target && typeof target === 'object' && Array.isArray((target as { parts?: unknown }).parts)) {
    (target as { parts: unknown[] }).parts.unshift({ text: huge });
  } else if (copy && typeof copy === 'object' && !Array.isArray(copy)) {
    copy.padding = huge;
  } else {
    return JSON.stringify([huge, copy]);
  }
  return JSON.stringify(copy);
}

/** The same key twice in the outer object: `first` puts the extra one before the original (the original wins). */
function withDuplicateKey(text: string, key: string, other: unknown, first: boolean): string {
  if (!text.startsWith('{') || text === '{}') return text;
  const extra = `${JSON.stringify(key)}:${JSON.stringify(other) ?? 'null'}`;
  return first ? `{${extra},${text.slice(1)}` : `${text.slice(0, -1)},${extra}}`;
}

/** Invalid bytes inside a JSON string when there is one (else anywhere): strict UTF-8 must refuse them. */
function withInvalidUtf8(text: string, bytes: number[], at: number): Buffer {
  const raw = Buffer.from(text);
  const quotes = [...text.matchAll(/"[^"\\]*"/g)].filter((m) => m[0].length > 2);
  const offset = quotes.length > 0 ? Buffer.byteLength(text.slice(0, quotes[at % quotes.length].index! + 1)) : at % (raw.length + 1);
  return Buffer.concat([raw.subarray(0, offset), Buffer.from(bytes), raw.subarray(offset)]);
}

// ---- headers ----

const CONTENT_TYPES = ['application/json', 'application/a2a+json'];
const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/a2a+json; version=1',
      'APPLICATION/JSON',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'application/*',
      '*/*',
      'json',
      ';',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const versionHeader = fc.oneof(
  { weight: 10, arbitrary: fc.constant('1.0') },
  { weight: 3, arbitrary: fc.constantFrom('1.0.1', '1.0.0', '0.3', '0.3.0', '1', '1.1', '2.0', '01.00', '', ' ', 'abc', '1.0, 0.3', '1.0.0.0', '-1.0', '9999999999999999.0', 'v1.0') },
  { weight: 2, arbitrary: fc.constant(undefined) }, // absent: 0.3
);

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

const oddHeaders = fc.record(
  {
    'A2A-Extensions': fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('', ',', ' , ,', 'https://example.com/ext/v1', 'urn:a,urn:b,urn:a') },
      { weight: 4, arbitrary: headerText },
      { weight: 1, arbitrary: fc.constant(Array.from({ length: 200 }, (_, i) => `urn:x:${i}`).join(',')) },
    ),
    'Last-Event-ID': fc.oneof(fc.constantFrom('', '0', '1', '-1', '5', '1.5', 'abc', '99999999999999999999', '  3 '), headerText),
    Accept: fc.constantFrom('application/json', 'application/a2a+json', 'text/event-stream', '*/*', 'text/html', ''),
    'Accept-Charset': fc.constantFrom('latin1', 'utf-16'),
    'X-Forwarded-For': fc.constantFrom('127.0.0.1', 'not-an-ip', '::1, 10.0.0.1'),
    'X-HTTP-Method-Override': fc.constantFrom('DELETE', 'GET'),
  },
  { requiredKeys: [] },
);

const contentEncoding = fc.oneof(
  { weight: 20, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('identity', 'gzip', 'GZIP', 'deflate', 'br', 'x-custom', 'gzip, gzip') },
);

/** The caller's credentials, mostly kept; sometimes missing, wrong or doubled. */
const authHeaders = (targets: FuzzTargets) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(targets.auth) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant(Object.fromEntries(Object.keys(targets.auth).map((k) => [k, 'wrong-key']))) },
  );

interface HeaderChoice {
  contentType?: string;
  version?: string;
  encoding?: string;
  extra: Record<string, string>;
  auth: Record<string, string>;
  chunked: boolean;
}

const headerChoice = (targets: FuzzTargets): fc.Arbitrary<HeaderChoice> =>
  fc.record({
    contentType,
    version: versionHeader,
    encoding: contentEncoding,
    extra: oddHeaders as fc.Arbitrary<Record<string, string>>,
    auth: authHeaders(targets),
    chunked: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  });

/** Headers and body as sent: a gzip encoding is really applied (half the time), so a host parser that inflates sees JSON. */
function finish(encoded: Encoded, choice: HeaderChoice): { headers: Record<string, string>; body: Buffer; shape: string } {
  const headers: Record<string, string> = { ...choice.auth, ...choice.extra };
  if (choice.contentType !== undefined) headers['Content-Type'] = choice.contentType;
  if (choice.version !== undefined) headers['A2A-Version'] = choice.version;
  let body = encoded.body;
  let shape = encoded.shape;
  if (choice.encoding !== undefined) {
    headers['Content-Encoding'] = choice.encoding;
    if (choice.encoding.toLowerCase() === 'gzip' && body.length % 2 === 0) {
      body = gzipSync(body);
      shape += ', gzipped';
    }
  }
  if (choice.contentType?.includes('utf-16')) {
    body = Buffer.from(body.toString('utf8'), 'utf16le');
    shape += ', utf-16le';
  }
  return { headers, body, shape };
}

// ---- the two bindings ----

const agentPrefix = fc.oneof(
  { weight: 10, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('/agents/echo', '/agents/nobody', '/agents/%2e%2e', '/agents/ECHO', '/agents/echo%00') },
);

/** JSON-RPC requests: one envelope, a batch, or something that is not an envelope at all. */
export const jsonRpcRequest = (targets: FuzzTargets): fc.Arbitrary<HostileRequest> => {
  const value = fc.oneof(
    { weight: 16, arbitrary: envelope(targets) },
    { weight: 1, arbitrary: fc.array(envelope(targets), { maxLength: 4 }) }, // batches
    { weight: 1, arbitrary: oddValue },
  );
  return fc
    .record({
      value,
      prefix: agentPrefix,
      httpMethod: fc.oneof({ weight: 20, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH') }),
      choice: headerChoice(targets),
    })
    .filter(({ value }) => !isUnwanted(value))
    .chain(({ value, prefix, httpMethod, choice }) =>
      hostileBytes(value).map((encoded) => {
        const { headers, body, shape } = finish(encoded, choice);
        const sendsBody = httpMethod !== 'GET';
        return {
          binding: 'JSONRPC' as const,
          method: httpMethod,
          path: `${prefix}/a2a/jsonrpc`,
          headers: sendsBody ? headers : withoutBodyHeaders(headers),
          body: sendsBody ? body : undefined,
          chunked: sendsBody && choice.chunked,
          shape,
        };
      }),
    );
};

const pathSegment = (targets: FuzzTargets) =>
  fc.oneof(
    { weight: 6, arbitrary: idArb(targets).map((id) => percentEncoded(String(id))) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%ff%fe', '%', '%2F', '..', '.', '%00', 'a:b', 'x'.repeat(3000), '%E2%82', '%C0%AF') },
  );

/** A query string: the route's own fields (odd values included), unknown and repeated keys, `A2A-Version`. */
const queryString = fc
  .record(
    {
      historyLength: fc.oneof(fc.integer({ min: -3, max: 20 }).map(String), oddNumericString),
      pageSize: fc.oneof(fc.integer({ min: -3, max: 150 }).map(String), oddNumericString),
      status: fc.oneof(fc.constantFrom(...TASK_STATES, 'working', '3', '99', '-1', '')),
      contextId: fc.string({ maxLength: 10 }),
      pageToken: fc.string({ maxLength: 16 }),
      includeArtifacts: fc.constantFrom('true', 'false', '1', 'yes', ''),
      statusTimestampAfter: fc.constantFrom('2025-01-01T00:00:00Z', 'yesterday', '9999-99-99', '1700000000'),
      tenant: fc.string({ maxLength: 8 }),
      'A2A-Version': fc.constantFrom('1.0', '0.3', 'x'),
      unknown: fc.string({ maxLength: 8 }),
      repeated: fc.constant('__repeat__'),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      if (k === 'repeated') {
        q.append('pageSize', '1');
        q.append('pageSize', '1000');
      } else q.set(k, v);
    }
    const s = q.toString();
    return s ? `?${s}` : '';
  });

/** HTTP+JSON requests: a route of the table (tenant-prefixed or not), with odd segments, methods, queries and bodies. */
export const restRequest = (targets: FuzzTargets): fc.Arbitrary<HostileRequest> =>
  fc
    .record({
      route: fc.constantFrom(...REST_ROUTES),
      tenant: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('acme', 'tasks', 'message:send', '%zz'), fc.string({ maxLength: 6 }).map(percentEncoded)) }),
      id: pathSegment(targets),
      configId: pathSegment(targets),
      prefix: agentPrefix,
      httpMethod: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH') }),
      mangle: fc.oneof(
        { weight: 12, arbitrary: fc.constant<'none' | 'v03' | 'extra' | 'random' | 'slashes'>('none') },
        { weight: 1, arbitrary: fc.constantFrom<'v03' | 'extra' | 'random' | 'slashes'>('v03', 'extra', 'random', 'slashes') },
      ),
      randomPath: fc.webPath(),
      query: fc.option(queryString, { freq: 2, nil: '' }),
      call: operationCall(targets),
      choice: headerChoice(targets),
    })
    .filter((r) => !isUnwanted(r.call.params))
    .chain((r) => {
      const method = r.httpMethod ?? r.route.method;
      let routePath = r.route.path.replace('{id}', r.route.path.startsWith('/tasks/{taskId}') ? r.configId : r.id).replace('{taskId}', r.id);
      if (r.mangle === 'v03') routePath = `/v1${routePath}`;
      if (r.mangle === 'extra') routePath = `${routePath}/extra`;
      if (r.mangle === 'random') routePath = r.randomPath.startsWith('/') ? r.randomPath : `/${r.randomPath}`;
      if (r.mangle === 'slashes') routePath = routePath.replace(/\//g, '//');
      const path = `${r.prefix}/a2a/rest${r.tenant ? `/${r.tenant}` : ''}${routePath}${r.query}`;
      // the body: some operation's params (the route's own or another's), fields the path also names included
      const sendsBody = method !== 'GET';
      return hostileBytes(r.call.params).map((encoded): HostileRequest => {
        const { headers, body, shape } = finish(encoded, r.choice);
        const withBody = sendsBody && (r.route.body === '*' || body.length % 3 === 0);
        return {
          binding: 'HTTP+JSON',
          method,
          path,
          headers: withBody ? headers : withoutBodyHeaders(headers),
          body: withBody ? body : undefined,
          chunked: withBody && r.choice.chunked,
          shape: withBody ? shape : 'no body',
        };
      });
    });

/** Either binding, about half each. */
export const hostileRequest = (targets: FuzzTargets): fc.Arbitrary<HostileRequest> => fc.oneof(jsonRpcRequest(targets), restRequest(targets));

/** Percent-encoding that also takes lone surrogates (as their WTF-8 bytes: not valid UTF-8, which a server must refuse). */
function percentEncoded(text: string): string {
  return [...text]
    .map((c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        const code = c.charCodeAt(0);
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      }
    })
    .join('');
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { 'Content-Type': _type, 'Content-Encoding': _encoding, ...rest } = headers;
  return rest;
}

/** A value that would start a long-running demo task (see AGENT_TEXTS). */
function isUnwanted(value: unknown): boolean {
  return LONG_RUNNING.test(JSON.stringify(value) ?? '');
}

