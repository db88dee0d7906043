import { describe, expect, it } from '@jest/globals';
import { createCipheriv, randomBytes } from 'node:crypto';
import type { TaskScope } from '../tasks/task-store.js';
import { SealedSecretError, SecretBox, parseEncryptionKey } from './secret-box.js';
import { openConfig, sealConfig } from './stored-config.js';

const key = randomBytes(32);

describe('SecretBox', () => {
  it('seals so that the stored text holds nothing of the secret, and opens it again', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('Bearer-credential-123', 'ctx');
    expect(sealed).toMatch(/^a2a-sealed:v2:[\w-]{8}\.[\w-]+$/);
    expect(sealed).not.toContain('credential');
    expect(box.open(sealed, 'ctx')).toBe('Bearer-credential-123');
  });

  it('draws a fresh IV each time', () => {
    const box = new SecretBox(key);
    expect(box.seal('same', 'ctx')).not.toBe(box.seal('same', 'ctx'));
  });

  it('refuses a sealed value moved to another config (another context)', () => {
    const box = new SecretBox(key);
    expect(() => box.open(box.seal('secret', 'config-a'), 'config-b')).toThrow(SealedSecretError);
  });

  it('refuses an altered value', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('secret', 'ctx');
    // one bit of the ciphertext flipped (editing the text's last characters may only touch base64 padding bits)
    const dot = sealed.lastIndexOf('.');
    const bytes = Buffer.from(sealed.slice(dot + 1), 'base64url');
    bytes[bytes.length - 1] ^= 1;
    const altered = `${sealed.slice(0, dot + 1)}${bytes.toString('base64url')}`;
    expect(() => box.open(altered, 'ctx')).toThrow('does not decrypt');
  });

  it('says when another key sealed it, or no key is configured, without naming the secret', () => {
    const sealed = new SecretBox(key).seal('secret', 'ctx');
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'ctx')).toThrow(/encrypted with another key \(key id [\w-]{8}\)/);
    expect(() => new SecretBox(undefined).open(sealed, 'ctx')).toThrow('no push.encryptionKey is configured');
  });

  it('refuses a value whose tag was cut short (the tag length is fixed at 128 bits)', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('secret', 'ctx');
    const dot = sealed.lastIndexOf('.');
    const bytes = Buffer.from(sealed.slice(dot + 1), 'base64url');
    // iv (12) | a 4-byte tag: GCM without a fixed tag length would check just those 4 bytes
    const short = `${sealed.slice(0, dot + 1)}${bytes.subarray(0, 16).toString('base64url')}`;
    expect(() => box.open(short, 'ctx')).toThrow(SealedSecretError);
  });

  it('keeps opening values sealed in the v1 format (identity only), with their own associated data', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('identity', 'utf8'));
    const ciphertext = Buffer.concat([cipher.update('old-secret', 'utf8'), cipher.final()]);
    const keyId = (new SecretBox(key).seal('x', 'y').split(':')[2]).split('.')[0];
    const v1 = `a2a-sealed:v1:${keyId}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    const box = new SecretBox(key);
    expect(box.open(v1, { v2: 'identity+url', v1: 'identity' })).toBe('old-secret');
    expect(() => box.open(v1, { v2: 'identity', v1: 'other identity' })).toThrow(SealedSecretError);
    // a v2 value is read with the v2 data only
    expect(() => box.open(box.seal('new', 'identity'), { v2: 'identity+url', v1: 'identity' })).toThrow(SealedSecretError);
  });

  it('stores as given without a key, and opens values stored before a key was set', () => {
    expect(new SecretBox(undefined).seal('plain', 'ctx')).toBe('plain');
    expect(new SecretBox(key).open('plain', 'ctx')).toBe('plain');
  });
});

describe('sealed config secrets', () => {
  const scope: TaskScope = { agent: 'echo', tenant: '', subject: 'alice' };
  const box = new SecretBox(key);
  const registered = { url: 'https://hooks.example.com/a', token: 'TOKEN', authentication: { scheme: 'Bearer', credentials: 'CRED' } };

  it('open for the config they were sealed for', () => {
    const stored = sealConfig(box, scope, 't-1', 'c-1', registered, 0);
    expect(openConfig(box, scope, stored)).toEqual({ id: 'c-1', taskId: 't-1', ...registered });
  });

  it.each([
    ['the URL rewritten', { url: 'https://attacker.example/collect' }],
    ['the scheme rewritten', { authentication: { scheme: 'Basic' } }],
    ['another config id', { id: 'c-2' }],
    ['another task', { taskId: 't-2' }],
  ])('do not open with %s', (_what, change) => {
    const stored = sealConfig(box, scope, 't-1', 'c-1', registered, 0);
    const { authentication, ...rest } = change as Record<string, unknown> & { authentication?: { scheme: string } };
    const moved = { ...stored, ...rest, ...(authentication ? { authentication: { ...stored.authentication!, scheme: authentication.scheme } } : {}) };
    expect(() => openConfig(box, scope, moved)).toThrow(SealedSecretError);
  });
});

describe('parseEncryptionKey', () => {
  it.each([
    ['32 bytes', key],
    ['hex', key.toString('hex')],
    ['base64', key.toString('base64')],
    ['base64url', key.toString('base64url')],
  ])('reads %s', (_kind, input) => {
    expect(parseEncryptionKey(input)?.equals(key)).toBe(true);
  });

  it.each([['16 bytes', randomBytes(16)], ['short hex', 'abcd'], ['a passphrase', 'correct horse battery staple'], ['a number', 42]])(
    'refuses %s',
    (_kind, input) => {
      expect(parseEncryptionKey(input)).toBeUndefined();
    },
  );
});
