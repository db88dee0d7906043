import { describe, expect, it } from '@jest/globals';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['https://example.com/hook', 'https://example.com/hook'],
    ['https://user:pass@example.com:8443/a/b', 'https://example.com:8443/a/b'],
    ['https://example.com/hook?token=abc&x=1', 'https://example.com/hook?token=REDACTED&x=REDACTED'],
    ['https://example.com/hook?s3cr3t', 'https://example.com/hook?REDACTED'],
    ['https://example.com/hook?a=1&&b', 'https://example.com/hook?a=REDACTED&REDACTED'],
    ['https://example.com/hook?', 'https://example.com/hook'],
    ['https://example.com/hook#access_token=xyz', 'https://example.com/hook'],
    ['https://[::1]:8080/x', 'https://[::1]:8080/x'],
    ['https://0x7f.1/', 'https://127.0.0.1/'],
    ['ftp://u:p@files.example/f', 'ftp://files.example/f'],
    ['gopher://u:p@h:70/_x', 'gopher://h:70/_x'],
    ['file:///etc/passwd', 'file:///etc/passwd'],
    ['mailto:someone:secret@example.com', 'mailto:…'],
    ['javascript:alert(1)', 'javascript:…'],
    ['not a url', '[invalid URL]'],
    ['https://user:pw@[bad', '[invalid URL]'],
  ])('%s → %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });

  it('accepts a URL object and leaves it untouched', () => {
    const url = new URL('https://u:p@example.com/x?k=v#f');
    expect(redactUrl(url)).toBe('https://example.com/x?k=REDACTED');
    expect(url.href).toBe('https://u:p@example.com/x?k=v#f');
  });

  it('cuts very long URLs', () => {
    const redacted = redactUrl(`https://example.com/${'a'.repeat(1000)}`);
    expect(redacted.length).toBeLessThanOrEqual(257);
    expect(redacted.endsWith('…')).toBe(true);
  });
});
