/**
 * Hostile webhook URLs through the push-config operations themselves: CreateTaskPushNotificationConfig
 * (both bindings) and the inline config of SendMessage answer InvalidParams naming the egress reason,
 * with the URL's secrets redacted, and store nothing. Names are answered by a fake resolver; nothing
 * is ever dialled (a refused URL is refused before any connection, and no accepted config here ever
 * gets an event).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { A2AModule } from 'nestjs-a2a';
import type { EgressRefusalReason } from 'nestjs-a2a/client';
import { fakeLookup, NEVER } from 'nestjs-a2a/testing';
import { REDIS_URL, deleteKeysUnder, uniquePrefix } from '../libs/a2a/src/redis/testing/redis-test-support.js';
import { EchoAgent } from '../src/echo.agent.js';
import { startApp } from './support/custom-app.js';
import type { RunningApp } from './support/demo-app.js';
import { jsonRpcClient, restClient, userMessage, type BindingClient, type Json, type WireResponse } from './support/wire-client.js';

const prefix = uniquePrefix();

/** Simulated DNS; the public addresses are only ever classified. */
const DNS = {
  'example.com': ['93.184.215.14'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'imds.attacker.example': ['169.254.169.254'],
  'imds6.attacker.example': ['fd00:ec2::254'],
  'mixed.attacker.example': ['93.184.215.14', '10.0.0.7'],
  'mixed6.attacker.example': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::1'],
  'ula.attacker.example': ['fd00::5'],
  'mapped.attacker.example': ['::ffff:10.1.1.1'],
  'cgnat.attacker.example': ['100.64.1.1'],
  'zero.attacker.example': ['0.0.0.0'],
  'empty.attacker.example': [],
  'slow.attacker.example': NEVER,
} as const;

interface Hostile {
  url: string;
  reason: EgressRefusalReason;
  /** Strings no answer may contain (the URL's secrets). */
  hidden?: string[];
  /**
   * Refused for what its host resolves to (or because it does not): the caller is told "refused"
   * and nothing more, since the reason would say what the server's DNS answers.
   */
  resolved?: true;
}

const HOSTILE: Hostile[] = [
  // loopback in its spellings
  { url: 'https://127.0.0.1/hook', reason: 'loopback' },
  { url: 'https://127.1/hook', reason: 'loopback' },
  { url: 'https://2130706433/hook', reason: 'loopback' },
  { url: 'https://0x7f.0.0.1/hook', reason: 'loopback' },
  { url: 'https://0177.0.0.1/hook', reason: 'loopback' },
  { url: 'https://localhost/hook', reason: 'loopback' },
  { url: 'https://api.localhost/hook', reason: 'loopback' },
  { url: 'https://[::1]/hook', reason: 'loopback' },
  { url: 'https://[::ffff:127.0.0.1]/hook', reason: 'loopback' },
  { url: 'https://[::ffff:7f00:1]/hook', reason: 'loopback' },
  { url: 'https://[::127.0.0.1]/hook', reason: 'loopback' },
  { url: 'https://127.0.0.1.nip.io/hook', reason: 'loopback', resolved: true },
  { url: 'https://mixed6.attacker.example/hook', reason: 'loopback', resolved: true },
  // private, CGNAT, link-local, unique-local
  { url: 'https://10.0.0.1/hook', reason: 'private' },
  { url: 'https://172.16.5.4/hook', reason: 'private' },
  { url: 'https://192.168.1.1/hook?token=PRIVSECRET', reason: 'private', hidden: ['PRIVSECRET'] },
  { url: 'https://3232235777/hook', reason: 'private' },
  { url: 'https://[::ffff:192.168.1.1]/hook', reason: 'private' },
  { url: 'https://mixed.attacker.example/hook', reason: 'private', resolved: true },
  { url: 'https://mapped.attacker.example/hook', reason: 'private', resolved: true },
  { url: 'https://100.64.0.1/hook', reason: 'carrier-grade-nat' },
  { url: 'https://cgnat.attacker.example/hook', reason: 'carrier-grade-nat', resolved: true },
  { url: 'https://169.254.1.1/hook', reason: 'link-local' },
  { url: 'https://[fe80::1]/hook', reason: 'link-local' },
  { url: 'https://[fd12:3456:789a::1]/hook', reason: 'unique-local' },
  { url: 'https://ula.attacker.example/hook', reason: 'unique-local', resolved: true },
  // metadata endpoints, by address, embedded, by name
  { url: 'https://169.254.169.254/latest/meta-data/', reason: 'metadata' },
  { url: 'https://0xA9FEA9FE/latest/meta-data/', reason: 'metadata' },
  { url: 'https://[::ffff:169.254.169.254]/', reason: 'metadata' },
  { url: 'https://metadata.google.internal/computeMetadata/v1/', reason: 'metadata' },
  { url: 'https://imds.attacker.example/hook', reason: 'metadata', resolved: true },
  { url: 'https://imds6.attacker.example/hook', reason: 'metadata', resolved: true },
  { url: 'https://100.100.100.200/latest/meta-data/', reason: 'metadata' },
  // multicast, unspecified, reserved
  { url: 'https://224.0.0.1/hook', reason: 'multicast' },
  { url: 'https://[ff02::1]/hook', reason: 'multicast' },
  { url: 'https://0.0.0.0/hook', reason: 'unspecified' },
  { url: 'https://[::]/hook', reason: 'unspecified' },
  { url: 'https://zero.attacker.example/hook', reason: 'unspecified', resolved: true },
  { url: 'https://[::8.8.8.8]/hook', reason: 'reserved' },
  { url: 'https://192.0.2.10/hook', reason: 'reserved' },
  // names that do not resolve at registration
  { url: 'https://nxdomain.attacker.example/hook', reason: 'dns', resolved: true },
  { url: 'https://empty.attacker.example/hook', reason: 'dns', resolved: true },
  { url: 'https://slow.attacker.example/hook', reason: 'dns', resolved: true },
  // URL syntax: scheme, userinfo, port
  { url: 'http://example.com/hook?sig=HTTPSECRET', reason: 'scheme', hidden: ['HTTPSECRET'] },
  { url: 'ftp://example.com/hook', reason: 'scheme' },
  { url: 'file:///etc/passwd', reason: 'scheme' },
  { url: 'gopher://127.0.0.1:6379/_FLUSHALL', reason: 'scheme' },
  { url: 'https://alice:USERSECRET@example.com/hook', reason: 'userinfo', hidden: ['USERSECRET', 'alice'] },
  { url: 'https://bob:PW@10.0.0.1/hook?key=QSECRET#FRAGSECRET', reason: 'userinfo', hidden: ['PW@', 'QSECRET', 'FRAGSECRET'] },
  { url: 'https://example.com:0/hook', reason: 'port' },
  { url: 'not a url', reason: 'invalid-url' },
];

let app: RunningApp;
let rpc: BindingClient;
let rest: BindingClient;
let lookup: ReturnType<typeof fakeLookup>;
let taskId: string;

beforeAll(async () => {
  lookup = fakeLookup(DNS);
  app = await startApp(
    A2AModule.forRoot({ redis: { url: REDIS_URL, keyPrefix: prefix }, defaultAgent: 'echo', push: { egress: { lookup, dnsTimeoutMs: 200 } } }),
    [EchoAgent],
  );
  rpc = jsonRpcClient(`${app.url}/a2a/jsonrpc`);
  rest = restClient(`${app.url}/a2a/rest`);
  // a finished task: a config accepted here would never get an event, so nothing is ever dialled
  taskId = (await rest.call('SendMessage', { message: userMessage('/task target') })).result.task.id;
});

afterAll(async () => {
  await app?.close();
  await deleteKeysUnder(prefix);
});

/** Every address the fake DNS answers: none may reach a caller. */
const RESOLVED_ADDRESSES = Object.values(DNS).flatMap((answer) => (Array.isArray(answer) ? answer : []));

function expectRefusal(res: WireResponse, { url, reason, hidden, resolved }: Hostile, field: string): void {
  expect(res.error).toBeDefined();
  expect([-32602, 'INVALID_ARGUMENT']).toContain(res.error!.code);
  const violations = res.error!.details.flatMap((d: Json) => d.fieldViolations ?? []);
  const text = JSON.stringify(res.raw);
  if (resolved) {
    expect(violations).toEqual([{ field, description: 'is refused: this server does not send notifications to that host' }]);
    expect(res.error!.message).not.toContain('(reason:');
    for (const address of RESOLVED_ADDRESSES) expect(text).not.toContain(address);
    expect(text).not.toMatch(/resolves/);
  } else {
    expect(violations).toEqual([{ field, description: expect.stringContaining(`(reason: ${reason})`) }]);
    expect(res.error!.message).toContain(`(reason: ${reason})`);
  }
  for (const secret of hidden ?? []) expect(text).not.toContain(secret);
  if (url.includes('?')) expect(text).not.toContain(url.slice(url.indexOf('?')));
}

describe('hostile webhook URLs, through the push-config operations', () => {
  it('has at least 30 of them', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });

  describe.each([
    ['JSON-RPC', () => rpc],
    ['HTTP+JSON', () => rest],
  ])('CreateTaskPushNotificationConfig over %s', (_binding, client) => {
    it.each(HOSTILE)('$url → InvalidParams ($reason)', async (hostile) => {
      const res = await client().call('CreateTaskPushNotificationConfig', { taskId, url: hostile.url, token: 'TOKEN-NEVER-ECHOED' });
      expectRefusal(res, hostile, 'url');
      expect(JSON.stringify(res.raw)).not.toContain('TOKEN-NEVER-ECHOED');
    });
  });

  describe('inline in SendMessage', () => {
    it.each(HOSTILE)('$url → InvalidParams ($reason), no task started', async (hostile) => {
      const before = (await rest.call('ListTasks', {})).result.totalSize;
      const res = await rpc.call('SendMessage', { message: userMessage('/task x'), configuration: { taskPushNotificationConfig: { url: hostile.url } } });
      expectRefusal(res, hostile, 'configuration.taskPushNotificationConfig.url');
      expect((await rest.call('ListTasks', {})).result.totalSize).toBe(before);
    });
  });

  it('stored none of them', async () => {
    expect((await rest.call('ListTaskPushNotificationConfigs', { taskId })).result.configs ?? []).toEqual([]);
  });

  it('asked the resolver only about names, never about an address literal', () => {
    expect(lookup.calls.length).toBeGreaterThan(0);
    const names = new Set([...Object.keys(DNS), 'nxdomain.attacker.example']);
    for (const name of lookup.calls) expect(names).toContain(name);
  });

  it('accepts a public https webhook', async () => {
    const res = await rpc.call('CreateTaskPushNotificationConfig', { taskId, id: 'public', url: 'https://example.com/hooks/a2a' });
    expect(res.result).toMatchObject({ id: 'public', url: 'https://example.com/hooks/a2a' });
    await rpc.call('DeleteTaskPushNotificationConfig', { taskId, id: 'public' });
  });
});
