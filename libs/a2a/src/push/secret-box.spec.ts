import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { SealedSecretError, SecretBox, parseEncryptionKey } from './secret-box.js';

const key = randomBytes(32);

describe('SecretBox', () => {
  it('seals so that the stored text holds nothing of the secret, and opens it again', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('Bearer-credential-123', 'ctx');
    expect(sealed).toMatch(/^a2a-sealed:v1:[\w-]{8}\.[\w-]+$/);
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

  it('stores as given without a key, and opens values stored before a key was set', () => {
    expect(new SecretBox(undefined).seal('plain', 'ctx')).toBe('plain');
    expect(new SecretBox(key).open('plain', 'ctx')).toBe('plain');
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
