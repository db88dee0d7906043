/** The push-config operations against the real Redis config store (a key prefix of this file's own). */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { EgressPolicy } from '../net/egress-policy.js';
import { fakeLookup } from '../testing/fake-lookup.js';
import { InvalidParamsError, ResourceExhaustedError, TaskNotFoundError } from '../protocol/errors.js';
import type { Task } from '../protocol/types.js';
import { connectClient, deleteKeys, uniquePrefix } from '../redis/testing/redis-test-support.js';
import type { StoredTask, TaskScope, TaskStore } from '../tasks/task-store.js';
import { PushNotificationService } from './push-notification.service.js';
import { RedisPushConfigStore } from './redis-push-config-store.js';
import { SecretBox } from './secret-box.js';
import { rejectionOf } from '../testing/thrown.js';

const prefix = uniquePrefix();
const alice: TaskScope = { agent: 'echo', tenant: '', subject: 'alice' };
const bob: TaskScope = { agent: 'echo', tenant: '', subject: 'bob' };
const aliceInAcme: TaskScope = { agent: 'echo', tenant: 'acme', subject: 'alice' };

/** Tasks as the service asks about them (only their state matters to it). */
const states = new Map<string, Task['status']['state']>();
const tasks = {
  get: async (_scope: TaskScope, id: string): Promise<StoredTask | undefined> =>
    states.has(id) ? ({ task: { id, status: { state: states.get(id)! } }, scope: alice, seq: 1, version: 1 } as StoredTask) : undefined,
} as TaskStore;

let redis: Redis;
let service: PushNotificationService;
let ids = 0;

beforeAll(async () => {
  redis = await connectClient();
  const policy = new EgressPolicy({ lookup: fakeLookup({ 'hooks.example.com': ['93.184.215.14'], 'inside.example.com': ['10.1.2.3'] }) });
  service = new PushNotificationService(new RedisPushConfigStore(redis, { keyPrefix: prefix }), tasks, policy, new SecretBox(Buffer.alloc(32, 3)), {
    maxConfigsPerTask: 3,
    finishedTaskConfigTtlMs: 60_000,
  }, () => 1_700_000_000_000, () => `gen-${++ids}`);
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

describe('PushNotificationService.validate', () => {
  it('accepts a public https webhook whose name resolves', async () => {
    await expect(service.validate({ url: 'https://hooks.example.com/a2a', token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } })).resolves.toBeUndefined();
  });

  it('names every bad field at once, under the path of the config in the request', async () => {
    const error = await rejectionOf(
      service.validate(
        { url: 'https://inside.example.com/x', id: 'has space', token: 'a\nb', authentication: { scheme: 'Bear er', credentials: 'x\u0000' } },
        'configuration.taskPushNotificationConfig.url',
      ),
      InvalidParamsError,
    );
    expect(error.fieldViolations).toEqual([
      { field: 'configuration.taskPushNotificationConfig.id', description: 'must be 1 to 256 visible ASCII characters' },
      { field: 'configuration.taskPushNotificationConfig.token', description: 'must be printable ASCII (it is sent in a header)' },
      { field: 'configuration.taskPushNotificationConfig.authentication.scheme', description: 'must be an HTTP authentication scheme such as "Bearer" or "Basic"' },
      { field: 'configuration.taskPushNotificationConfig.authentication.credentials', description: 'must be printable ASCII (it is sent in a header)' },
      { field: 'configuration.taskPushNotificationConfig.url', description: 'is refused: this server does not send notifications to that host' },
    ]);
  });

  describe('a refusal that comes from resolving the host', () => {
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('tells the caller "refused", and the log what the host resolved to (no DNS oracle for callers)', async () => {
      const warnings: string[] = [];
      jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
      for (const url of ['https://inside.example.com/x?token=QSECRET', 'https://nowhere.example.com/x']) {
        const error = await rejectionOf(service.validate({ url }), InvalidParamsError);
        expect(error.fieldViolations).toEqual([{ field: 'url', description: 'is refused: this server does not send notifications to that host' }]);
        expect(error.message).not.toMatch(/10\.1\.2\.3|resolve|private|dns/);
      }
      expect(warnings).toEqual([
        'Webhook refused at registration: egress refused: inside.example.com resolves to 10.1.2.3 is a private address (reason: private)',
        expect.stringMatching(/^Webhook refused at registration: .*nowhere\.example\.com.*\(reason: dns\)$/),
      ]);
      expect(warnings.join('\n')).not.toContain('QSECRET');
    });

    it('still names what the URL itself says: a literal private address, the scheme', async () => {
      const literal = await rejectionOf(service.validate({ url: 'https://10.1.2.3/x' }), InvalidParamsError);
      expect(literal.fieldViolations[0].description).toMatch(/private.*\(reason: private\)$/);
      const scheme = await rejectionOf(service.validate({ url: 'ftp://hooks.example.com/x' }), InvalidParamsError);
      expect(scheme.fieldViolations[0].description).toMatch(/\(reason: scheme\)$/);
    });
  });

  it('refuses oversized values', async () => {
    const error = await rejectionOf(service.validate({ url: `https://hooks.example.com/${'a'.repeat(2100)}`, token: 'x'.repeat(5000) }), InvalidParamsError);
    expect(error.fieldViolations.map((v) => v.field)).toEqual(['token', 'url']);
  });
});

describe('PushNotificationService: create, get, list, delete', () => {
  it('answers Create with what was sent and its id; Get and List redact the secrets', async () => {
    const sent = { url: 'https://hooks.example.com/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'cred' } };
    const created = await service.create(alice, 't-1', sent);
    expect(created).toEqual({ ...sent, id: 'gen-1', taskId: 't-1' });
    const redacted = { id: 'gen-1', taskId: 't-1', url: sent.url, token: '***', authentication: { scheme: 'Bearer', credentials: '***' } };
    expect(await service.get(alice, 't-1', 'gen-1')).toEqual(redacted);
    expect(await service.list(alice, 't-1', undefined, undefined)).toEqual({ configs: [redacted], nextPageToken: '' });
  });

  it('echoes the tenant of the scope', async () => {
    const created = await service.create(aliceInAcme, 't-tenant', { id: 'c', url: 'https://hooks.example.com/t', tenant: 'spoofed' });
    expect(created.tenant).toBe('acme');
    expect((await service.get(aliceInAcme, 't-tenant', 'c')).tenant).toBe('acme');
  });

  it('keeps configs of one scope out of every other scope', async () => {
    await service.create(alice, 't-2', { id: 'mine', url: 'https://hooks.example.com/2' });
    for (const other of [bob, aliceInAcme, { ...alice, agent: 'support' }]) {
      await expect(service.get(other, 't-2', 'mine')).rejects.toBeInstanceOf(TaskNotFoundError);
      expect((await service.list(other, 't-2', undefined, undefined)).configs).toEqual([]);
      await service.delete(other, 't-2', 'mine');
    }
    expect((await service.get(alice, 't-2', 'mine')).id).toBe('mine');
  });

  it('replaces a config of the same id, pages through the rest, and deletes idempotently', async () => {
    for (const id of ['a', 'b', 'c']) await service.create(alice, 't-3', { id, url: `https://hooks.example.com/${id}` });
    await service.create(alice, 't-3', { id: 'b', url: 'https://hooks.example.com/b2' });
    const first = await service.list(alice, 't-3', 2, undefined);
    expect(first.configs.map((c) => c.id)).toEqual(['a', 'b']);
    expect(first.configs[1].url).toBe('https://hooks.example.com/b2');
    const second = await service.list(alice, 't-3', 2, first.nextPageToken);
    expect(second).toEqual({ configs: [expect.objectContaining({ id: 'c' })], nextPageToken: '' });
    await service.delete(alice, 't-3', 'a');
    await service.delete(alice, 't-3', 'a');
    expect((await service.list(alice, 't-3', undefined, undefined)).configs.map((c) => c.id)).toEqual(['b', 'c']);
  });

  it('refuses a page token it did not give', async () => {
    const error = await rejectionOf(service.list(alice, 't-3', 1, '!!not-base64url!!'), InvalidParamsError);
    expect(error.fieldViolations).toEqual([{ field: 'pageToken', description: 'is not a token this server gave' }]);
  });

  it('caps the configs of a task (a replacement does not count)', async () => {
    for (const id of ['1', '2', '3']) await service.create(alice, 't-4', { id, url: 'https://hooks.example.com/x' });
    await service.create(alice, 't-4', { id: '2', url: 'https://hooks.example.com/y' });
    await expect(service.create(alice, 't-4', { id: '4', url: 'https://hooks.example.com/x' })).rejects.toBeInstanceOf(ResourceExhaustedError);
  });

  it('gives the configs of a finished task an expiry, and none to those of a running one', async () => {
    states.set('t-done', 'TASK_STATE_COMPLETED');
    states.set('t-running', 'TASK_STATE_WORKING');
    await service.create(alice, 't-done', { id: 'x', url: 'https://hooks.example.com/x' });
    await service.create(alice, 't-running', { id: 'x', url: 'https://hooks.example.com/x' });
    const [done] = await redis.keys(`${prefix}push:cfg:*:t-done`);
    const [running] = await redis.keys(`${prefix}push:cfg:*:t-running`);
    expect(await redis.pttl(done)).toBeGreaterThan(59_000);
    expect(await redis.pttl(running)).toBe(-1);
  });

  it("reads nothing of a new task (its inline config hears it from its first event); an existing task's config hears what follows", async () => {
    const configs = new RedisPushConfigStore(redis, { keyPrefix: prefix });
    states.set('t-existing', 'TASK_STATE_INPUT_REQUIRED');
    const get = jest.spyOn(tasks, 'get');
    try {
      await service.create(alice, 't-new', { id: 'n', url: 'https://hooks.example.com/n' }, { newTask: true });
      expect(get).not.toHaveBeenCalled();
      expect((await configs.get(alice, 't-new', 'n'))?.afterSeq).toBe(0);
      await service.create(alice, 't-existing', { id: 'e', url: 'https://hooks.example.com/e' }, { newTask: false });
      expect(get).toHaveBeenCalledTimes(2);
      expect((await configs.get(alice, 't-existing', 'e'))?.afterSeq).toBe(1);
    } finally {
      get.mockRestore();
    }
  });

  it('stores the secrets sealed', async () => {
    await service.create(alice, 't-5', { id: 's', url: 'https://hooks.example.com/s', token: 'PLAINTOKEN', authentication: { scheme: 'Bearer', credentials: 'PLAINCRED' } });
    const [key] = await redis.keys(`${prefix}push:cfg:*:t-5`);
    const raw = (await redis.hget(key, 's'))!;
    expect(raw).not.toMatch(/PLAINTOKEN|PLAINCRED/);
    expect(JSON.parse(raw)).toMatchObject({ id: 's', taskId: 't-5', url: 'https://hooks.example.com/s', createdAt: 1_700_000_000_000 });
  });
});
