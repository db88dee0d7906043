import { describe, expect, it } from '@jest/globals';
import { unguardedExposure } from './a2a-lifecycle.js';

describe('start-up safety: no unguarded A2A routes beyond loopback', () => {
  it.each(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'])('serves loopback %s without a guard', (host) => {
    expect(unguardedExposure(host, false, false)).toBeUndefined();
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', '192.168.1.10', '203.0.113.7', '2001:db8::1', 'fe80::1'])('refuses %s without a guard', (host) => {
    expect(unguardedExposure(host, false, false)).toMatch(/beyond loopback, and no guard protects the A2A routes.*allowUnauthenticated: true/);
  });

  it('serves any address behind a guard, or when allowUnauthenticated is set', () => {
    expect(unguardedExposure('0.0.0.0', true, false)).toBeUndefined();
    expect(unguardedExposure('0.0.0.0', false, true)).toBeUndefined();
  });
});
